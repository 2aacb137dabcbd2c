// GET /api/health and PROTOCOL.md's error contract: shapes, statuses, and that nothing internal
// (stack traces, the API key) ever leaves in a body.
import { createExecutionContext, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../worker/env";
import { app } from "../../worker/http/app";
import { api, createThread, Socket } from "../helpers";
import { callApp, env, expectError, expectInvalid, expectNoLeak } from "./util";

const MAX_BODY = 256 * 1024;

/** A JSON body `{"content":"aaa…"}` of exactly `bytes` bytes. */
function contentBodyOfBytes(bytes: number): string {
  const shell = JSON.stringify({ content: "" }).length;
  return JSON.stringify({ content: "a".repeat(bytes - shell) });
}

describe("GET /api/health", () => {
  it("answers ok, the version and the model provider and default", async () => {
    const res = await api("/api/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual({
      ok: true,
      version: VERSION,
      model: { provider: "anthropic", default: env.DEFAULT_MODEL },
      auth: { mode: "none", userId: "local", admin: true },
    });
    expect(typeof (body as any).version).toBe("string");
  });

  it("says the provider is offline when no API key is configured", async () => {
    const res = await callApp({ ...env, ANTHROPIC_API_KEY: undefined }, "/api/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ok: true,
      version: VERSION,
      model: { provider: "offline", default: env.DEFAULT_MODEL },
      auth: { mode: "none", userId: "local", admin: true },
    });
  });

  it("never includes the API key", async () => {
    expectNoLeak(await (await api("/api/health")).text());
  });
});

describe("unknown /api routes", () => {
  it.each([
    ["GET", "/api/nope"],
    ["GET", "/api/threads/x/y/z"],
    ["POST", "/api/does-not-exist"],
    ["PUT", "/api/threads"],
    ["DELETE", "/api/health"],
    ["GET", "/api"],
  ])("%s %s → 404 not_found in the error shape", async (method, path) => {
    const res = await api(path, { method, ...(method === "POST" ? { body: {} } : {}) });
    const error = await expectError(res, 404, "not_found");
    expect(error.issues).toBeUndefined();
  });
});

describe("malformed JSON", () => {
  it.each([
    ["POST /api/threads", "POST", "/api/threads", '{"name": '],
    ["POST /api/threads (not JSON at all)", "POST", "/api/threads", "name=hello"],
    ["POST /api/threads (trailing comma)", "POST", "/api/threads", '{"name":"x",}'],
    ["POST /api/chat", "POST", "/api/chat", "{threadId: 1}"],
    ["POST /api/prewarm", "POST", "/api/prewarm", "{"],
  ])("%s → 400 invalid_request, never 500", async (_label, method, path, raw) => {
    const res = await api(path, { method, body: raw });
    await expectError(res, 400, "invalid_request");
  });

  it("is a 400 on a thread's routes too (PATCH, POST messages)", async () => {
    const thread = await createThread();
    await expectError(await api(`/api/threads/${thread.id}`, { method: "PATCH", body: "{oops" }), 400, "invalid_request");
    await expectError(await api(`/api/threads/${thread.id}/messages`, { body: '{"content":"x"' }), 400, "invalid_request");
    // And nothing was changed or stored.
    const after = await (await api(`/api/threads/${thread.id}`)).json<any>();
    expect(after.thread).toEqual(thread);
    const msgs = await (await api(`/api/threads/${thread.id}/messages`)).json<any>();
    expect(msgs.messages).toEqual([]);
  });
});

describe("validation failures (zod)", () => {
  it("answers 400 with error.issues naming the field", async () => {
    const error = await expectInvalid(await api("/api/threads", { body: { kind: "bogus" } }), "kind");
    expect(error.issues!.find((i) => i.path === "kind")!.message.length).toBeGreaterThan(0);
  });

  it("names every bad field, not only the first", async () => {
    const error = await expectInvalid(await api("/api/threads", { body: { kind: "bogus", name: 42 } }), "kind");
    expect(error.issues!.map((i) => i.path)).toEqual(expect.arrayContaining(["kind", "name"]));
  });

  it("names the field of a message body", async () => {
    const thread = await createThread();
    await expectInvalid(await api(`/api/threads/${thread.id}/messages`, { body: { content: 5 } }), "content");
    await expectInvalid(await api("/api/chat", { body: { content: "hi" } }), "threadId");
  });

  it("names a bad query parameter", async () => {
    await expectInvalid(await api("/api/threads?limit=0"), "limit");
    await expectInvalid(await api("/api/threads?status=sleeping"), "status");
  });

  it("treats a JSON body that is not an object as invalid", async () => {
    for (const raw of ["null", "[]", '"text"', "42"]) {
      await expectError(await api("/api/threads", { body: raw }), 400, "invalid_request");
    }
  });
});

describe("content type", () => {
  it.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp"])(
    "a body sent as %s → 415 unsupported_media_type",
    async (type) => {
      const res = await api("/api/threads", { body: JSON.stringify({ name: "typed" }), headers: { "content-type": type } });
      await expectError(res, 415, "unsupported_media_type");
    },
  );

  it("a body without any content-type → 415", async () => {
    // A string body gets text/plain from fetch; a byte body gets no content-type at all.
    const res = await SELF.fetch("https://app.test/api/threads", {
      method: "POST",
      body: new TextEncoder().encode(JSON.stringify({ name: "bytes" })),
    });
    await expectError(res, 415, "unsupported_media_type");
  });

  it("415 on a thread's routes too, and nothing is stored", async () => {
    const thread = await createThread();
    const res = await api(`/api/threads/${thread.id}/messages`, {
      body: JSON.stringify({ content: "plain" }),
      headers: { "content-type": "text/plain" },
    });
    await expectError(res, 415, "unsupported_media_type");
    expect((await (await api(`/api/threads/${thread.id}/messages`)).json<any>()).messages).toEqual([]);
  });

  it("accepts application/json with a charset and +json types", async () => {
    for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json"]) {
      const res = await api("/api/threads", { body: JSON.stringify({ name: type }), headers: { "content-type": type } });
      expect(res.status, type).toBe(201);
      expect((await res.json<any>()).thread.name).toBe(type);
    }
  });

  it("needs no content-type when there is no body", async () => {
    const res = await api("/api/threads", { method: "POST" });
    expect(res.status).toBe(201);
    expect((await res.json<any>()).thread.name).toBe("New thread");
  });
});

describe("body size", () => {
  it("a body over 256 KiB → 413 too_large", async () => {
    const res = await api("/api/threads", { body: JSON.stringify({ name: "x".repeat(MAX_BODY + 10) }) });
    await expectError(res, 413, "too_large");
  });

  it("one byte over the limit on POST messages → 413, and nothing is stored", async () => {
    const thread = await createThread();
    const raw = contentBodyOfBytes(MAX_BODY + 1);
    expect(raw.length).toBe(MAX_BODY + 1);
    await expectError(await api(`/api/threads/${thread.id}/messages`, { body: raw }), 413, "too_large");
    expect((await (await api(`/api/threads/${thread.id}/messages`)).json<any>()).messages).toEqual([]);
  });

  it("exactly 256 KiB is not too large (the content rule answers instead: 400)", async () => {
    const thread = await createThread();
    const raw = contentBodyOfBytes(MAX_BODY);
    expect(raw.length).toBe(MAX_BODY);
    await expectInvalid(await api(`/api/threads/${thread.id}/messages`, { body: raw }), "content");
  });

  it("counts bytes, not characters", async () => {
    // 100,000 three-byte characters: within the content limit, but about 293 KiB of body.
    const thread = await createThread();
    const res = await api(`/api/threads/${thread.id}/messages`, { body: { content: "€".repeat(100_000) } });
    await expectError(res, 413, "too_large");
  });

  it("a streamed body (no content-length) over the limit → 413", async () => {
    const chunk = new TextEncoder().encode("a".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name":"'));
        if (sent >= 5) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        controller.enqueue(chunk);
        sent++;
      },
    });
    // Straight to the app (no service hop): the Worker stops reading at the limit, and over a
    // network hop the unread rest of the stream would only surface as a "connection lost" log.
    const res = await app.fetch(
      new Request("https://app.test/api/threads", { method: "POST", headers: { "content-type": "application/json" }, body: stream }),
      env,
      createExecutionContext(),
    );
    await expectError(res, 413, "too_large");
    await stream.cancel().catch(() => {});
  });

  it("a streamed body under the limit is read in full", async () => {
    const parts = ['{"name":', '"streamed in', ' parts"}'];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const res = await SELF.fetch("https://app.test/api/threads", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
    });
    expect(res.status).toBe(201);
    expect((await res.json<any>()).thread.name).toBe("streamed in parts");
  });
});

describe("500s", () => {
  it("an unknown AUTH_MODE → 500 internal, in the error shape", async () => {
    const res = await callApp({ ...env, AUTH_MODE: "bogus" }, "/api/threads");
    await expectError(res, 500, "internal");
  });

  it("an unexpected failure → 500 internal with no stack and no secret", async () => {
    // A deployment whose D1 binding is missing: the route (the usage roll-up, D1's) throws a TypeError deep inside.
    const res = await callApp({ ...env, DB: undefined as unknown as D1Database }, "/api/admin/usage");
    const error = await expectError(res, 500, "internal");
    expect(error.message).not.toMatch(/undefined|TypeError|prepare|DB/);
  });
});

describe("no secrets in any answer", () => {
  it("the API key's value appears in no response of a whole session", async () => {
    expect(env.ANTHROPIC_API_KEY).toBe("test-key");
    const thread = await createThread({ name: "leak check" });
    const ws = await Socket.open(thread.id);
    const posted = await api(`/api/threads/${thread.id}/messages`, { body: { content: "hello, who am I talking to?" } });
    expect(posted.status).toBe(202);
    await ws.waitForRunEnd();
    ws.close();
    const responses = [
      posted,
      await api("/api/health"),
      await api("/api/threads"),
      await api(`/api/threads/${thread.id}`),
      await api(`/api/threads/${thread.id}/messages`),
      await api("/api/nope"),
      await api("/api/threads", { body: "{" }),
      await api("/api/threads", { body: { kind: 1 } }),
      await api("/api/threads/thr_missing"),
      await api("/api/threads", { body: "x".repeat(MAX_BODY + 1) }),
      await callApp({ ...env, DB: undefined as unknown as D1Database }, "/api/admin/usage"),
      await callApp({ ...env, AUTH_MODE: "bogus" }, "/api/threads"),
    ];
    expect(responses.map((r) => r.status)).toEqual([202, 200, 200, 200, 200, 404, 400, 400, 404, 413, 500, 500]);
    for (const res of responses) {
      const text = await res.text();
      expect(text, `${res.status} ${text.slice(0, 200)}`).not.toContain(env.ANTHROPIC_API_KEY!);
      if (res.status >= 400) expectNoLeak(text);
    }
    // Nor in any socket frame of the run.
    expect(JSON.stringify(ws.frames)).not.toContain(env.ANTHROPIC_API_KEY!);
  });
});
