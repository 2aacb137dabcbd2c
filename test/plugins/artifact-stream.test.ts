// An artifact growing as the model writes it (PROTOCOL.md, "Artifacts"; docs/protocol-notes.md,
// pipeline:stream `tool_input`): a tool_use block's input reaches the sockets as it streams, coalesced
// like text, one tool's never mixed with another's, all of it before the call's tool_call; the
// plugins, the run's record and what is stored see the call whole, as before.
import { afterEach, describe, expect, it } from "vitest";
import type { Hooks, PluginDefinition, RunOutcome } from "../../worker/plugins/contract";
import type { StreamEvent } from "../../worker/invoker/types";
import { createThread, marker, messagesOf, script, settle, Socket, streamedText, type Frame } from "../helpers";
import { newThread, runTurn, withPlugin } from "./util";

afterEach(() => settle());

/** The create call's input as the model writes it: the JSON in pieces (one cut inside an escape). */
const PIECES = ['{"title":"Growing', ' plan","type":"mark', 'down","content":"# Plan\\n\\nstep', " one\\", 'nstep \\"two\\"', " \\u00e9", 'tape"}'];
const INPUT = JSON.parse(PIECES.join(""));

/** A plugin that keeps every stream event it hears and the run's outcome. */
function listener() {
  const heard = { events: [] as StreamEvent[], outcomes: [] as RunOutcome[] };
  const plugin: PluginDefinition = {
    name: "listener",
    version: "0.0.1",
    register: (): Hooks => ({
      onStreamEvent: (e) => {
        heard.events.push(structuredClone(e));
      },
      onPipelineComplete: (outcome) => {
        heard.outcomes.push(structuredClone(outcome));
      },
    }),
  };
  return { plugin, heard };
}

const streamOf = (ws: Socket) => ws.events().filter((f) => f.event === "pipeline:stream");
const inputsOf = (frames: Frame[], toolUseId?: string) =>
  frames.filter((f) => f.event === "pipeline:stream" && f.data.type === "tool_input" && (!toolUseId || f.data.toolUseId === toolUseId));

/** The list with each run of equal items as one ("a a b a" → "a b a"). */
const runsOf = (list: string[]) => list.filter((x, i) => x !== list[i - 1]);

/** A thread's stored messages as the comparison needs them: what and whose, not ids nor times. */
async function stored(threadId: string) {
  const { messages } = await messagesOf(threadId);
  return messages.map((m) => ({
    role: m.role,
    kind: m.kind,
    // A result names the artifact's id, the user's message its marker: the rest is compared as is.
    content: m.kind === "tool_result" || m.role === "user" ? "…" : m.content,
    metadata: Object.keys(m.metadata).sort(),
    input: m.metadata.input,
  }));
}

describe("a tool's input as it streams", () => {
  it("reaches the sockets as tool_input frames, in order, before its tool_call; plugins and the run's record get the call whole", async () => {
    const seen = listener();
    await withPlugin(seen.plugin, async () => {
      const thread = await newThread();
      const m = marker("grow");
      // 40 ms between pieces, more than the coalescer's 30: the pieces go out as they come.
      await script(m, [
        { kind: "tool_use", text: "Writing it.", delayMs: 40, tools: [{ name: "artifacts__create", chunks: PIECES, id: "toolu_grow" }] },
        { kind: "text", text: "Done." },
      ]);
      const ws = await Socket.open(thread.id);
      const { end } = await runTurn(ws, thread.id, `a plan ${m}`);
      expect(end.event).toBe("pipeline:complete");

      const frames = streamOf(ws);
      const inputs = inputsOf(frames);
      expect(inputs.length).toBeGreaterThanOrEqual(3);
      expect(inputs.every((f) => f.data.toolUseId === "toolu_grow" && f.data.toolName === "artifacts__create")).toBe(true);
      expect(inputs.map((f) => f.data.delta).join("")).toBe(PIECES.join(""));
      // The input's frames come after the text before it and before the call, which has it whole.
      const types = frames.map((f) => f.data.type);
      const call = types.indexOf("tool_call");
      expect(runsOf(types.slice(0, call))).toEqual(["text", "tool_input"]);
      expect(frames[call].data).toMatchObject({ toolUseId: "toolu_grow", input: INPUT });
      const updated = ws.events("artifact:updated")[0];
      expect(updated.seq).toBeGreaterThan(frames[call].seq!);
      // No paragraph break came of the input: the text is as it would be without it.
      expect(streamedText(ws.frames)).toBe("Writing it.\n\nDone.");

      // The plugins heard the call whole, never its pieces; the run's record keeps the merged blocks.
      expect(seen.heard.events.some((e) => e.type === "tool_input")).toBe(false);
      const [outcome] = seen.heard.outcomes;
      expect(outcome.streamEvents.map((e) => e.type)).toEqual(["text", "tool_call", "tool_result", "text"]);
      expect(outcome.streamEvents[1]).toEqual({ type: "tool_call", toolUseId: "toolu_grow", toolName: "artifacts__create", input: INPUT });

      // What is stored: the call as one row with its whole input, nothing of the pieces.
      const { messages } = await messagesOf(thread.id);
      const calls = messages.filter((x) => x.kind === "tool_call");
      expect(calls).toHaveLength(1);
      expect(calls[0].metadata.input).toEqual(INPUT);
      expect(JSON.parse(calls[0].content)).toEqual(INPUT);
      const answer = messages.find((x) => x.role === "assistant" && x.kind === "text");
      expect(answer.content).toBe("Writing it.\n\nDone.");
      expect(JSON.stringify(messages)).not.toContain("tool_input");
      ws.close();
    });
  });

  it("changes nothing stored: the same exchange with its input in one piece stores the same", async () => {
    const run = async (chunks: number | string[], delayMs: number) => {
      const thread = await createThread();
      const m = marker("same");
      await script(m, [
        { kind: "tool_use", text: "Writing it.", delayMs, tools: [{ name: "artifacts__create", chunks, id: `toolu_${m.slice(-8)}` }] },
        { kind: "text", text: "Done." },
      ]);
      const ws = await Socket.open(thread.id);
      await runTurn(ws, thread.id, `a plan ${m}`);
      const frames = inputsOf(ws.frames).length;
      ws.close();
      return { frames, stored: await stored(thread.id) };
    };
    const whole = await run([PIECES.join("")], 0);
    const pieces = await run(PIECES, 40);
    expect(whole.frames).toBe(1);
    expect(pieces.frames).toBeGreaterThan(1);
    expect(pieces.stored).toEqual(whole.stored);
    expect(pieces.stored.filter((s) => s.kind === "tool_call").map((s) => s.input)).toEqual([INPUT]);
  });

  it("never mixes two tools' inputs in one frame, and ends each one's before its call", async () => {
    const thread = await createThread();
    const m = marker("two");
    const second = { title: "Notes", type: "code", language: "python", content: "print('hi')\n".repeat(20) };
    // No delay: the coalescer would merge what it may.
    await script(m, [
      {
        kind: "tool_use",
        tools: [
          { name: "artifacts__create", chunks: PIECES, id: "toolu_first" },
          { name: "artifacts__create", input: second, chunks: 9, id: "toolu_second" },
        ],
      },
      { kind: "text", text: "Two." },
    ]);
    const ws = await Socket.open(thread.id);
    await runTurn(ws, thread.id, `two of them ${m}`);

    const frames = streamOf(ws);
    expect(inputsOf(frames, "toolu_first").map((f) => f.data.delta).join("")).toBe(PIECES.join(""));
    expect(inputsOf(frames, "toolu_second").map((f) => f.data.delta).join("")).toBe(JSON.stringify(second));
    // In stream order: the first's input, its call, the second's input, its call (results after).
    const order = runsOf(frames.map((f) => `${f.data.type}:${f.data.toolUseId ?? ""}`));
    expect(order.slice(0, 4)).toEqual(["tool_input:toolu_first", "tool_call:toolu_first", "tool_input:toolu_second", "tool_call:toolu_second"]);
    ws.close();
  });
});
