import type Anthropic from "@anthropic-ai/sdk";
import { codeResultOf, type CodeResult } from "./code-result";
import { CutStreamError } from "./errors";
import { isCodeTool, WEB_FETCH_TOOL, WEB_SEARCH_TOOL, type Citation } from "../../protocol";
import { addUsage, emptyUsage, usageOf, type ApiContent, type CompactionBlock, type Container, type StreamEvent, type Usage } from "./types";

// The beta's event types: a superset of the plain ones, and the only ones that name compaction.
type Event = Anthropic.Beta.BetaRawMessageStreamEvent;
type Delta = Anthropic.Beta.BetaRawContentBlockDelta;

type Block =
  | CompactionBlock
  | { type: "text"; text: string; citations: unknown[] | null }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown; json: string }
  | { type: "server_tool_use"; raw: Record<string, unknown>; json: string }
  // A server tool's result (web search, web fetch) or a block this reader does not know: kept as sent.
  | { type: "verbatim"; raw: Record<string, unknown> };

/**
 * What the reader tells as it goes: client events, and markers the invoker acts on (`content_end`:
 * a text or thinking block is whole, so what a caller buffers of it for sockets can go).
 */
export type ReadEvent =
  | StreamEvent
  | { type: "compaction" }
  | { type: "cited"; citations: Citation[] }
  | { type: "content_end" }
  | { type: "code_result"; result: CodeResult };

export interface StreamedMessage {
  content: ApiContent[];
  usage: Usage;
  stopReason: string | null;
  /** The code execution container the response ran in (message_delta names it), or null. */
  container: Container | null;
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
export async function readStream(events: AsyncIterable<Event>, onEvent: (e: ReadEvent) => void, progress: StreamProgress, code?: CodeBudget): Promise<StreamedMessage> {
  const reader = new Reader(onEvent, progress, code);
  // Leaving the loop closes the stream: the request is cancelled where the run's code budget ran out.
  for await (const ev of events) if (!reader.read(ev)) break;
  return reader.end();
}

/** The code runs a run has left: `take` is false for one past them (its response is cut there, stop reason "code_limit"). */
export interface CodeBudget {
  take(): boolean;
}

/** What one response has said so far: a handler per stream event folds it in. */
class Reader {
  private readonly blocks: Block[] = [];
  private usage = emptyUsage();
  private stopReason: string | null = null;
  private container: Container | null = null;
  private stopped = false;
  /** When each code run's code was whole (its block ended): its result's arrival gives its duration. */
  private readonly codeWritten = new Map<string, number>();

  constructor(
    private readonly onEvent: (e: ReadEvent) => void,
    private readonly progress: StreamProgress,
    private readonly code?: CodeBudget,
  ) {}

  /** Folds in one event; false when the response must end here (a code run past the run's budget). */
  read(ev: Event): boolean {
    switch (ev.type) {
      case "message_start":
        this.setUsage(usageOf(ev.message.usage));
        break;
      case "content_block_start":
        if (ev.content_block.type === "server_tool_use" && isCodeTool(ev.content_block.name) && this.code && !this.code.take()) {
          this.stopReason = "code_limit";
          this.stopped = true;
          return false;
        }
        this.blocks[ev.index] = blockOf(ev.content_block);
        break;
      case "content_block_delta":
        this.delta(this.blocks[ev.index], ev.delta);
        break;
      case "content_block_stop": {
        const block = this.blocks[ev.index];
        this.blockStop(block);
        // What a caller buffers of it can go now: the last of a text or thinking block, a network read
        // before message_delta (other blocks' events flush a caller's buffer themselves).
        if ((block?.type === "text" && block.text) || (block?.type === "thinking" && block.thinking)) this.onEvent({ type: "content_end" });
        break;
      }
      case "message_delta":
        this.messageDelta(ev);
        break;
      case "message_stop":
        this.stopped = true;
    }
    return true;
  }

  end(): StreamedMessage {
    if (!this.stopped) throw new CutStreamError("stream ended before message_stop");
    return { content: toParams(this.blocks), usage: this.usage, stopReason: this.stopReason, container: this.container };
  }

  /**
   * Text, thinking and the input of the app's own tools (an artifact growing in its panel) and of
   * code runs (the code as it is written) reach the user as they come; the other blocks once they are
   * whole (a web tool's input too: its card shows the query or URL, not its JSON half-written).
   */
  private delta(block: Block | undefined, d: Delta): void {
    switch (d.type) {
      case "text_delta":
        if (block?.type !== "text") return;
        block.text += d.text;
        return this.shown({ type: "text", delta: d.text });
      case "thinking_delta":
        if (block?.type !== "thinking") return;
        block.thinking += d.thinking;
        return this.shown({ type: "thinking", delta: d.thinking });
      case "signature_delta":
        if (block?.type === "thinking") block.signature += d.signature;
        return;
      case "input_json_delta":
        if (block?.type === "server_tool_use") {
          block.json += d.partial_json;
          const name = String(block.raw.name);
          if (d.partial_json && isCodeTool(name)) this.shown({ type: "tool_input", toolUseId: String(block.raw.id), toolName: name, delta: d.partial_json });
        } else if (block?.type === "tool_use") {
          block.json += d.partial_json;
          // Shown like text, so it counts as started: a retry would show the preview twice, under
          // another tool use id. (The API's first piece is often "": nothing to tell.)
          if (d.partial_json) this.shown({ type: "tool_input", toolUseId: block.id, toolName: block.name, delta: d.partial_json });
        }
        return;
      case "citations_delta":
        if (block?.type === "text") (block.citations ??= []).push(d.citation);
        return;
      case "compaction_delta":
        // Kept exactly as sent: the next request returns the block unchanged.
        if (block?.type !== "compaction") return;
        if (d.content !== null) block.content = (block.content ?? "") + d.content;
        if (d.encrypted_content !== null) block.encrypted_content = d.encrypted_content;
    }
  }

  private blockStop(block: Block | undefined): void {
    switch (block?.type) {
      case "tool_use":
        block.input = parsed(block.json, {});
        return this.shown({ type: "tool_call", toolUseId: block.id, toolName: block.name, input: block.input });
      case "server_tool_use":
        block.raw.input = parsed(block.json, block.raw.input ?? {});
        if (isCodeTool(String(block.raw.name))) this.codeWritten.set(String(block.raw.id), Date.now());
        return this.shown({ type: "server_tool_call", toolUseId: String(block.raw.id), toolName: String(block.raw.name), input: block.raw.input });
      case "verbatim": {
        const result = serverToolResult(block.raw);
        if (result) this.shown(result);
        const code = codeResultOf(block.raw);
        const written = code && this.codeWritten.get(code.toolUseId);
        if (code) this.onEvent({ type: "code_result", result: written ? { ...code, durationMs: Date.now() - written } : code });
        return;
      }
      case "text":
        if (block.citations?.length) this.onEvent({ type: "cited", citations: block.citations.map(citationOf) });
        return;
      case "compaction":
        this.onEvent({ type: "compaction" });
    }
  }

  /** Its counts are the response's totals so far; one it leaves out stays as message_start gave it. */
  private messageDelta(ev: Anthropic.Beta.BetaRawMessageDeltaEvent): void {
    this.stopReason = ev.delta.stop_reason ?? this.stopReason;
    const container = (ev.delta as { container?: { id?: unknown; expires_at?: unknown } | null }).container;
    if (typeof container?.id === "string") this.container = { id: container.id, expiresAt: Date.parse(String(container.expires_at)) || 0 };
    const usage = addUsage(usageOf(ev.usage, this.usage), compactionUsage(ev.usage.iterations));
    const serverToolUses = serverToolUsage(ev.usage.server_tool_use);
    if (serverToolUses) usage.serverToolUses = serverToolUses;
    this.setUsage(usage);
  }

  /** The progress has it too: a run that fails from here on is billed for it. */
  private setUsage(usage: Usage): void {
    this.usage = usage;
    this.progress.usage = usage;
  }

  /** From the first thing the user sees, a retry would show it twice. */
  private shown(e: StreamEvent): void {
    this.progress.started = true;
    this.onEvent(e);
  }
}

function blockOf(b: Anthropic.Beta.BetaRawContentBlockStartEvent["content_block"]): Block {
  switch (b.type) {
    case "compaction":
      return { type: "compaction", content: null, encrypted_content: null };
    case "text":
      return { type: "text", text: "", citations: b.citations?.length ? [...b.citations] : null };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: b.data };
    case "tool_use":
      return { type: "tool_use", id: b.id, name: b.name, input: {}, json: "" };
    case "server_tool_use":
      return { type: "server_tool_use", raw: { ...b }, json: "" };
    default:
      return { type: "verbatim", raw: { ...b } };
  }
}

/** A tool's input from its JSON pieces; none at all is `empty`. */
function parsed(json: string, empty: unknown): unknown {
  return json.trim() ? JSON.parse(json) : empty;
}

/** What compacting cost: the iterations the API reports besides the message itself. */
function compactionUsage(iterations: Anthropic.Beta.BetaIterationsUsage | null | undefined): Usage {
  let sum = emptyUsage();
  for (const it of iterations ?? []) if (it.type === "compaction") sum = addUsage(sum, usageOf(it));
  return sum;
}

/** The web tools' requests in this response (message_delta's usage is cumulative). */
function serverToolUsage(s: Anthropic.Beta.BetaServerToolUsage | null | undefined): Record<string, number> | null {
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

/** A citation as clients see it: a web page's URL, or a search result's source (a project's passage). */
function citationOf(c: unknown): Citation {
  const x = c as { url?: string; source?: string; title?: string | null; cited_text?: string; document_title?: string | null };
  return { url: x.url ?? x.source ?? "", title: x.title ?? x.document_title ?? null, citedText: x.cited_text ?? "" };
}

function toParams(blocks: Block[]): ApiContent[] {
  const out: ApiContent[] = [];
  for (const b of blocks) {
    if (!b) continue;
    if (b.type === "compaction") out.push(b);
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
