// API keys (PROTOCOL.md, "API keys"): made, listed and revoked by their user; the secret shown once and
// found nowhere after (no answer, no log line, no D1 row, no object's row); a key acts as its user, with
// their limits, spend cap and isolation; a revoked key is refused at once.
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_API_KEYS } from "../../protocol";
import type { ThreadRoom } from "../../worker/thread/room";
import type { UserRoom } from "../../worker/user/room";
import { marker, script, settle, threadObject, userObject } from "../helpers";
import { callApp, createThreadVia, tokenUsers } from "../http/util";

const { users, as, tokenEnv } = tokenUsers("keyholder", "other");
const [holder, other] = [as(users.keyholder), as(users.other)];
/** A program's request: the key, never a token. */
const program = (secret: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  callApp(tokenEnv, path, { body, headers: { authorization: `Bearer ${secret}`, ...headers } });

async function makeKey(call = holder, name = "a script") {
  const res = await call("/api/keys", { body: { name } });
  expect(res.status, await res.clone().text()).toBe(201);
  return { res, ...(await res.json<{ key: any; secret: string }>()) };
}

const completion = (content: string, model = env.DEFAULT_MODEL ?? "claude-sonnet-4-6") => ({ model, messages: [{ role: "user", content }] });

describe("/api/keys", () => {
  it("makes a key whose secret is shown once, lists it by its prefix, and notes its use", async () => {
    const { res, key, secret } = await makeKey(holder, "  my laptop ");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(secret).toMatch(/^eo_[0-9A-Za-z]{32}_[0-9a-f]{64}$/);
    expect(key).toEqual({ id: expect.stringMatching(/^key_/), name: "my laptop", prefix: secret.slice(0, 10), createdAt: expect.any(Number), lastUsedAt: null });
    const listed = await (await holder("/api/keys")).text();
    expect(listed).not.toContain(secret);
    expect(JSON.parse(listed).keys).toContainEqual(key);
    expect((await program(secret, "/v1/models")).status).toBe(200);
    const used = (await (await holder("/api/keys")).json<any>()).keys.find((k: any) => k.id === key.id);
    expect(used.lastUsedAt).toBeGreaterThanOrEqual(key.createdAt);
  });

  it("revokes a key: refused at once, on /v1 and /mcp; revoking again is 404", async () => {
    const { key, secret } = await makeKey();
    expect((await program(secret, "/v1/models")).status).toBe(200);
    expect((await holder(`/api/keys/${key.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await program(secret, "/v1/models")).status).toBe(401);
    expect((await program(secret, "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(401);
    expect((await holder(`/api/keys/${key.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await (await holder("/api/keys")).json<any>()).keys.map((k: any) => k.id)).not.toContain(key.id);
  });

  it("refuses a name that is empty or too long, and a key past the user's maximum", async () => {
    expect((await holder("/api/keys", { body: { name: " " } })).status).toBe(400);
    expect((await holder("/api/keys", { body: { name: "x".repeat(65) } })).status).toBe(400);
    const { users: u, as: asUser } = tokenUsers("collector");
    const collector = asUser(u.collector);
    for (let i = 0; i < MAX_API_KEYS; i++) await makeKey(collector, `key ${i}`);
    const past = await collector("/api/keys", { body: { name: "one too many" } });
    expect(past.status).toBe(429);
    expect((await past.json<any>()).error.code).toBe("rate_limited");
  });

  it("is no credential on /api routes, and a token is none on /v1", async () => {
    const { secret } = await makeKey();
    expect((await callApp(tokenEnv, "/api/threads", { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
    expect((await callApp(tokenEnv, "/v1/models", { token: users.keyholder.token })).status).toBe(401);
    // Without any credential, outside AUTH_MODE none: 401.
    expect((await callApp(tokenEnv, "/v1/chat/completions", { body: completion("hi") })).status).toBe(401);
  });
});

describe("a key acts as its user", () => {
  it("reaches only its user's threads: another user's thread in X-Thread-Id is a 404, and its MCP tools see nothing of theirs", async () => {
    const theirs = await createThreadVia(other, { name: "other's private thread" });
    const { secret } = await makeKey();
    const res = await program(secret, "/v1/chat/completions", completion("hi"), { "X-Thread-Id": theirs.id });
    expect(res.status).toBe(404);
    expect((await res.json<any>()).error).toMatchObject({ type: "invalid_request_error" });
    const anthropic = await program(secret, "/v1/messages", { ...completion("hi"), max_tokens: 10 }, { "X-Thread-Id": theirs.id });
    expect(anthropic.status).toBe(404);
    expect((await anthropic.json<any>()).error.type).toBe("not_found_error");
    const read = await program(secret, "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read_thread", arguments: { threadId: theirs.id } } }, { accept: "application/json, text/event-stream" });
    expect((await read.json<any>()).result).toMatchObject({ isError: true });
    const listed = await program(secret, "/mcp", { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_threads", arguments: {} } }, { accept: "application/json, text/event-stream" });
    expect(JSON.stringify(await listed.json())).not.toContain("other's private thread");
    // Nor can a conversation identical to theirs continue their thread: each user's threads are their own object's.
  });

  it("is held to the user's post limit and spend cap", async () => {
    const { users: u, as: asUser, tokenEnv: env2 } = tokenUsers("limited");
    const call = asUser(u.limited);
    const { secret } = await makeKey(call);
    const send = (content: string, threadId?: string) => callApp(env2, "/v1/chat/completions", { body: completion(content), headers: { authorization: `Bearer ${secret}`, ...(threadId ? { "X-Thread-Id": threadId } : {}) } });
    const m = marker("limited");
    await script(m, [{ kind: "text", text: "ok" }, { kind: "text", text: "ok" }, { kind: "text", text: "ok" }, { kind: "text", text: "ok" }]);
    const first = await send(`${m} one`);
    const threadId = first.headers.get("x-thread-id")!;
    await runInDurableObject(threadObject(threadId), (r: ThreadRoom) => void (r.faults.limits.posts = env.TIGHT_LIMITER));
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(`${m} again ${i}`, threadId)).status);
    expect(statuses).toContain(429);
    const refused = await send(`${m} refused`, threadId);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect((await refused.json<any>()).error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    await runInDurableObject(threadObject(threadId), (r: ThreadRoom) => void (r.faults.limits.posts = undefined));
    await settle();

    // New threads: each new conversation is one, under the per-user limit on them (3 a minute here).
    const { users: n, as: asNew, tokenEnv: env3 } = tokenUsers("starter");
    const starter = (await makeKey(asNew(n.starter))).secret;
    const tight = { ...env3, THREAD_LIMITER: env.TIGHT_LIMITER };
    const fresh = marker("fresh");
    await script(fresh, [{ kind: "text", text: "a" }, { kind: "text", text: "b" }, { kind: "text", text: "c" }]);
    const starts = [];
    for (let i = 0; i < 4; i++) starts.push((await callApp(tight, "/v1/chat/completions", { body: completion(`${fresh} conversation ${i}`), headers: { authorization: `Bearer ${starter}` } })).status);
    expect(starts).toEqual([200, 200, 200, 429]);
    await settle();

    // The spend cap ($50 in the tests): a run that costs $60, then the next request is refused.
    const costly = marker("costly-api");
    await script(costly, [{ kind: "text", text: "An expensive answer.", usage: { output_tokens: 4_000_000 } }]);
    expect((await send(`${costly} spend`)).status).toBe(200);
    await settle();
    const listed = async () => (await (await call("/api/threads")).json<any>()).threads.length;
    const before = await listed();
    const capped = await send(`${costly} more`);
    expect(capped.status).toBe(429);
    expect((await capped.json<any>()).error.message).toContain("$50.00");
    // Refused before its thread was made: no thread is left behind.
    expect(await listed()).toBe(before);
    await settle();
  });
});

describe("the secret, after its creation", () => {
  const lines: string[] = [];
  beforeEach(() => {
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
  });
  afterEach(() => vi.restoreAllMocks());

  it("is in no answer, no log line, no D1 row and no object's row", async () => {
    const { secret } = await makeKey(holder, "the watched key");
    const m = marker("secret");
    await script(m, [{ kind: "text", text: "first" }, { kind: "text", text: "second" }]);
    const answers: string[] = [];
    const keep = async (res: Response) => void answers.push(JSON.stringify([...res.headers]) + (await res.text()));
    const first = await program(secret, "/v1/chat/completions", completion(`${m} hello`));
    const threadId = first.headers.get("x-thread-id")!;
    await keep(first);
    await keep(await program(secret, "/v1/chat/completions", { ...completion(`${m} again`), stream: true }, { "X-Thread-Id": threadId }));
    await keep(await program(secret, "/v1/models"));
    await keep(await program(secret, "/v1/models", undefined, { authorization: "", "x-api-key": "eo_wrong" }));
    await keep(await program(secret, "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { accept: "application/json, text/event-stream" }));
    for (const path of ["/api/keys", "/api/threads", `/api/threads/${threadId}/messages`, `/api/threads/${threadId}/export?format=json`, "/api/metrics"]) await keep(await holder(path));
    await settle();

    for (const answer of answers) expect(answer).not.toContain(secret);
    expect(lines.join("\n")).not.toContain(secret);
    expect(lines.join("\n")).not.toContain(secret.slice(10, 42));
    for (const { name } of (await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{ name: string }>()).results) {
      const rows = await env.DB.prepare(`SELECT * FROM "${name}"`).all();
      expect(JSON.stringify(rows.results), `D1 ${name}`).not.toContain(secret.slice(10, 42));
    }
    const dump = (sql: SqlStorage) =>
      sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' AND name NOT LIKE '_cf_%'")
        .toArray()
        .map(({ name }) => JSON.stringify(sql.exec(`SELECT * FROM "${name}"`).toArray()))
        .join("\n");
    const userRows = await runInDurableObject(userObject(users.keyholder.id), (_: UserRoom, state) => dump(state.storage.sql));
    expect(userRows).toContain("the watched key");
    expect(userRows).not.toContain(secret.slice(10, 42));
    const threadRows = await runInDurableObject(threadObject(threadId), (_: ThreadRoom, state) => dump(state.storage.sql));
    expect(threadRows).toContain("hello");
    expect(threadRows).not.toContain(secret.slice(10, 42));
  });
});
