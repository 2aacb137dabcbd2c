// Type declarations for server.mjs (a fake of Anthropic's streaming Messages API).
import type { Server } from "node:http";

export interface StartFakeUpstreamOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Defaults to "127.0.0.1". */
  host?: string;
  /** Benchmark knob: the default (unscripted) answer becomes this many filler words, one delta each. */
  defaultTokens?: number;
  /** Benchmark knob: delay in ms between the default answer's deltas. Defaults to 0. */
  tokenDelayMs?: number;
}

export interface FakeUpstream {
  /** e.g. "http://127.0.0.1:54321" — use as the SDK's baseURL. */
  url: string;
  port: number;
  /** Closes the server, dropping any open (e.g. hanging) connections. */
  close(): Promise<void>;
  server: Server;
}

export function startFakeUpstream(options?: StartFakeUpstreamOptions): Promise<FakeUpstream>;

// ---------------------------------------------------------------------------
// Control API payloads (POST /_control/scripts, GET /_control/requests)
// ---------------------------------------------------------------------------

export interface StepTiming {
  /** Delay before each content_block_delta (and before a stream_error's error event / a cut); for raw steps, between events. */
  delayMs?: number;
  /** Delay before the response headers are sent. */
  firstByteDelayMs?: number;
}

export interface ThinkingSpec {
  text: string;
  /** Defaults to "sig_" + base64(text). */
  signature?: string;
}

/** Usage counters; any given field overrides the fake's estimate. */
export interface UsageOverride {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /** Blocks steps: replaces the counts computed from the blocks (sent in message_delta only). */
  server_tool_use?: ServerToolUsage;
  [key: string]: unknown;
}

/** usage.server_tool_use as the API reports it in message_delta. */
export interface ServerToolUsage {
  web_search_requests: number;
  web_fetch_requests: number;
}

export interface TextStep extends StepTiming {
  kind: "text";
  text: string;
  /** Number of roughly equal pieces, or the exact deltas. Default: one delta per word (spaces kept). */
  chunks?: number | string[];
  usage?: UsageOverride;
  /** A thinking block streamed before the text. */
  thinking?: ThinkingSpec;
  /** Defaults to "end_turn". */
  stopReason?: string;
}

export interface ToolUseStep extends StepTiming {
  kind: "tool_use";
  /** Each becomes a tool_use block; `id` defaults to a random "toolu_..." id. */
  tools: FakeToolCall[];
  /** Optional text block before the tool_use blocks. */
  text?: string;
  chunks?: number | string[];
  thinking?: ThinkingSpec;
  usage?: UsageOverride;
  /** Defaults to "tool_use". */
  stopReason?: string;
}

/**
 * A tool_use block: content_block_start with `input: {}`, then input_json_delta pieces, the first
 * "" (as the API sends them), each `delayMs` (the step's) after the one before.
 */
export interface FakeToolCall {
  name: string;
  /** Leave out when `chunks` gives the pieces: they are the input then. Default {}. */
  input?: Record<string, unknown>;
  id?: string;
  /**
   * How the input's JSON text is split: a number of roughly equal pieces, or the exact pieces (joined,
   * a JSON object, or POST /_control/scripts answers 400). Default: pieces of about 12 characters.
   */
  chunks?: number | string[];
}

export interface ErrorStep extends StepTiming {
  kind: "error";
  /** e.g. 429, 529, 500, 400. */
  status: number;
  /** Defaults from the status (429 → rate_limit_error, 529 → overloaded_error, ...). */
  type?: string;
  message?: string;
  /** Seconds, sent as the retry-after header. */
  retryAfter?: number;
}

export interface StreamErrorStep extends StepTiming {
  kind: "stream_error";
  /** Text deltas sent before the error event. */
  afterText?: string;
  /** Defaults to "overloaded_error". */
  type?: string;
  message?: string;
  usage?: UsageOverride;
}

export interface CutStep extends StepTiming {
  kind: "cut";
  /** Text deltas sent before the socket is destroyed. */
  afterText?: string;
  usage?: UsageOverride;
}

export interface HangStep extends StepTiming {
  kind: "hang";
  /** Text deltas sent before the stream goes silent (until the client aborts). */
  afterText?: string;
  usage?: UsageOverride;
}

export interface RawStep extends StepTiming {
  kind: "raw";
  /** Sent verbatim as `event: <event>\ndata: <JSON.stringify(data)>\n\n`. */
  events: { event: string; data: unknown }[];
}

/** Benchmarks: `count` text deltas, each `⟨epoch ms⟩` stamped when written. */
export interface ClockStep extends StepTiming {
  kind: "clock";
  count?: number;
}

/**
 * Any sequence of content blocks, as the API streams them: text (with citations), thinking, server
 * tool calls (web_search, web_fetch) with their results, and client tool calls (the memory tool
 * included). Checked when registered: POST /_control/scripts answers 400 for a block that can't be
 * played. A script that calls a server tool the request does not declare gets a 400 at request time.
 *
 * When the client sends these blocks back, the fake checks them as the API does (see
 * server-tools.mjs): each server_tool_use needs its result later in the same assistant turn
 * (consecutive assistant messages are one turn; a request may end with that turn to continue after
 * pause_turn), search results must keep their encrypted_content, citations their required fields.
 */
export interface BlocksStep extends StepTiming {
  kind: "blocks";
  blocks: FakeBlock[];
  /** Default: "tool_use" if any (client) tool_use block, else "end_turn". "pause_turn" ends a turn the client must continue. */
  stopReason?: "end_turn" | "tool_use" | "pause_turn" | "max_tokens" | "stop_sequence" | "refusal" | (string & {});
  /**
   * Without an input_tokens override, message_delta's input_tokens exceeds message_start's by the
   * results' size, as the real API's does. server_tool_use is counted from the result blocks
   * (results with an errorCode are not billed, so not counted) unless given here.
   */
  usage?: UsageOverride;
}

export type FakeBlock =
  | FakeTextBlock
  | FakeThinkingBlock
  | FakeServerToolUseBlock
  | FakeWebSearchToolResultBlock
  | FakeWebFetchToolResultBlock
  | FakeToolUseBlock;

export interface FakeTextBlock {
  type: "text";
  text: string;
  /** As TextStep's. */
  chunks?: number | string[];
  /**
   * With citations the block starts as {"citations":[],"type":"text","text":""} and every
   * citations_delta precedes the first text_delta; without, the start has no `citations` key.
   */
  citations?: FakeCitation[];
}

export interface FakeThinkingBlock {
  type: "thinking";
  text: string;
  /** Defaults to "sig_" + base64(text). */
  signature?: string;
}

/** Streams as content_block_start {type, id, name, input: {}, caller: {type: "direct"}}, then input_json_delta pieces (the first ""). */
export interface FakeServerToolUseBlock {
  type: "server_tool_use";
  name: "web_search" | "web_fetch";
  /** e.g. { query: "..." } or { url: "https://..." }. */
  input: Record<string, unknown>;
  /** Defaults to a random "srvtoolu_01..." id. */
  id?: string;
}

/** Arrives whole in content_block_start (no deltas), with caller {type: "direct"}. */
export interface FakeWebSearchToolResultBlock {
  type: "web_search_tool_result";
  /** Defaults to the id of the latest web_search server_tool_use before it in `blocks`. */
  toolUseId?: string;
  /** Each becomes {type: "web_search_result", title, url, encrypted_content: random base64, page_age: pageAge ?? null}. */
  results?: { title: string; url: string; pageAge?: string }[];
  /** Instead of results: content {type: "web_search_tool_result_error", error_code}, e.g. "max_uses_exceeded", "unavailable". */
  errorCode?: string;
  /** Wait this long before the block (the search running); default 0. */
  delayMs?: number;
}

/**
 * Arrives whole in content_block_start, with caller {type: "direct"}: content {type:
 * "web_fetch_result", url, retrieved_at: "2025-07-17T21:38:38.606000+00:00"-style, content:
 * {type: "document", source: {type: "text", media_type: "text/plain", data: text}, title, citations?}}.
 */
export interface FakeWebFetchToolResultBlock {
  type: "web_fetch_tool_result";
  /** Defaults to the id of the latest web_fetch server_tool_use before it in `blocks`. */
  toolUseId?: string;
  /** Required unless errorCode is given. */
  url?: string;
  /** Defaults to null. */
  title?: string;
  /** The document's text; defaults to "". */
  text?: string;
  /** Adds citations: {enabled: true} to the document. Default: whether the request's web_fetch tool has citations.enabled. */
  citations?: boolean;
  /** Instead of the document: content {type: "web_fetch_tool_result_error", error_code}, e.g. "url_not_accessible". */
  errorCode?: string;
  /** Wait this long before the block (the fetch running); default 0. */
  delayMs?: number;
}

/** A client tool call, e.g. the memory tool: { name: "memory", input: { command: "view", path: "/memories" } }. Has caller {type: "direct"}. */
export interface FakeToolUseBlock {
  type: "tool_use";
  name: string;
  input: Record<string, unknown>;
  /** Defaults to a random "toolu_01..." id. */
  id?: string;
}

export type FakeCitation = FakeWebSearchCitation | FakeCharLocationCitation;

/** Becomes {type: "web_search_result_location", cited_text, url, title, encrypted_index: random base64}. */
export interface FakeWebSearchCitation {
  type?: "web_search_result_location";
  url: string;
  /** Defaults to the title of a search result with this url, in this step or the request's messages, else null. */
  title?: string;
  citedText: string;
}

/** Becomes {type: "char_location", cited_text, document_index, document_title, start_char_index, end_char_index, file_id: null}. */
export interface FakeCharLocationCitation {
  type: "char_location";
  citedText: string;
  /** Defaults to 0. */
  documentIndex?: number;
  /** Defaults to null. */
  documentTitle?: string;
  /** Defaults to 0. */
  startCharIndex?: number;
  /** Defaults to startCharIndex + citedText.length. */
  endCharIndex?: number;
}

export type Step = TextStep | ToolUseStep | ErrorStep | StreamErrorStep | CutStep | HangStep | RawStep | ClockStep | BlocksStep;

/** Body of POST /_control/scripts. */
export interface ScriptRegistration {
  /** A unique token the test puts into its user message. */
  match: string;
  responses: Step[];
}

export interface RecordedRequest {
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (the raw text if it was not JSON). */
  body: any;
  /** Date.now() at arrival. */
  receivedAt: number;
}

/** Body of GET /_control/requests?match=TOKEN. */
export interface RecordedRequests {
  requests: RecordedRequest[];
}
