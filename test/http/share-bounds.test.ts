// Share links are bounded: per thread (SHARES_PER_THREAD) and per user (SHARES_PER_USER), and their
// readers' copies count against the user's storage quota (their files are pointed to, not copied). A
// share that cannot be made (past a bound, or failing midway) leaves nothing in R2 or in the owner's list,
// and a snapshot too large for a SQLite value is no reason for one to fail: the owner's object keeps none.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Step } from "../fake-upstream/server.mjs";
import { marker, script, settle, userObject } from "../helpers";
import { DOT_PNG } from "../images";
import { callApp, env, expectError, openSocketVia, tokenUsers } from "./util";

afterEach(() => settle());

/** Every object under shares/ in R2, with its size. */
async function sharesInR2(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (let cursor: string | undefined; ; ) {
    const listed = await env.FILES.list({ prefix: "shares/", cursor });
    for (const o of listed.objects) out[o.key] = o.size;
    if (!listed.truncated) return out;
    cursor = listed.cursor;
  }
}

/** A user with a thread whose branch holds an attachment, answered with `steps`. */
async function threadWithFile(steps: Step[] = [{ kind: "text", text: "Here it is." }]) {
  const { users, as, tokenEnv } = tokenUsers("sharer");
  const call = as(users.sharer);
  const thread = (await (await call("/api/threads", { body: { name: "With a file" } })).json<any>()).thread;
  const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.sharer.token}` });
  const { attachment } = await (await call(`/api/threads/${thread.id}/attachments?name=dot.png`, { body: DOT_PNG as any, headers: { "content-type": "image/png" } })).json<any>();
  const m = marker("bounds");
  await script(m, steps);
  expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `look ${m}`, attachments: [attachment.id] } })).status).toBe(202);
  const ended = await ws.waitForRunEnd(1, 20_000);
  expect(ended.filter((f) => f.event === "pipeline:complete" || f.event === "pipeline:error").map((f) => f.event)).toEqual(["pipeline:complete"]);
  ws.close();
  return { users, tokenEnv, thread, attachment };
}

describe("share links' bounds", () => {
  it("are SHARES_PER_THREAD a thread and SHARES_PER_USER a user: past either, 413 too_large and nothing is written", async () => {
    const { users, tokenEnv } = tokenUsers("sharer");
    const bounded = { ...tokenEnv, SHARES_PER_THREAD: "2", SHARES_PER_USER: "3" };
    const call = (path: string, opts: any = {}) => callApp(bounded, path, { ...opts, token: users.sharer.token });
    const threadOf = async (name: string) => (await (await call("/api/threads", { body: { name } })).json<any>()).thread.id;
    const share = (threadId: string) => call(`/api/threads/${threadId}/shares`, { method: "POST" });
    const [a, b] = [await threadOf("A"), await threadOf("B")];
    expect((await share(a)).status).toBe(201);
    const kept = (await (await share(a)).json<any>()).share;
    let before = await sharesInR2();
    await expectError(await share(a), 413, "too_large");
    expect(await sharesInR2()).toEqual(before);
    expect((await share(b)).status).toBe(201);
    before = await sharesInR2();
    await expectError(await share(b), 413, "too_large");
    expect(await sharesInR2()).toEqual(before);
    expect((await (await call("/api/shares")).json<any>()).shares).toHaveLength(3);
    // Revoking one makes room again.
    expect((await call(`/api/shares/${kept.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await share(b)).status).toBe(201);
  });

  it("count their readers' copy against USER_STORAGE_QUOTA_BYTES and copy no file; past the quota, 413 and nothing written; revoking frees the bytes", async () => {
    const { users, tokenEnv, thread, attachment } = await threadWithFile();
    const call = (e: typeof tokenEnv, path: string, opts: any = {}) => callApp(e, path, { ...opts, token: users.sharer.token });
    const first = (await (await call(tokenEnv, `/api/threads/${thread.id}/shares`, { method: "POST" })).json<any>()).share;
    // What the share keeps in R2 is its readers' copy: its file is a pointer of no bytes, and still served.
    const mine = Object.entries(await sharesInR2()).filter(([key]) => key.startsWith(`shares/${first.id}/`));
    const copyBytes = mine.find(([key]) => key.endsWith("/share.json"))![1];
    expect(mine.map(([key]) => key).sort()).toEqual([`shares/${first.id}/${attachment.id}`, `shares/${first.id}/share.json`]);
    expect(mine.reduce((n, [, size]) => n + size, 0)).toBe(copyBytes);
    const file = await callApp(tokenEnv, `/api/shared/${first.id}/files/${attachment.id}`, { headers: { "cf-connecting-ip": "203.0.113.20" } });
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(DOT_PNG);

    // Room for the file and one copy, and half of another.
    const quotaEnv = { ...tokenEnv, USER_STORAGE_QUOTA_BYTES: String(DOT_PNG.byteLength + copyBytes + Math.floor(copyBytes / 2)) };
    const before = await sharesInR2();
    await expectError(await call(quotaEnv, `/api/threads/${thread.id}/shares`, { method: "POST" }), 413, "too_large");
    expect(await sharesInR2()).toEqual(before);
    expect((await (await call(tokenEnv, "/api/shares")).json<any>()).shares.map((s: any) => s.id)).toEqual([first.id]);
    // The copy's bytes count for attachments too.
    const tooMuch = "x".repeat(Math.floor(copyBytes / 2) + 10);
    await expectError(await call(quotaEnv, `/api/threads/${thread.id}/attachments?name=a.txt`, { body: tooMuch, headers: { "content-type": "text/plain" } }), 413, "too_large");

    expect((await call(tokenEnv, `/api/shares/${first.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(quotaEnv, `/api/threads/${thread.id}/shares`, { method: "POST" })).status).toBe(201);
  });

  it("a share whose copy cannot be written is not made: no copy, pointer or listing of it is left", async () => {
    const { users, tokenEnv, thread } = await threadWithFile();
    // R2 refuses the readers' copy (its files' pointers were written before it).
    const FILES = new Proxy(env.FILES, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (name !== "put") return typeof value === "function" ? value.bind(target) : value;
        return (key: string, ...rest: unknown[]) => (key.endsWith("/share.json") ? Promise.reject(new Error("R2 is away")) : (value as Function).call(target, key, ...rest));
      },
    });
    const before = await sharesInR2();
    const res = await callApp({ ...tokenEnv, FILES }, `/api/threads/${thread.id}/shares`, { method: "POST", token: users.sharer.token });
    await expectError(res, 500, "internal");
    expect(await sharesInR2()).toEqual(before);
    expect((await (await callApp(tokenEnv, "/api/shares", { token: users.sharer.token })).json<any>()).shares).toEqual([]);
  });

  it("a snapshot past a SQLite value's 2 MB is made: the owner's object keeps no snapshot, its readers' copy holds it", async () => {
    // A document of 1.2 MB: its tool call and the artifact each hold it. Its input streams in 200
    // pieces (by default the fake sends 12 characters a delta: 100,000 deltas, near the tests' 5 s run timeout).
    const content = "A long document. ".repeat(75_000);
    const { users, tokenEnv, thread } = await threadWithFile([
      { kind: "tool_use", tools: [{ name: "artifacts__create", input: { title: "Long", type: "markdown", content }, id: "toolu_long", chunks: 200 }] },
      { kind: "text", text: "Written." },
    ]);
    const made = await callApp(tokenEnv, `/api/threads/${thread.id}/shares`, { method: "POST", token: users.sharer.token });
    expect(made.status).toBe(201);
    const { share } = await made.json<any>();
    expect((await env.FILES.head(`shares/${share.id}/share.json`))!.size).toBeGreaterThan(2 * 1024 * 1024);
    const longest = await runInDurableObject(userObject(users.sharer.id), (_user, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT max(max(length(snapshot)), max(length(files))) AS n FROM shares").one().n,
    );
    expect(longest).toBeLessThan(1024);
  }, 30_000);
});
