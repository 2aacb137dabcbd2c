// The context plugin keeps the owner's context files within a share (maxShare, 25% by default) of
// the model's window (worker/plugins/context/format.ts, index.ts): past it, the largest files are cut
// to what fits, each with a note saying how much is not shown, the smaller ones stay whole, and
// GET /api/context names the files it cuts for a thread on the default model.
import { afterEach, describe, expect, it } from "vitest";
import { contextBudgetBytes } from "../../worker/plugins/context";
import { cutToFit, fileCap } from "../../worker/plugins/context/format";
import { marker, script, settle, Socket, upstreamRequests } from "../helpers";
import { callApp } from "../http/util";
import { env, newThread, runTurn, type Call } from "./util";

const SEP = "\n\n---\n\n";
const contextSection = (body: any): string => (body.system?.[0]?.text ?? "").split(SEP).find((s: string) => s.startsWith("# Context")) ?? "";
/** The section's files: path → what is shown of it. */
function filesIn(section: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of section.split(/\n\n(?=## )/).slice(1)) {
    const [head, ...rest] = part.split("\n\n");
    out[head.slice(3)] = rest.join("\n\n");
  }
  return out;
}

/** A user of its own (token mode), optionally on a deployment whose settings differ (`vars`). */
function userWith(vars: Record<string, string> = {}) {
  const id = `budget-${crypto.randomUUID().slice(0, 8)}`;
  const token = `tok-${id}`;
  const appEnv = { ...env, AUTH_MODE: "token", AUTH_TOKENS: `${token}:${id}`, ...vars };
  const call: Call = (path, opts = {}) => callApp(appEnv, path, { ...opts, token });
  return { id, call, env: appEnv };
}

async function put(call: Call, path: string, content: string) {
  const res = await call(`/api/context/${path}`, { method: "PUT", body: { content } });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** One run on a new thread of `model`: the upstream request it made. */
async function oneRun(call: Call, model: string) {
  const thread = await newThread(call, { model });
  const m = marker("budget");
  await script(m, [{ kind: "text", text: "ok" }]);
  const res = await call(`/api/threads/${thread.id}/ws`, { headers: { upgrade: "websocket" } });
  res.webSocket!.accept();
  const ws = new Socket(res.webSocket!);
  const { end } = await runTurn(ws, thread.id, `question ${m}`, 1, call);
  expect(end.event).toBe("pipeline:complete");
  ws.close();
  const [req] = await upstreamRequests(m);
  return req.body;
}

// Four files, 32,500 bytes in all: whole within 25% of a 200,000-token window (200,000 bytes), but
// not within 25% of claude-fake-small's 25,000 tokens (25,000 bytes). There the two largest are cut
// to (25,000 - 500 - 2,000) / 2 = 11,250 bytes each.
const FILES: [string, string][] = [
  ["memory.md", `MEMORY-START${"m".repeat(1_988)}`], // 2,000
  ["a.md", `A-START${"a".repeat(14_988)}A-END`], // 15,000
  ["b.md", `B-START${"b".repeat(14_988)}B-END`], // 15,000
  ["notes/small.md", `SMALL${"s".repeat(495)}`], // 500
];
const CAP = 11_250;

afterEach(() => settle());

describe("context files within a share of the model's window", () => {
  it("cuts the largest files to fit 25% of a small window, says so, and keeps the others whole", async () => {
    const user = userWith();
    for (const [path, content] of FILES) await put(user.call, path, content);
    const files = filesIn(contextSection(await oneRun(user.call, "claude-fake-small")));
    const content = Object.fromEntries(FILES);
    expect(Object.keys(files)).toEqual(["memory.md", "a.md", "b.md", "notes/small.md"]);
    // Cut: only the first CAP bytes are sent, the rest is named, not shown.
    for (const path of ["a.md", "b.md"]) {
      expect(files[path]).toBe(`${content[path].slice(0, CAP)}\n\n[… truncated: ${15_000 - CAP} more bytes not shown]`);
      expect(files[path]).not.toContain(path === "a.md" ? "A-END" : "B-END");
    }
    // Whole.
    expect(files["memory.md"]).toBe(content["memory.md"]);
    expect(files["notes/small.md"]).toBe(content["notes/small.md"]);
    // What is sent of the files is within the share.
    const sent = Object.values(files).reduce((n, text) => n + new TextEncoder().encode(text.split("\n\n[… truncated")[0]).length, 0);
    expect(sent).toBeLessThanOrEqual(contextBudgetBytes(25_000, 0.25));
  });

  it("sends the same files whole to a model whose window has room for them", async () => {
    const user = userWith();
    for (const [path, content] of FILES) await put(user.call, path, content);
    const files = filesIn(contextSection(await oneRun(user.call, "claude-sonnet-4-6")));
    expect(files).toEqual(Object.fromEntries(FILES));
  });

  it("lists in GET /api/context the files it cuts for a thread on the default model", async () => {
    // The deployment's default model (claude-sonnet-4-6) has room for these files: nothing is cut.
    const roomy = userWith();
    for (const [path, content] of FILES) await put(roomy.call, path, content);
    const list = await (await roomy.call("/api/context")).json<any>();
    expect(list.files.map((f: any) => f.path).sort()).toEqual(FILES.map(([p]) => p).sort());
    expect(list.cut).toEqual([]);

    // A deployment whose default model is the small one: the two largest are cut, and named.
    const tight = userWith({ DEFAULT_MODEL: "claude-fake-small" });
    for (const [path, content] of FILES) await put(tight.call, path, content);
    expect((await (await tight.call("/api/context")).json<any>()).cut).toEqual(["a.md", "b.md"]);

    // CONTEXT_TOKEN_BUDGET overrides the window the same way (25% of 25,000 tokens).
    const budget = userWith({ CONTEXT_TOKEN_BUDGET: "25000" });
    for (const [path, content] of FILES) await put(budget.call, path, content);
    expect((await (await budget.call("/api/context")).json<any>()).cut).toEqual(["a.md", "b.md"]);

    // Drafts and non-markdown files are never sent, so never cut: a huge draft changes nothing.
    await put(tight.call, "huge.draft.md", "d".repeat(100_000));
    await put(tight.call, "huge.txt", "t".repeat(100_000));
    expect((await (await tight.call("/api/context")).json<any>()).cut).toEqual(["a.md", "b.md"]);
  });

  it("what the page lists is what the run cuts", async () => {
    const user = userWith({ DEFAULT_MODEL: "claude-fake-small" });
    for (const [path, content] of FILES) await put(user.call, path, content);
    const { cut } = await (await user.call("/api/context")).json<any>();
    const files = filesIn(contextSection(await oneRun(user.call, "claude-fake-small")));
    const truncated = Object.entries(files).filter(([, text]) => /\n\n\[… truncated: \d+ more bytes not shown\]$/.test(text)).map(([p]) => p);
    expect(truncated).toEqual(cut);
  });
});

describe("the budget's arithmetic (format.ts)", () => {
  it("is 4 bytes a token of the share of the window", () => {
    expect(contextBudgetBytes(25_000, 0.25)).toBe(25_000);
    expect(contextBudgetBytes(200_000, 0.25)).toBe(200_000);
    expect(contextBudgetBytes(200_000, 0.01)).toBe(8_000);
  });

  it("cuts only the files over the cap, and the cap makes them all fit", () => {
    const files = FILES.map(([path, content]) => ({ path, content }));
    expect(fileCap([500, 2_000, 15_000, 15_000], 25_000)).toBe(CAP);
    expect(fileCap([500, 2_000, 15_000, 15_000], 200_000)).toBeNull();
    expect(cutToFit(files, 50_000, 25_000)).toEqual({ cap: CAP, cut: ["a.md", "b.md"] });
    expect(cutToFit(files, 50_000, 200_000)).toEqual({ cap: 50_000, cut: [] });
    // A per-file maximum below the cap cuts on its own.
    expect(cutToFit(files, 10_000, 200_000)).toEqual({ cap: 10_000, cut: ["a.md", "b.md"] });
    // A budget too small for even the smallest file whole cuts them all, evenly.
    expect(cutToFit(files, 50_000, 1_000)).toEqual({ cap: 250, cut: ["memory.md", "a.md", "b.md", "notes/small.md"] });
  });
});
