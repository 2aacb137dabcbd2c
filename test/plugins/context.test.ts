// The context plugin and its files: /api/context (round trip, validation, owners), what reaches
// the model's `system` (order, drafts, non-markdown, truncation, caching, edits), and the history
// injected into the prompt when the object holds no live conversation.
import { afterEach, describe, expect, it } from "vitest";
import { api, marker, script, upstreamRequests } from "../helpers";
import { insertThread } from "../http/util";
import { env, freshUser, insertMessage, lastUserText, newThread, runTurn, type Call } from "./util";

const SEP = "\n\n---\n\n";

async function put(call: Call, path: string, content: string) {
  const res = await call(`/api/context/${path}`, { method: "PUT", body: { content } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json<{ file: any }>()).file;
}

/** The stable system block of an upstream request (the plugins' part): its text, and the block itself. */
function systemOf(body: any): { text: string; block: any } {
  const block = Array.isArray(body.system) ? body.system[0] : undefined;
  return { text: block?.text ?? "", block };
}

/** The context section of the system prompt (after the base prompt, before the delegation guide). */
const contextSection = (body: any) => systemOf(body).text.split(SEP).find((s) => s.startsWith("# Context")) ?? "";

async function setContextSettings(settings: Record<string, unknown>) {
  const res = await api("/api/plugins/context", { method: "PATCH", body: { settings } });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** One run for a fresh user's fresh thread, answering the upstream request it made. */
async function oneRun(user: ReturnType<typeof freshUser>, threadId?: string) {
  const id = threadId ?? (await newThread(user.call)).id;
  const m = marker("ctx");
  await script(m, [{ kind: "text", text: "ok" }]);
  const ws = await user.socket(id);
  const { end } = await runTurn(ws, id, `question ${m}`, 1, user.call);
  expect(end.event).toBe("pipeline:complete");
  ws.close();
  const [req] = await upstreamRequests(m);
  return req.body;
}

describe("/api/context", () => {
  it("PUT, GET, list, update and DELETE a file, counting bytes in UTF-8", async () => {
    const { call } = freshUser("files");
    const before = Date.now();
    const created = await put(call, "notes/today.md", "héllo €");
    expect(created).toEqual({ path: "notes/today.md", content: "héllo €", bytes: 10, updatedAt: expect.any(Number) });
    expect(created.updatedAt).toBeGreaterThanOrEqual(before);

    const got = await call("/api/context/notes/today.md");
    expect(got.status).toBe(200);
    expect((await got.json<any>()).file).toEqual(created);

    await put(call, "memory.md", "remember");
    const list = await (await call("/api/context")).json<any>();
    expect(list.files).toEqual([
      { path: "memory.md", bytes: 8, updatedAt: expect.any(Number) },
      { path: "notes/today.md", bytes: 10, updatedAt: created.updatedAt },
    ]);

    const updated = await put(call, "notes/today.md", "changed");
    expect(updated).toMatchObject({ path: "notes/today.md", content: "changed", bytes: 7 });
    expect(updated.updatedAt).toBeGreaterThanOrEqual(created.updatedAt);
    expect((await (await call("/api/context/notes/today.md")).json<any>()).file.content).toBe("changed");

    const del = await call("/api/context/notes/today.md", { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    expect((await call("/api/context/notes/today.md")).status).toBe(404);
    expect((await call("/api/context/notes/today.md", { method: "DELETE" })).status).toBe(404);
    expect((await (await call("/api/context")).json<any>()).files.map((f: any) => f.path)).toEqual(["memory.md"]);
  });

  it("keeps each user's files to that user", async () => {
    const alice = freshUser("alice");
    const bob = freshUser("bob");
    await put(alice.call, "secret.md", "alice only");
    expect((await bob.call("/api/context/secret.md")).status).toBe(404);
    expect((await (await bob.call("/api/context")).json<any>()).files).toEqual([]);
    expect((await bob.call("/api/context/secret.md", { method: "DELETE" })).status).toBe(404);
    expect((await (await alice.call("/api/context/secret.md")).json<any>()).file.content).toBe("alice only");
  });

  it("refuses paths that are not plain relative segments, on every method", async () => {
    const { call } = freshUser("paths");
    const bad = [
      "..%2Fx.md", // ../x.md
      ".%2Fx.md", // ./x.md
      "a/..%2Fb.md",
      "a//b.md",
      "a/b.md/",
      "a%5Cb.md", // a\b.md
      "bad%3Aname.md",
      "what%3F.md",
      "x".repeat(201),
    ];
    for (const path of bad) {
      for (const method of ["PUT", "GET", "DELETE"]) {
        const res = await call(`/api/context/${path}`, { method, body: method === "PUT" ? { content: "x" } : undefined });
        expect(res.status, `${method} ${path}`).toBe(400);
        const body = await res.json<any>();
        expect(body.error.code).toBe("invalid_request");
        expect(body.error.issues).toEqual([{ path: "path", message: "invalid path" }]);
      }
    }
    expect((await (await call("/api/context")).json<any>()).files).toEqual([]);
    // The characters that are allowed.
    await put(call, "My Notes/v1.2 @home_x-y.md", "ok");
  });

  // Product bug: worker/http/context-files.ts:14 calls decodeURIComponent unguarded; the URIError
  // becomes a 500 "internal". Fix: catch it and answer the same 400 "invalid path". Remove .fails then.
  it("answers a malformed percent escape in the path with 400, not 500", async () => {
    const { call } = freshUser("pct");
    for (const method of ["PUT", "GET", "DELETE"]) {
      const res = await call("/api/context/%E0%A4%A.md", { method, body: method === "PUT" ? { content: "x" } : undefined });
      expect(res.status, method).toBe(400);
      expect((await res.json<any>()).error).toMatchObject({ code: "invalid_request", issues: [{ path: "path", message: "invalid path" }] });
    }
  });

  it("validates the PUT body", async () => {
    const { call } = freshUser("body");
    for (const body of [{}, { content: 5 }, { content: "x", extra: true }, { content: "x".repeat(200_001) }]) {
      const res = await call("/api/context/a.md", { method: "PUT", body });
      expect(res.status).toBe(400);
      expect((await res.json<any>()).error.code).toBe("invalid_request");
    }
    expect((await call("/api/context/a.md")).status).toBe(404);
  });
});

describe("context in the system prompt", () => {
  afterEach(async () => {
    await setContextSettings({ historyLimit: 50, maxFileBytes: 50_000 });
  });

  it("has # Context, then the priority files in their order, then the others by path; drafts and non-markdown left out; cached", async () => {
    const user = freshUser("order");
    // Written out of order on purpose.
    for (const [path, content] of [
      ["b.md", "Bee."],
      ["inbox.md", "Inbox."],
      ["ideas.draft.md", "DRAFT-SHOULD-NOT-APPEAR"],
      ["a/notes.md", "Nested notes."],
      ["thread-summaries.md", "Summaries."],
      ["data.json", '{"json":"JSON-SHOULD-NOT-APPEAR"}'],
      ["world-state.md", "World."],
      ["readme.txt", "TXT-SHOULD-NOT-APPEAR"],
      ["memory.md", "Memory."],
      ["notes/old.draft.md", "NESTED-DRAFT-SHOULD-NOT-APPEAR"],
    ]) {
      await put(user.call, path, content);
    }
    const body = await oneRun(user);
    const { text, block } = systemOf(body);
    expect(block).toEqual({ type: "text", text, cache_control: { type: "ephemeral" } });
    // The second block is the thread's own (its name and instructions), after the context.
    expect(body.system).toHaveLength(2);
    expect(body.system[1].text).toMatch(/^This thread is named /);
    expect(contextSection(body)).toBe(
      [
        "# Context",
        "## memory.md\n\nMemory.",
        "## world-state.md\n\nWorld.",
        "## thread-summaries.md\n\nSummaries.",
        "## inbox.md\n\nInbox.",
        "## a/notes.md\n\nNested notes.",
        "## b.md\n\nBee.",
      ].join("\n\n"),
    );
    expect(text).not.toContain("SHOULD-NOT-APPEAR");
    expect(text).not.toContain("ideas.draft.md");
    expect(text).not.toContain("data.json");
    // Context is stable: it goes to system, not into the turn's text.
    expect(lastUserText(body)).not.toContain("# Context");
  });

  it("truncates a file over 50 KB with a visible marker, and leaves smaller ones whole", async () => {
    const user = freshUser("trunc");
    const big = `START${"a".repeat(59_990)}END`; // 59,998 bytes
    const exact = `${"e".repeat(49_999)}Z`; // 50,000 bytes: not cut
    const euros = "€".repeat(20_000); // 60,000 bytes, 3 per character
    await put(user.call, "big.md", big);
    await put(user.call, "exact.md", exact);
    await put(user.call, "euros.md", euros);
    await put(user.call, "small.md", "small and whole");
    const section = contextSection(await oneRun(user));
    const parts = section.split(/\n\n(?=## )/);
    expect(parts.map((p) => p.split("\n")[0])).toEqual(["# Context", "## big.md", "## euros.md", "## exact.md", "## small.md"]);
    expect(parts[1]).toBe(`## big.md\n\n${big.slice(0, 50_000)}\n\n[… truncated: 9998 more bytes not shown]`);
    expect(parts[1]).not.toContain("END");
    expect(parts[3]).toBe(`## exact.md\n\n${exact}`);
    expect(parts[4]).toBe("## small.md\n\nsmall and whole");
    // Cut on a character boundary: whole euros only, no replacement character.
    const kept = parts[2].slice("## euros.md\n\n".length).split("\n\n[… truncated")[0];
    expect(kept).toBe("€".repeat(16_666));
    expect(parts[2]).not.toContain("\uFFFD");
    expect(parts[2]).toMatch(/\n\n\[… truncated: \d+ more bytes not shown\]$/);
  });

  it("follows the maxFileBytes setting", async () => {
    const user = freshUser("maxbytes");
    const threadId = (await newThread(user.call)).id;
    await put(user.call, "memory.md", "m".repeat(3_000));
    expect(contextSection(await oneRun(user, threadId))).toBe(`# Context\n\n## memory.md\n\n${"m".repeat(3_000)}`);
    await setContextSettings({ maxFileBytes: 2_048 });
    // Same object, same files: the setting alone must change what is sent.
    expect(contextSection(await oneRun(user, threadId))).toBe(
      `# Context\n\n## memory.md\n\n${"m".repeat(2_048)}\n\n[… truncated: 952 more bytes not shown]`,
    );
  });

  it("changes on the next run when a file is edited, added or deleted (the cache follows the files)", async () => {
    const user = freshUser("edit");
    const threadId = (await newThread(user.call)).id;
    const m = marker("edit");
    await script(m, Array.from({ length: 4 }, () => ({ kind: "text" as const, text: "ok" })));
    const ws = await user.socket(threadId);
    await put(user.call, "memory.md", "version one");
    await runTurn(ws, threadId, `one ${m}`, 1, user.call);
    await put(user.call, "memory.md", "version two");
    await runTurn(ws, threadId, `two ${m}`, 2, user.call);
    await put(user.call, "zz.md", "added later");
    await runTurn(ws, threadId, `three ${m}`, 3, user.call);
    expect((await user.call("/api/context/memory.md", { method: "DELETE" })).status).toBe(204);
    expect((await user.call("/api/context/zz.md", { method: "DELETE" })).status).toBe(204);
    await runTurn(ws, threadId, `four ${m}`, 4, user.call);
    ws.close();

    const reqs = await upstreamRequests(m);
    expect(reqs).toHaveLength(4);
    expect(contextSection(reqs[0].body)).toBe("# Context\n\n## memory.md\n\nversion one");
    expect(contextSection(reqs[1].body)).toBe("# Context\n\n## memory.md\n\nversion two");
    expect(systemOf(reqs[1].body).text).not.toContain("version one");
    expect(contextSection(reqs[2].body)).toBe("# Context\n\n## memory.md\n\nversion two\n\n## zz.md\n\nadded later");
    const last = systemOf(reqs[3].body).text;
    expect(last).not.toContain("# Context");
    expect(last).not.toContain("version two");
  });

  // Product bug: stored settings are handed to the plugin as they are in D1, never parsed by its
  // schema (worker/plugins/registry.ts: syncPluginConfigs returns `r.settings`, PluginHost.apply
  // takes it as is). A row written before a setting existed (a plugin upgrade adds one, sync only
  // bumps the version) gives the plugin `undefined`: here maxFileBytes, so every file gets a
  // "[… truncated: NaN more bytes not shown]" marker. The contract says "validated by its schema".
  // Fix: in syncPluginConfigs, parse each row's settings with def.settings (safeParse; on failure
  // fall back to defaultSettings(def)) and write the result back with the version update.
  it("fills settings a stored row lacks with the schema's defaults", async () => {
    const user = freshUser("oldrow");
    await put(user.call, "memory.md", "small");
    expect((await api("/api/plugins")).status).toBe(200); // the rows exist
    await env.DB.prepare(`UPDATE plugin_configs SET settings = '{"historyLimit":50}' WHERE name = 'context'`).run();
    try {
      expect(contextSection(await oneRun(user))).toBe("# Context\n\n## memory.md\n\nsmall");
    } finally {
      await setContextSettings({ historyLimit: 50, maxFileBytes: 50_000 });
    }
  });

  it("does not inject another user's files", async () => {
    const owner = freshUser("owner");
    const other = freshUser("other");
    await put(owner.call, "memory.md", "OWNER-ONLY");
    const body = await oneRun(other);
    expect(systemOf(body).text).not.toContain("OWNER-ONLY");
    expect(systemOf(body).text).not.toContain("# Context");
  });
});

describe("history injection", () => {
  afterEach(async () => {
    await setContextSettings({ historyLimit: 50, maxFileBytes: 50_000 });
  });

  /**
   * A thread from before the object became its primary store: its rows are in D1 only, oldest first.
   * Its object reads them on first touch and has no model view of them: the history is injected.
   */
  async function threadWithHistory(user: ReturnType<typeof freshUser>, rows: { role: string; kind?: string; content: string }[]) {
    const id = await insertThread({ ownerId: user.id });
    const base = Date.now() - 60_000;
    for (const [i, r] of rows.entries()) await insertMessage({ threadId: id, ...r, createdAt: base + i * 10 });
    return { id };
  }

  it("gives a fresh thread that already has D1 messages its text history, as [role]: content, before the message", async () => {
    const user = freshUser("hist");
    const thread = await threadWithHistory(user, [
      { role: "user", content: "What is the capital of France?" },
      { role: "system", kind: "status", content: "pipeline_start" },
      { role: "assistant", kind: "thinking", content: "THINKING-NOT-HISTORY" },
      { role: "assistant", content: "Paris." },
      { role: "system", content: "A note from elsewhere." },
    ]);
    const m = marker("hist");
    await script(m, [{ kind: "text", text: "first" }, { kind: "text", text: "second" }]);
    const ws = await user.socket(thread.id);
    await runTurn(ws, thread.id, `And of Italy? ${m}`, 1, user.call);
    await runTurn(ws, thread.id, `And Spain? ${m}`, 2, user.call);
    ws.close();

    const [first, second] = await upstreamRequests(m);
    expect(first.body.messages).toHaveLength(1);
    expect(lastUserText(first.body)).toBe(
      [
        "# Conversation History\n\n[user]: What is the capital of France?\n\n[assistant]: Paris.\n\n[system]: A note from elsewhere.",
        `And of Italy? ${m}`,
      ].join(SEP),
    );
    expect(JSON.stringify(first.body)).not.toContain("THINKING-NOT-HISTORY");
    expect(systemOf(first.body).text).not.toContain("Conversation History");

    // Second turn: the conversation is live in the object; no history again, the first turn as sent.
    expect(second.body.messages).toHaveLength(3);
    expect(lastUserText(second.body)).toBe(`And Spain? ${m}`);
    expect(second.body.messages[0].content[0].text.startsWith("# Conversation History")).toBe(true);
    expect(JSON.stringify(second.body).split("# Conversation History")).toHaveLength(2);
  });

  it("gives a brand-new thread no history section at all", async () => {
    const user = freshUser("empty");
    const body = await oneRun(user);
    expect(body.messages).toHaveLength(1);
    expect(lastUserText(body)).toMatch(/^question \[\[ctx-/);
    expect(JSON.stringify(body)).not.toContain("# Conversation History");
  });

  it("injects history when D1 names a session from before (the old object's conversation is gone), and starts a new session", async () => {
    const user = freshUser("lost");
    const thread = await threadWithHistory(user, [
      { role: "user", content: "Remember: kiwi." },
      { role: "assistant", content: "Kiwi noted." },
    ]);
    await env.DB.prepare("UPDATE threads SET session_id = 'sess_from_a_lost_object' WHERE id = ?").bind(thread.id).run();
    const body = await oneRun(user, thread.id);
    expect(body.messages).toHaveLength(1);
    expect(lastUserText(body)).toMatch(/^# Conversation History\n\n\[user\]: Remember: kiwi\.\n\n\[assistant\]: Kiwi noted\.\n\n---\n\nquestion /);
    const stored = (await (await user.call(`/api/threads/${thread.id}`)).json<any>()).thread;
    expect(stored.sessionId).toMatch(/^sess_/);
    expect(stored.sessionId).not.toBe("sess_from_a_lost_object");
  });

  it("takes the last 50 text messages by default, oldest first", async () => {
    const user = freshUser("fifty");
    const rows = Array.from({ length: 55 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `line ${i + 1}` }));
    const thread = await threadWithHistory(user, rows);
    const prompt = lastUserText(await oneRun(user, thread.id));
    const history = prompt.split(SEP)[0].split("\n\n").slice(1);
    expect(history).toHaveLength(50);
    expect(history[0]).toBe("[assistant]: line 6");
    expect(history[49]).toBe("[user]: line 55");
    expect(prompt).not.toContain("line 5\n");
  });

  it("follows the historyLimit setting (0: none)", async () => {
    const user = freshUser("limit");
    const rows = ["one", "two", "three", "four"].map((content, i) => ({ role: i % 2 ? "assistant" : "user", content }));
    await setContextSettings({ historyLimit: 2 });
    const limited = lastUserText(await oneRun(user, (await threadWithHistory(user, rows)).id));
    expect(limited.split(SEP)[0]).toBe("# Conversation History\n\n[user]: three\n\n[assistant]: four");

    await setContextSettings({ historyLimit: 0 });
    const none = lastUserText(await oneRun(user, (await threadWithHistory(user, rows)).id));
    expect(none).toMatch(/^question \[\[ctx-/);
  });
});
