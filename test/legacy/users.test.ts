// A deployment with data from before the objects (LEGACY_IMPORT): a user's object imports their rows
// from D1 on first touch, once, and is their primary store after.
import { describe, expect, it } from "vitest";
import { callApp, env, tokenUsers } from "../http/util";
import { DOT_PNG } from "../images";
import { insertThread } from "./d1-rows";

describe("the import from D1", () => {
  it("a user from before the object existed finds their threads, search, usage, files, tasks and quota", async () => {
    const { users, as } = tokenUsers("veteran");
    const call = as(users.veteran);
    const owner = users.veteran.id;
    const now = Date.now();
    const threadId = await insertThread({ ownerId: owner, name: "from the old days", lastActivity: now - 1_000 });
    const word = `heirloom${crypto.randomUUID().slice(0, 6)}`;
    await env.DB.batch([
      env.DB.prepare("INSERT INTO messages (id, thread_id, role, kind, source, content, created_at) VALUES (?, ?, 'user', 'text', 'web', ?, ?)").bind(
        `msg_old_${owner}`,
        threadId,
        `an ${word} of a message`,
        now - 2_000,
      ),
      env.DB.prepare("INSERT INTO agent_runs (id, thread_id, owner_id, model, cost_usd, input_tokens, status, started_at) VALUES (?, ?, ?, 'claude-sonnet-4-6', 0.25, 1234, 'completed', ?)").bind(
        `run_old_${owner}`,
        threadId,
        owner,
        now - 1_500,
      ),
      env.DB.prepare("INSERT INTO context_files (owner_id, path, content, bytes, updated_at) VALUES (?, 'old.md', 'kept', 4, ?)").bind(owner, now),
      env.DB.prepare(
        "INSERT INTO tasks (id, owner_id, thread_id, parent_thread_id, status, prompt, max_iterations, created_at, updated_at) VALUES (?, ?, ?, NULL, 'completed', 'old task', 1, ?, ?)",
      ).bind(`task_old_${owner}`, owner, threadId, now, now),
      env.DB.prepare("INSERT INTO attachments (id, owner_id, thread_id, name, media_type, bytes, r2_key, created_at) VALUES (?, ?, ?, 'big', 'image/png', ?, 'k', ?)").bind(
        `att_old_${owner}`,
        owner,
        threadId,
        DOT_PNG.byteLength * 2,
        now,
      ),
    ]);

    const list = await (await call("/api/threads")).json<any>();
    expect(list.threads.map((t: any) => [t.id, t.name])).toEqual([[threadId, "from the old days"]]);
    const search = await (await call(`/api/search?q=${word}`)).json<any>();
    expect(search.results.map((r: any) => [r.messageId, r.threadName])).toEqual([[`msg_old_${owner}`, "from the old days"]]);
    const metrics = await (await call("/api/metrics")).json<any>();
    expect(metrics.totals).toMatchObject({ runs: 1, inputTokens: 1234, costUsd: 0.25 });
    expect(metrics.limits.spentTodayUsd).toBe(0.25);
    expect((await (await call("/api/context/old.md")).json<any>()).file.content).toBe("kept");
    expect((await (await call("/api/tasks")).json<any>()).tasks.map((t: any) => t.prompt)).toEqual(["old task"]);
    // The imported bytes count against the quota: with room for 3 files, one more fits, not two.
    const quotaEnv = { ...env, AUTH_MODE: "token", AUTH_TOKENS: `${users.veteran.token}:${owner}`, USER_STORAGE_QUOTA_BYTES: String(DOT_PNG.byteLength * 3) };
    const thread = (await (await callApp(quotaEnv, "/api/threads", { body: {}, token: users.veteran.token })).json<any>()).thread;
    const upload = () => callApp(quotaEnv, `/api/threads/${thread.id}/attachments`, { token: users.veteran.token, body: DOT_PNG as any, headers: { "content-type": "image/png" } });
    expect((await upload()).status).toBe(201);
    expect((await upload()).status).toBe(413);
  });

  it("happens once: the object is the primary store after it, and a row D1 gets later is not read again", async () => {
    const { users, as } = tokenUsers("once");
    const call = as(users.once);
    expect((await (await call("/api/threads")).json<any>()).threads).toEqual([]);
    await insertThread({ ownerId: users.once.id, name: "written to D1 afterwards" });
    expect((await (await call("/api/threads")).json<any>()).threads).toEqual([]);
  });
});
