import type Anthropic from "@anthropic-ai/sdk";
import { CutStreamError } from "./errors";
import { addUsage, emptyUsage, type StreamEvent, type Usage } from "./types";

type Block =
  | { type: "compaction"; content: string | null; encrypted_content: string | null }
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown; json: string };

export interface StreamedMessage {
  content: Anthropic.ContentBlockParam[];
  usage: Usage;
  stopReason: string | null;
}

/** How far a response got: whether the user saw any of it, and what it has cost so far. */
export interface StreamProgress {
  /** True once any delta arrived: from then on a retry would repeat what the user already saw. */
  started: boolean;
  usage: Usage;
}

/**
 * Folds one streamed response into the assistant message it describes, handing each delta to
 * `onEvent` as it comes. Thinking blocks keep their signatures byte for byte: the API refuses a
 * conversation whose thinking was altered.
 */

export async function readStream(
  events: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  onEvent: (e: StreamEvent | { type: "compaction" }) => void,
  progress: StreamProgress,
): Promise<StreamedMessage> {
  const blocks: Block[] = [];
  let usage = emptyUsage();
  let stopReason: string | null = null;
  let stopped = false;
  for await (const ev of events) {
    switch (ev.type) {
      case "message_start": {
        const u = ev.message.usage;
        usage = {
          inputTokens: u.input_tokens ?? 0,
          outputTokens: u.output_tokens ?? 0,
          cacheReadTokens: u.cache_read_input_tokens ?? 0,
          cacheWriteTokens: u.cache_creation_input_tokens ?? 0,
        };
        progress.usage = usage;
        break;
      }
      case "content_block_start": {
        const b = ev.content_block;
        if ((b.type as string) === "compaction") blocks[ev.index] = { type: "compaction", content: null, encrypted_content: null };
        else if (b.type === "text") blocks[ev.index] = { type: "text", text: "" };
        else if (b.type === "thinking") blocks[ev.index] = { type: "thinking", thinking: "", signature: "" };
        else if (b.type === "redacted_thinking") blocks[ev.index] = { type: "redacted_thinking", data: b.data };
        else if (b.type === "tool_use") blocks[ev.index] = { type: "tool_use", id: b.id, name: b.name, input: {}, json: "" };
        break;
      }
      case "content_block_delta": {
        const block = blocks[ev.index];
        const d = ev.delta;
        if (d.type === "text_delta" && block?.type === "text") {
          block.text += d.text;
          progress.started = true;
          onEvent({ type: "text", delta: d.text });
        } else if (d.type === "thinking_delta" && block?.type === "thinking") {
          block.thinking += d.thinking;
          progress.started = true;
          onEvent({ type: "thinking", delta: d.thinking });
        } else if (d.type === "signature_delta" && block?.type === "thinking") {
          block.signature += d.signature;
        } else if (d.type === "input_json_delta" && block?.type === "tool_use") {
          block.json += d.partial_json;
        } else if ((d.type as string) === "compaction_delta" && block?.type === "compaction") {
          // Kept exactly as sent: the next request returns the block unchanged.
          const c = d as unknown as { content: string | null; encrypted_content: string | null };
          if (c.content !== null) block.content = (block.content ?? "") + c.content;
          if (c.encrypted_content !== null) block.encrypted_content = c.encrypted_content;
        }
        break;
      }
      case "content_block_stop": {
        const block = blocks[ev.index];
        if (block?.type === "tool_use") {
          block.input = block.json.trim() ? JSON.parse(block.json) : {};
          progress.started = true;
          onEvent({ type: "tool_call", toolUseId: block.id, toolName: block.name, input: block.input });
        } else if (block?.type === "compaction") {
          onEvent({ type: "compaction" });
        }
        break;
      }
      case "message_delta": {
        stopReason = ev.delta.stop_reason ?? stopReason;
        const u = ev.usage;
        usage = {
          inputTokens: u.input_tokens ?? usage.inputTokens,
          outputTokens: u.output_tokens ?? usage.outputTokens,
          cacheReadTokens: u.cache_read_input_tokens ?? usage.cacheReadTokens,
          cacheWriteTokens: u.cache_creation_input_tokens ?? usage.cacheWriteTokens,
        };
        usage = addUsage(usage, compactionUsage(u));
        progress.usage = usage;
        break;
      }
      case "message_stop":
        stopped = true;
        break;
    }
  }
  if (!stopped) throw new CutStreamError("stream ended before message_stop");
  return { content: toParams(blocks), usage, stopReason };
}

/** What compacting cost: the iterations the API reports besides the message itself. */
function compactionUsage(u: object): Usage {
  const iterations = (u as { iterations?: { type: string; input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number }[] }).iterations ?? [];
  return iterations
    .filter((it) => it.type === "compaction")
    .reduce(
      (sum, it) =>
        addUsage(sum, {
          inputTokens: it.input_tokens ?? 0,
          outputTokens: it.output_tokens ?? 0,
          cacheReadTokens: it.cache_read_input_tokens ?? 0,
          cacheWriteTokens: it.cache_creation_input_tokens ?? 0,
        }),
      emptyUsage(),
    );
}

function toParams(blocks: Block[]): Anthropic.ContentBlockParam[] {
  const out: Anthropic.ContentBlockParam[] = [];
  for (const b of blocks) {
    if (!b) continue;
    if (b.type === "compaction") out.push({ type: "compaction", content: b.content, encrypted_content: b.encrypted_content } as unknown as Anthropic.ContentBlockParam);
    else if (b.type === "text") {
      if (b.text) out.push({ type: "text", text: b.text });
    } else if (b.type === "thinking") out.push({ type: "thinking", thinking: b.thinking, signature: b.signature });
    else if (b.type === "redacted_thinking") out.push({ type: "redacted_thinking", data: b.data });
    else out.push({ type: "tool_use", id: b.id, name: b.name, input: b.input as Record<string, unknown> });
  }
  return out;
}
