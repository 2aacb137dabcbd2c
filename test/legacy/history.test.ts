// A thread imported from D1 has no live conversation in its object: the context plugin injects its
// text history into the first prompt (and only the first), within the historyLimit setting.
import { afterEach, describe, expect, it } from "vitest";
import { marker, script, upstreamRequests } from "../helpers";
import { env, freshUser, lastUserText, oneRun, runTurn, SEP, setContextSettings, systemOf } from "../plugins/util";
import { insertMessage, insertThread } from "./d1-rows";

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
