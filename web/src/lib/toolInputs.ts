// Tool calls' inputs as they stream (tool_input): the JSON text so far of each call, until its result.
// What the artifacts panel shows growing while the model writes one.
import type { EventMap } from "@protocol";

type ToolInputData = Extract<EventMap["pipeline:stream"], { type: "tool_input" }>;

/** A tool call's input as it streams: the JSON text so far, until the call is done. */
export interface ToolInput {
  toolUseId: string;
  toolName: string;
  json: string;
  /** Its tool_call came: the input is whole, the tool runs. */
  complete: boolean;
}

/** `inputs` with `toolUseId`'s changed by `change` (or gone, when it answers null). */
export function changeInput(inputs: ToolInput[], toolUseId: string, change: (input: ToolInput) => ToolInput | null): ToolInput[] {
  const at = inputs.findIndex((i) => i.toolUseId === toolUseId);
  if (at < 0) return inputs;
  const changed = change(inputs[at]);
  const next = [...inputs];
  if (changed) next[at] = changed;
  else next.splice(at, 1);
  return next;
}

/** A piece of a tool call's input: added to what came of it (a page that joined mid-input starts there). */
export function addInput(inputs: ToolInput[], data: ToolInputData): ToolInput[] {
  if (!inputs.some((i) => i.toolUseId === data.toolUseId)) {
    return [...inputs, { toolUseId: data.toolUseId, toolName: data.toolName, json: data.delta, complete: false }];
  }
  return changeInput(inputs, data.toolUseId, (i) => ({ ...i, json: i.json + data.delta }));
}
