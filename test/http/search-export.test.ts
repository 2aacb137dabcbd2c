// Search (FTS5 in D1, kept in step by the objects' mirror), export of the current branch, and the
// thread's own instructions in the system prompt.
import { afterEach, describe, expect, it } from "vitest";
import { api, createThread, json, marker, settle, Socket, until, upstreamRequests } from "../helpers";
import { createThreadVia, expectError, tokenUsers } from "./util";

afterEach(() => settle());

async function talk(threadId: string, contents: string[]) {
  const ws = await Socket.open(threadId);
  for (const [i, content] of contents.entries()) {
    await api(`/api/threads/${threadId}/messages`, { body: { content } });
    await ws.waitForRunEnd(i + 1);
  }
  return ws;
}

const search = (q: string) => api(`/api/search?q=${encodeURIComponent(q)}`);
/** Search answers once the object's flush reached D1 (it lags by at most one flush). */
const searchUntil = (q: string, ok: (results: any[]) => boolean) => until(async () => (await json<any>(search(q))).results, ok);

describe("GET /api/search", () => {
  it("finds the caller's messages by their words, best first, hits marked and the rest escaped", async () => {
    const word = `zanzibar${crypto.randomUUID().slice(0, 6)}`;
    const thread = await createThread({ name: "Travel plans" });
    const ws = await talk(thread.id, [`Tell me about ${word} <b>and</b> its spice trade`, "something else"]);
    const results = await searchUntil(`${word} spice`, (r) => r.length >= 2);
    expect(results[0]).toMatchObject({ threadId: thread.id, threadName: "Travel plans", role: "user", createdAt: expect.any(Number) });
    expect(results[0].snippet).toContain(`<mark>${word}</mark>`);
    expect(results[0].snippet).toContain("&lt;b&gt;and&lt;/b&gt;");
    expect(results.map((r: any) => r.role).sort()).toEqual(["assistant", "user"]); // the echo answer holds the words too
    expect((await json<any>(search(`${word}nothing`))).results).toEqual([]);
    ws.close();
  });

  it("keeps each user to their own threads", async () => {
    const word = `quokka${crypto.randomUUID().slice(0, 6)}`;
    const { users, as } = tokenUsers("alice", "bob");
    const alice = as(users.alice);
    const bob = as(users.bob);
    const thread = await createThreadVia(alice);
    await alice(`/api/threads/${thread.id}/messages`, { body: { content: `a ${word} sighting` } });
    await until(async () => (await (await alice(`/api/search?q=${word}`)).json<any>()).results, (r) => r.length > 0);
    expect((await (await bob(`/api/search?q=${word}`)).json<any>()).results).toEqual([]);
    expect((await json<any>(search(word))).results).toEqual([]); // the local user of none mode
  });

  it("finds an edited message's new words", async () => {
    const [before, after] = [`lemur${crypto.randomUUID().slice(0, 6)}`, `gecko${crypto.randomUUID().slice(0, 6)}`];
    const thread = await createThread();
    const ws = await talk(thread.id, [`about the ${before}`]);
    const { messages } = await json<any>(api(`/api/threads/${thread.id}/messages?kinds=text`));
    await api(`/api/threads/${thread.id}/messages/${messages[0].id}/edit`, { body: { content: `about the ${after}` } });
    await ws.waitForRunEnd(2);
    const results = await searchUntil(after, (r) => r.length > 0);
    expect(results[0].messageId).not.toBe(messages[0].id);
    ws.close();
  });

  it("takes a one-letter last word as a whole word, not as the prefix of every word it begins", async () => {
    const { users, as } = tokenUsers("letters");
    const call = as(users.letters);
    const thread = await createThreadVia(call);
    for (const content of ["we ate an apple", "plan a trip"]) {
      expect((await call(`/api/threads/${thread.id}/messages`, { body: { content } })).status).toBe(202);
    }
    /** The texts found for `q`, without their marks. */
    const found = async (q: string) => {
      const res = await call(`/api/search?q=${encodeURIComponent(q)}`);
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json<any>()).results.map((r: any) => r.snippet.replace(/<\/?mark>/g, "")) as string[];
    };
    await until(async () => [...(await found("apple")), ...(await found("trip"))], (texts) => texts.length >= 2);
    for (const q of ["a", "trip a", "A"]) {
      const texts = await found(q);
      expect(texts.length, q).toBeGreaterThan(0);
      for (const text of texts) expect(text, q).toContain("plan a trip");
    }
    expect(await found("ap")).toEqual(expect.arrayContaining([expect.stringContaining("we ate an apple")]));
    expect(await found("x")).toEqual([]);
  });

  it("refuses an empty query", async () => {
    await expectError(await search(""), 400, "invalid_request");
    await expectError(await search("   "), 400, "invalid_request");
    await expectError(await search('"*'), 400, "invalid_request");
  });
});

describe("GET /api/threads/:id/export", () => {
  it("exports the current branch as Markdown and as JSON, as a download", async () => {
    const thread = await createThread({ name: "Export me: now!" });
    const ws = await talk(thread.id, ["first question", "second question"]);
    const { messages } = await json<any>(api(`/api/threads/${thread.id}/messages?kinds=text`));
    await api(`/api/threads/${thread.id}/messages/${messages[2].id}/edit`, { body: { content: "second, rephrased" } });
    await ws.waitForRunEnd(3);

    const md = await api(`/api/threads/${thread.id}/export?format=markdown`);
    expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(md.headers.get("content-disposition")).toBe('attachment; filename="export-me-now.md"');
    const text = await md.text();
    expect(text.startsWith("# Export me: now!\n")).toBe(true);
    expect(text).toContain("## User\n\nfirst question\n\n## Assistant\n\nEcho: first question\n\n## User\n\nsecond, rephrased");
    expect(text).not.toContain("second question");

    const js = await api(`/api/threads/${thread.id}/export?format=json`);
    expect(js.headers.get("content-disposition")).toBe('attachment; filename="export-me-now.json"');
    const body = await js.json<any>();
    expect(body.thread.id).toBe(thread.id);
    expect(body.messages.map((m: any) => m.content)).toEqual(["first question", "Echo: first question", "second, rephrased", "Echo: second, rephrased"]);
    await expectError(await api(`/api/threads/${thread.id}/export?format=pdf`), 400, "invalid_request");
    await expectError(await api(`/api/threads/thr_nope/export`), 404, "not_found");
    ws.close();
  });
});

describe("the thread's instructions and the base prompt", () => {
  it("lay the system prompt out from the most stable to the least: a rename or new instructions keep the cached block", async () => {
    await api("/api/context/style.md", { method: "PUT", body: { content: "The user writes in British English." } });
    const thread = await createThread({ name: "Poems", kind: "primary" });
    const m = marker("instr");
    const ws = await talk(thread.id, [`before ${m}`]);
    const patched = await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { instructions: "Answer in haiku." } });
    expect((await patched.json<any>()).thread.instructions).toBe("Answer in haiku.");
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `after ${m}` } });
    await ws.waitForRunEnd(2);
    await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { name: "Haiku" } });
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `renamed ${m}` } });
    await ws.waitForRunEnd(3);
    const [before, after, renamed] = (await upstreamRequests(m)).map((r) => r.body.system);

    // The first block: the header, the kind's instruction, then the context; cached, and byte for
    // byte the same in every request.
    const stable = before[0].text as string;
    expect(stable.startsWith(`[Thread: ${thread.id} (primary)]\n\nThis is the user's primary thread`)).toBe(true);
    expect(stable).toContain("## style.md\n\nThe user writes in British English.");
    expect(stable).not.toContain("Poems");
    expect(before[0].cache_control).toEqual({ type: "ephemeral" });
    expect(after[0]).toEqual(before[0]);
    expect(renamed[0]).toEqual(before[0]);
    // The last block: what a person changes, the name and the instructions (from the next run on).
    expect(before[1]).toEqual({ type: "text", text: 'This thread is named "Poems".' });
    expect(after[1]).toEqual({ type: "text", text: 'This thread is named "Poems".\n\n# Instructions for this thread\n\nAnswer in haiku.' });
    expect(renamed[1].text).toBe('This thread is named "Haiku".\n\n# Instructions for this thread\n\nAnswer in haiku.');
    await api("/api/context/style.md", { method: "DELETE" });
    ws.close();
  });

  it("refuses instructions over 20,000 characters, and clears them with an empty string", async () => {
    const thread = await createThread();
    await expectError(await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { instructions: "x".repeat(20_001) } }), 400, "invalid_request");
    expect((await json<any>(api(`/api/threads/${thread.id}`, { method: "PATCH", body: { instructions: "x".repeat(20_000) } }))).thread.instructions).toHaveLength(20_000);
    expect((await json<any>(api(`/api/threads/${thread.id}`, { method: "PATCH", body: { instructions: "" } }))).thread.instructions).toBe("");
  });
});
