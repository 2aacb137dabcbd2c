import type Anthropic from "@anthropic-ai/sdk";
import { CutStreamError } from "./errors";
import { WEB_FETCH_TOOL, WEB_SEARCH_TOOL, type Citation } from "../../protocol";
import { addUsage, emptyUsage, type StreamEvent, type Usage } from "./types";

type Block =
  | { type: "compaction"; content: string | null; encrypted_content: string | null }
  | { type: "text"; text: string; citations: unknown[] | null }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown; json: string }
  | { type: "server_tool_use"; raw: Record<string, unknown>; json: string }
  // A server tool's result (web search, web fetch) or a block this reader does not know: kept as sent.
  | { type: "verbatim"; raw: Record<string, unknown> };

/** What the reader tells as it goes: client events, and markers the invoker acts on. */
export type ReadEvent = StreamEvent | { type: "compaction" } | { type: "cited"; citations: Citation[] };

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
  onEvent: (e: ReadEvent) => void,
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
        else if (b.type === "text") blocks[ev.index] = { type: "text", text: "", citations: b.citations?.length ? [...b.citations] : null };
        else if (b.type === "thinking") blocks[ev.index] = { type: "thinking", thinking: "", signature: "" };
        else if (b.type === "redacted_thinking") blocks[ev.index] = { type: "redacted_thinking", data: b.data };
        else if (b.type === "tool_use") blocks[ev.index] = { type: "tool_use", id: b.id, name: b.name, input: {}, json: "" };
        else if (b.type === "server_tool_use") blocks[ev.index] = { type: "server_tool_use", raw: { ...b }, json: "" };
        else blocks[ev.index] = { type: "verbatim", raw: { ...(b as object) } };
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
        } else if (d.type === "input_json_delta" && (block?.type === "tool_use" || block?.type === "server_tool_use")) {
          block.json += d.partial_json;
        } else if (d.type === "citations_delta" && block?.type === "text") {
          (block.citations ??= []).push(d.citation);
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
        } else if (block?.type === "server_tool_use") {
          block.raw.input = block.json.trim() ? JSON.parse(block.json) : (block.raw.input ?? {});
          progress.started = true;
          onEvent({ type: "server_tool_call", toolUseId: String(block.raw.id), toolName: String(block.raw.name), input: block.raw.input });
        } else if (block?.type === "verbatim") {
          const result = serverToolResult(block.raw);
          if (result) {
            progress.started = true;
            onEvent(result);
          }
        } else if (block?.type === "text" && block.citations?.length) {
          onEvent({ type: "cited", citations: block.citations.map(citationOf) });
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
        const serverToolUses = serverToolUsage(u);
        if (serverToolUses) usage.serverToolUses = serverToolUses;
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

/** The web tools' requests in this response (message_delta's usage is cumulative). */
function serverToolUsage(u: object): Record<string, number> | null {
  const s = (u as { server_tool_use?: { web_search_requests?: number; web_fetch_requests?: number } | null }).server_tool_use;
  if (!s) return null;
  const uses: Record<string, number> = {};
  if (s.web_search_requests) uses.web_search = s.web_search_requests;
  if (s.web_fetch_requests) uses.web_fetch = s.web_fetch_requests;
  return Object.keys(uses).length ? uses : null;
}

/** A web search or fetch result block as clients see it: the pages, or the error's code. */
function serverToolResult(raw: Record<string, unknown>): StreamEvent | null {
  const toolUseId = String(raw.tool_use_id ?? "");
  const content = raw.content as Record<string, unknown> | Record<string, unknown>[] | undefined;
  if (raw.type === "web_search_tool_result") {
    if (!Array.isArray(content)) return { type: "server_tool_result", toolUseId, toolName: WEB_SEARCH_TOOL, sources: [], error: String(content?.error_code ?? "error") };
    const sources = content.map((r) => ({ url: String(r.url), title: (r.title as string | null) ?? null, pageAge: (r.page_age as string | null) ?? null }));
    return { type: "server_tool_result", toolUseId, toolName: WEB_SEARCH_TOOL, sources };
  }
  if (raw.type === "web_fetch_tool_result") {
    const c = content as Record<string, unknown> | undefined;
    if (c?.type !== "web_fetch_result") return { type: "server_tool_result", toolUseId, toolName: WEB_FETCH_TOOL, sources: [], error: String(c?.error_code ?? "error") };
    const doc = c.content as { title?: string | null } | undefined;
    return { type: "server_tool_result", toolUseId, toolName: WEB_FETCH_TOOL, sources: [{ url: String(c.url), title: doc?.title ?? null }] };
  }
  return null;
}

function citationOf(c: unknown): Citation {
  const x = c as { url?: string; title?: string | null; cited_text?: string; document_title?: string | null };
  return { url: x.url ?? "", title: x.title ?? x.document_title ?? null, citedText: x.cited_text ?? "" };
}

function toParams(blocks: Block[]): Anthropic.ContentBlockParam[] {
  const out: Anthropic.ContentBlockParam[] = [];
  for (const b of blocks) {
    if (!b) continue;
    if (b.type === "compaction") out.push({ type: "compaction", content: b.content, encrypted_content: b.encrypted_content } as unknown as Anthropic.ContentBlockParam);
    else if (b.type === "text") {
      // Cited text goes back with its citations, as sent (encrypted indexes included).
      if (b.text || b.citations) out.push({ type: "text", text: b.text, ...(b.citations ? { citations: b.citations } : {}) } as Anthropic.TextBlockParam);
    } else if (b.type === "server_tool_use" || b.type === "verbatim") out.push(b.raw as unknown as Anthropic.ContentBlockParam);
    else if (b.type === "thinking") out.push({ type: "thinking", thinking: b.thinking, signature: b.signature });
    else if (b.type === "redacted_thinking") out.push({ type: "redacted_thinking", data: b.data });
    else out.push({ type: "tool_use", id: b.id, name: b.name, input: b.input as Record<string, unknown> });
  }
  return out;
}
