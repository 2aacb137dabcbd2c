// The delta coalescer (worker/thread/broadcaster.ts): the first delta at once, later ones merged
// until the interval is up; a delta of another kind sends what is buffered first, and a tool's input
// is a kind of its own per call, so two calls' inputs are never one frame.
import { describe, expect, it } from "vitest";
import { DeltaCoalescer, type DeltaEvent } from "../../worker/thread/broadcaster";

/** A coalescer whose interval never ends within a test: only a change of kind or flush() sends. */
function coalescer() {
  const sent: DeltaEvent[] = [];
  return { c: new DeltaCoalescer(3_600_000, (e) => sent.push(e)), sent };
}

const input = (toolUseId: string, delta: string): DeltaEvent => ({ type: "tool_input", toolUseId, toolName: "artifacts__create", delta });

describe("DeltaCoalescer", () => {
  it("merges a kind's deltas, sending what it holds before another kind's", () => {
    const { c, sent } = coalescer();
    c.push({ type: "text", delta: "Hel" });
    c.push({ type: "text", delta: "lo" });
    c.push({ type: "text", delta: "!" });
    c.push(input("toolu_a", '{"ti'));
    c.push(input("toolu_a", 'tle":'));
    expect(sent).toEqual([{ type: "text", delta: "Hel" }, { type: "text", delta: "lo!" }]);
    c.flush();
    expect(sent.at(-1)).toEqual(input("toolu_a", '{"title":'));
  });

  it("never merges two tool calls' inputs, even back to back", () => {
    const { c, sent } = coalescer();
    const first = input("toolu_a", "{");
    c.push({ type: "thinking", delta: "hmm" });
    c.push(first);
    c.push(input("toolu_a", "}"));
    c.push(input("toolu_b", '{"x"'));
    c.push(input("toolu_b", ":1}"));
    c.flush();
    expect(sent).toEqual([{ type: "thinking", delta: "hmm" }, input("toolu_a", "{}"), input("toolu_b", '{"x":1}')]);
    // The merged event is a copy: what was pushed is left as it was; nothing is left to send.
    expect(first.delta).toBe("{");
    c.flush();
    expect(sent).toHaveLength(3);
  });
});
