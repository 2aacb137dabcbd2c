// A run that stops at a tool which must wait (an approval) keeps its point; the invoker goes on from
// it later as if it had never stopped: the waiting tool runs, the ones before it do not run again,
// and the model gets the conversation whole.
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { Invoker, type InvokeRequest } from "../../worker/invoker/invoke";
import type { ResumePoint } from "../../worker/invoker/types";

type Event = Record<string, unknown>;

/** A Messages API that answers each request with the next of `answers` (a tool_use turn, then text). */
function scripted(answers: Event[][]) {
  const requests: { messages: Anthropic.MessageParam[] }[] = [];
  const create = async (body: { messages: Anthropic.MessageParam[] }) => {
    requests.push({ messages: structuredClone(body.messages) });
    const events = answers[requests.length - 1];
    return (async function* () {
      yield* events;
    })();
  };
  const client = { messages: { create }, beta: { messages: { create } } } as unknown as Anthropic;
  return { invoker: new Invoker(client, { maxTokens: 1024, thinking: null, maxCodeRuns: 20, maxToolTurns: 4, retryAttempts: 1, retryBaseMs: 1 }), requests };
}

const start = { type: "message_start", message: { usage: { input_tokens: 10, output_tokens: 1 } } };
const end = (stop: string) => [{ type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: 5 } }, { type: "message_stop" }];
const text = (index: number, t: string) => [
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index, delta: { type: "text_delta", text: t } },
  { type: "content_block_stop", index },
];
const toolUse = (index: number, id: string, name: string, input: object) => [
  { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } },
  { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } },
  { type: "content_block_stop", index },
];

function request(over: Partial<InvokeRequest>): InvokeRequest {
  return {
    model: "claude-sonnet-4-6",
    system: ["terse"],
    prompt: "clean up",
    history: [],
    tools: [{ name: "srv__look", description: "", input_schema: { type: "object" } }, { name: "srv__delete", description: "", input_schema: { type: "object" } }],
    runTool: async () => ({ content: "", isError: false }),
    onEvent: () => {},
    signal: new AbortController().signal,
    ...over,
  };
}

class Parked extends Error {}

describe("a run that goes on from a kept point", () => {
  it("runs the waiting tool and those after it, never those before, and sends the whole conversation", async () => {
    const answers = [
      [start, ...text(0, "Looking first."), ...toolUse(1, "tu_look", "srv__look", { q: 1 }), ...toolUse(2, "tu_del", "srv__delete", { id: "a" }), ...end("tool_use")],
      [start, ...text(0, "Deleted it."), ...end("end_turn")],
    ];
    const first = scripted(answers);
    const ran: string[] = [];
    let kept: ResumePoint | null = null;
    // The first instance: the second tool must wait, so the point is kept and the run stops there.
    await expect(
      first.invoker.invoke(
        request({
          runTool: async (name, _input, id, resumable) => {
            if (name === "srv__delete") {
              kept = structuredClone(resumable());
              throw new Parked();
            }
            ran.push(id);
            return { content: "found a", isError: false };
          },
        }),
      ),
    ).rejects.toThrow();
    expect(ran).toEqual(["tu_look"]);
    expect(kept!.done.map((d) => d.tool_use_id)).toEqual(["tu_look"]);
    expect(kept!.output).toBe("Looking first.");

    // A later instance goes on from it: only the waiting tool runs, with an image in its result.
    const later = scripted([answers[1]]);
    const events: string[] = [];
    const result = await later.invoker.invoke(
      request({
        resume: kept!,
        onEvent: (e) => events.push(e.type),
        runTool: async (name, _input, id) => {
          ran.push(id);
          return { content: "deleted a", isError: false, images: [{ mediaType: "image/png", data: "iVBORw0KGgo=" }] };
        },
      }),
    );
    expect(ran).toEqual(["tu_look", "tu_del"]);
    expect(result.output).toBe("Looking first.\n\nDeleted it.");
    expect(result.toolCalls).toBe(2);
    const sent = later.requests[0].messages;
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const results = sent[2].content as Anthropic.ToolResultBlockParam[];
    expect(results.map((r) => r.tool_use_id)).toEqual(["tu_look", "tu_del"]);
    expect(results[0].content).toBe("found a");
    expect(results[1].content).toEqual([
      { type: "text", text: "deleted a" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    ]);
    // The stored turns are the run's whole exchange, as if it had never stopped.
    expect(result.turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(events).toEqual(["tool_result", "text", "text"]);
  });
});
