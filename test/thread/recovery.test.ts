// A restart at each step boundary of a run leaves exactly one answer or one clean `interrupted`, and
// every run's events keep PROTOCOL.md's order: pipeline:start before its one end event.
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PluginDefinition } from "../../worker/plugins/contract";
import { api, checkpointed, createThread, marker, messagesOf, script, Socket, streamedText, type Frame } from "../helpers";
import { withPlugin } from "../plugins/util";

async function send(threadId: string, content: string) {
  const res = await api(`/api/threads/${threadId}/messages`, { body: { content } });
  expect(res.status).toBe(202);
  return (await res.json<any>()).message;
}

/** Every run in the replay: started once, before its one end event; answers how each ended. */
function runsOf(frames: Frame[]) {
  const runs = new Map<string, { start: number; ends: { event: string; seq: number; code?: string }[] }>();
  for (const f of frames) {
    if (f.seq === undefined || !f.data?.runId) continue;
    const run = runs.get(f.data.runId) ?? { start: -1, ends: [] };
    runs.set(f.data.runId, run);
    if (f.event === "pipeline:start") {
      expect(run.start, `run ${f.data.runId} started twice`).toBe(-1);
      run.start = f.seq;
    }
    if (f.event === "pipeline:complete" || f.event === "pipeline:error") run.ends.push({ event: f.event, seq: f.seq, code: f.data.code });
  }
  for (const [runId, run] of runs) {
    expect(run.start, `run ${runId} has no pipeline:start`).toBeGreaterThan(0);
    expect(run.ends, `run ${runId} must end exactly once`).toHaveLength(1);
    expect(run.ends[0].seq).toBeGreaterThan(run.start);
  }
  return [...runs.values()].map((r) => r.ends[0]);
}

/**
 * A plugin that handles the commands `handles` at once and never finishes `stallOn`'s (`stalled`
 * resolves once it has begun it), so a restart can come between a stored answer and its end event.
 */
function stallingOn(stallOn: string, handles: string[] = []) {
  let begun!: () => void;
  const stalled = new Promise<void>((resolve) => (begun = resolve));
  const plugin: PluginDefinition = {
    name: `stalling-on-${stallOn}`,
    version: "1",
    hookTimeoutMs: { onCommand: 60_000 },
    register: () => ({
      onCommand: (c) => {
        if (handles.includes(c.name)) return true;
        if (c.name !== stallOn) return false;
        begun();
        return new Promise<boolean>(() => {});
      },
    }),
  };
  return { plugin, stalled };
}

const runsEnded = (frames: Frame[]) => frames.filter((x) => x.event === "pipeline:complete" || x.event === "pipeline:error").length;

const answersOf = async (threadId: string) =>
  (await messagesOf(threadId, "?kinds=text")).messages.filter((m) => m.role === "assistant").map((m) => [m.content, m.metadata.error ?? null]);

describe("a restart at each step boundary of a run", () => {
  it("after a message is stored, before its run starts: it runs once, after the run cut short", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang", afterText: "cut here" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitFor((f) => streamedText(f) === "cut here");
    await send(thread.id, "waiting in the queue");
    await abortAllDurableObjects();
    const client = await Socket.open(thread.id, "?since=0");
    await client.waitFor((f) => f.filter((x) => x.event === "pipeline:complete" || x.event === "pipeline:error").length === 3, 15_000);
    // The run cut short answers again (its script is spent: the fake's echo), then the queued message.
    expect(runsOf(client.frames).map((e) => e.code ?? e.event)).toEqual(["interrupted", "pipeline:complete", "pipeline:complete"]);
    expect(await answersOf(thread.id)).toEqual([
      ["cut here", "interrupted"],
      [expect.stringMatching(/^Echo: /), null],
      ["Echo: waiting in the queue", null],
    ]);
    client.close();
  });

  it("mid-stream: the restarted object numbers its frames past any delta a client may have seen unwritten", async () => {
    // Deltas leave before their batch is written (store/replay.ts): a crash may lose those from the
    // replay that a client saw. The seqs after the restart skip past them, so none is given twice.
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang", afterText: "seen, maybe unwritten" }, { kind: "text", text: "again" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitFor((f) => streamedText(f) === "seen, maybe unwritten");
    const seenBefore = Math.max(...ws.events().map((f) => f.seq!));
    await abortAllDurableObjects();
    const client = await Socket.open(thread.id, `?since=${seenBefore}`);
    await client.waitForRunEnd(2, 15_000);
    const after = client.events().map((f) => f.seq!);
    expect(after.length).toBeGreaterThan(0);
    expect(Math.min(...after)).toBeGreaterThan(seenBefore);
    expect(after).toEqual([...after].sort((a, b) => a - b));
    // A client that starts over gets every stored frame once, in order: the stream's first delta
    // (written at once) among them, the rest of what the crash lost not, then the answer again.
    const all = await Socket.open(thread.id, "?since=0");
    await all.waitForRunEnd(2, 15_000);
    const seqs = all.events().map((f) => f.seq!);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(streamedText(all.frames)).toMatch(/^seen, .*again$/);
    ws.close();
    client.close();
    all.close();
  });

  it("mid-stream: one clean interrupted, its text kept, and one answer from the run that starts again", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang", afterText: "half an answer" }, { kind: "text", text: "a whole answer" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitFor((f) => streamedText(f) === "half an answer");
    await checkpointed();
    await abortAllDurableObjects();
    const client = await Socket.open(thread.id, "?since=0");
    await client.waitForRunEnd(2, 15_000);
    expect(runsOf(client.frames).map((e) => e.code ?? e.event)).toEqual(["interrupted", "pipeline:complete"]);
    expect(await answersOf(thread.id)).toEqual([
      ["half an answer", "interrupted"],
      ["a whole answer", null],
    ]);
    client.close();
  });

  it("a second restart of the same message's run: no third try, one clean interrupted", async () => {
    const thread = await createThread();
    const m = marker();
    await script(m, [{ kind: "hang", afterText: "first try" }, { kind: "hang", afterText: "second try" }]);
    const ws = await Socket.open(thread.id);
    await send(thread.id, m);
    await ws.waitFor((f) => streamedText(f) === "first try");
    await checkpointed();
    await abortAllDurableObjects();
    const again = await Socket.open(thread.id, "?since=0");
    await again.waitFor((f) => streamedText(f).includes("second try"), 15_000, "the second try");
    await checkpointed();
    await abortAllDurableObjects();
    const client = await Socket.open(thread.id, "?since=0");
    await client.waitFor((f) => runsEnded(f) === 2, 15_000, "two ends");
    // A message sent now runs after anything still queued: its end shows no third try came first.
    await send(thread.id, "and then");
    await client.waitFor((f) => runsEnded(f) === 3, 15_000, "the next message's end");
    expect(runsOf(client.frames).map((e) => e.code ?? e.event)).toEqual(["interrupted", "interrupted", "pipeline:complete"]);
    expect(await answersOf(thread.id)).toEqual([
      ["first try", "interrupted"],
      ["second try", "interrupted"],
      ["Echo: and then", null],
    ]);
    client.close();
  });

  it("after the answer is stored, before its end event: complete, with one answer and no interrupted", async () => {
    // A command in the answer is taken after the answer is stored and before the end event; this
    // plugin's command handler never finishes, so the restart comes exactly in between.
    const { plugin: stuck, stalled: inCommand } = stallingOn("stall");
    await withPlugin(stuck, async () => {
      const thread = await createThread();
      const m = marker();
      await script(m, [{ kind: "text", text: "Here is the answer.\n/stall now" }]);
      const ws = await Socket.open(thread.id);
      await send(thread.id, m);
      await ws.waitFor((f) => f.some((x) => x.event === "chat:message" && x.data.message.role === "assistant"));
      // The answer is stored and its command handler is running: the end event cannot have come.
      await inCommand;
      expect(ws.events("pipeline:complete")).toHaveLength(0);
      await abortAllDurableObjects();
      const client = await Socket.open(thread.id, "?since=0");
      await client.waitForRunEnd(1, 15_000);
      expect(runsOf(client.frames).map((e) => e.event)).toEqual(["pipeline:complete"]);
      expect(await answersOf(thread.id)).toEqual([["Here is the answer.\n/stall now", null]]);
      client.close();
    });
  });

  it("after a command was handled, before the next one finished: the end event reports the handled one", async () => {
    // The stored end follows each command: a restart during the second reports the first as handled
    // (and the second as neither: it never finished), as the live event would have.
    const { plugin: commands, stalled: inSecond } = stallingOn("second", ["first"]);
    await withPlugin(commands, async () => {
      const thread = await createThread();
      const m = marker();
      await script(m, [{ kind: "text", text: `Done.\n/first one\n/nobody-takes-this\n/second two` }]);
      const ws = await Socket.open(thread.id);
      await send(thread.id, m);
      await ws.waitFor((f) => f.some((x) => x.event === "chat:message" && x.data.message.role === "assistant"));
      await inSecond;
      expect(ws.events("pipeline:complete")).toHaveLength(0);
      await abortAllDurableObjects();
      const client = await Socket.open(thread.id, "?since=0");
      await client.waitForRunEnd(1, 15_000);
      const [end] = client.events("pipeline:complete");
      expect(end.data.commandsHandled).toEqual(["first"]);
      expect(end.data.commandsUnhandled).toEqual(["nobody-takes-this"]);
      client.close();
    });
  });
});
