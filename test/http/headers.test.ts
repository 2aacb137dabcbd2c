// What every answer carries: the security headers (the app's pages included), and an X-Request-Id
// that is on each log line of its request and of the run it starts. And where a deployment answers.
import { createExecutionContext, SELF } from "cloudflare:test";
import { app } from "../../worker/http/app";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createThread, marker, script, settle, Socket, until } from "../helpers";
import { callApp, env, expectError, tokenUsers } from "./util";

afterEach(async () => {
  await settle();
  vi.restoreAllMocks();
});

function directives(res: Response): Map<string, string> {
  const csp = res.headers.get("content-security-policy") ?? "";
  return new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name, values.join(" ")]));
}

describe("security headers", () => {
  it("the app's page (and any path it routes itself) has a CSP without inline script that loads no remote image", async () => {
    for (const path of ["/", "/threads/thr_x", "/usage"]) {
      const res = await SELF.fetch(`https://app.test${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const csp = directives(res);
      expect(csp.get("script-src")).toBe("'self'");
      expect(csp.get("default-src")).toBe("'self'");
      expect(csp.get("img-src")).toBe("'self' data: blob:");
      expect(csp.get("form-action")).toBe("'none'");
      expect(csp.get("frame-ancestors")).toBe("'none'");
      expect(csp.get("object-src")).toBe("'none'");
      expect([...csp.values()].join(" ")).not.toContain("unsafe-inline");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      await res.arrayBuffer();
    }
  });

  it("the artifact frame's page has a policy of its own: sandboxed (an opaque origin), inline only, no network, framed by the app only", async () => {
    const res = await SELF.fetch("https://app.test/sandbox/artifact.html");
    const csp = directives(res);
    expect(csp.get("sandbox")).toBe("allow-scripts");
    expect(csp.get("default-src")).toBe("'none'");
    expect(csp.get("script-src")).toBe("'unsafe-inline'");
    expect(csp.get("frame-ancestors")).toBe("'self'");
    expect(csp.get("connect-src")).toBeUndefined();
    expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    await res.arrayBuffer();
    // The app's own pages keep theirs.
    expect(directives(await SELF.fetch("https://app.test/")).get("script-src")).toBe("'self'");
  });

  it("an attachment keeps its own CSP (no scripts, sandboxed), with the app's other headers", async () => {
    const thread = await createThread();
    const upload = await SELF.fetch(`https://app.test/api/threads/${thread.id}/attachments?name=page.txt`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "<script>alert(1)</script>",
    });
    expect(upload.status, await upload.clone().text()).toBe(201);
    const { attachment } = await upload.json<any>();
    const res = await SELF.fetch(`https://app.test/api/threads/${thread.id}/attachments/${attachment.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(await res.text()).toBe("<script>alert(1)</script>");
  });

  it("API answers carry them too, errors included", async () => {
    const res = await SELF.fetch("https://app.test/api/threads/nope");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(directives(res).get("frame-ancestors")).toBe("'none'");
    await expectError(res, 404, "not_found");
  });
});

describe("X-Request-Id", () => {
  it("is on every answer, a new one each time, or the caller's own", async () => {
    const [a, b] = await Promise.all([SELF.fetch("https://app.test/api/health"), SELF.fetch("https://app.test/api/nothing")]);
    expect(a.headers.get("x-request-id")).toMatch(/^[\w-]{16,}$/);
    expect(b.headers.get("x-request-id")).toMatch(/^[\w-]{16,}$/);
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
    const mine = await SELF.fetch("https://app.test/api/health", { headers: { "x-request-id": "trace-123" } });
    expect(mine.headers.get("x-request-id")).toBe("trace-123");
    await Promise.all([a.text(), b.text(), mine.text()]);
  });

  it("is on each log line of the run a post starts", async () => {
    const lines: string[] = [];
    const log = console.log;
    vi.spyOn(console, "log").mockImplementation((...args) => {
      lines.push(args.map(String).join(" "));
      log(...args);
    });
    const thread = await createThread();
    const m = marker("traced");
    await script(m, [{ kind: "text", text: "traced answer" }]);
    const ws = await Socket.open(thread.id);
    const requestId = `req-${crypto.randomUUID()}`;
    const res = await SELF.fetch(`https://app.test/api/threads/${thread.id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": requestId },
      body: JSON.stringify({ content: `hello ${m}` }),
    });
    expect(res.headers.get("x-request-id")).toBe(requestId);
    await ws.waitForRunEnd();
    ws.close();
    const runId = ws.events("pipeline:start")[0].data.runId;
    // A run's last line, with its mirror flush's figures, comes a moment after its end events.
    await until(async () => lines.some((l) => l.includes(runId) && l.includes('"message":"run finished"')), (seen) => seen);
    const runLines = lines.filter((l) => l.includes(runId));
    for (const line of runLines) expect(JSON.parse(line).requestId, line).toBe(requestId);
  });
});

describe("where a deployment answers", () => {
  it("AUTH_MODE none answers only a loopback address on a local host, unless ALLOW_ANONYMOUS is true", async () => {
    const closed = { ...env, AUTH_MODE: "none", ALLOW_ANONYMOUS: undefined };
    const from = (url: string, ip?: string) =>
      app.fetch(new Request(`${url}/api/health`, { headers: ip ? { "cf-connecting-ip": ip } : {} }), closed, createExecutionContext());
    for (const [url, ip] of [["http://localhost:8787", "127.0.0.1"], ["http://127.0.0.1:8787", "127.0.0.1"], ["http://localhost:8787", "::1"], ["http://app.localhost:8787", "127.0.0.2"]]) {
      expect((await from(url, ip)).status, `${url} from ${ip}`).toBe(200);
    }
    // A Host of localhost says nothing of where the request came from; a missing address is no one's.
    const refusals = [
      ["http://localhost:8787", "203.0.113.7"],
      ["http://127.0.0.1:8787", "2001:db8::1"],
      ["http://localhost:8787", "128.0.0.1"],
      ["http://localhost:8787", undefined],
      ["https://app.test", "127.0.0.1"], // a name of the attacker's that resolves to this machine
    ] as const;
    for (const [url, ip] of refusals) {
      const refused = await expectError(await from(url, ip), 403, "forbidden");
      expect(refused.message, `${url} from ${ip}`).toContain("ALLOW_ANONYMOUS");
    }
    await expectError(await callApp(closed, "/api/threads"), 403, "forbidden");
    const open = { ...closed, ALLOW_ANONYMOUS: "true" };
    const world = await app.fetch(new Request("https://app.test/api/health", { headers: { "cf-connecting-ip": "203.0.113.7" } }), open, createExecutionContext());
    expect(world.status).toBe(200);
  });

  it("takes ?token= on the socket route only", async () => {
    const { users, tokenEnv } = tokenUsers("url");
    const token = users.url.token;
    await expectError(await callApp(tokenEnv, `/api/threads?token=${token}`), 401, "unauthorized");
    await expectError(await callApp(tokenEnv, `/api/threads?token=${token}`, { headers: { upgrade: "websocket" } }), 401, "unauthorized");
    await expectError(await callApp(tokenEnv, `/api/health?token=${token}`, { headers: { upgrade: "websocket" } }), 401, "unauthorized");
  });
});
