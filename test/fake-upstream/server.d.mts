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
 * pause_turn), search results must keep their encrypted_content, citations their required fields
 * (search_result_location ones only that: the search result they cite need not be in the request).
 *
 * A text block can cite the request's own `search_result` blocks (FakeSearchResultCitation). The
 * fake refuses, as the API does, search results it would not take (see search-results.mjs): source
 * and title strings (source non-empty), content one or more text blocks with non-whitespace text,
 * citations enabled on all of a request's search results or on none (on all of them when the web
 * search tool is declared), only in user messages, and a tool_result that holds one holds only them.
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
  | FakeCodeResultBlock
  | FakeTextEditorResultBlock
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

/**
 * Streams as content_block_start {type, id, name, input: {}, caller: {type: "direct"}}, then input_json_delta
 * pieces (the first ""). The code execution tool's calls have no `caller`, as the API streams them. The
 * request must declare the tool: web_search / web_fetch, or code_execution_* (named "code_execution") for
 * the last three; bash_code_execution and text_editor_code_execution need code_execution_20250825 or later.
 */
export interface FakeServerToolUseBlock {
  type: "server_tool_use";
  name: "web_search" | "web_fetch" | "code_execution" | "bash_code_execution" | "text_editor_code_execution";
  /** e.g. { query: "..." }, { url: "https://..." }, { command: "ls" }, { command: "view", path: "/tmp/a.py" }, { code: "print(1)" }. */
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

/**
 * The result of a bash_code_execution call (or, as code_execution_tool_result, of a code_execution call),
 * whole in content_block_start, no caller: {type, tool_use_id, content: {type: "bash_code_execution_result",
 * stdout, stderr, return_code, content: [{type: "bash_code_execution_output", file_id}]}} (code_execution_result
 * / code_execution_output for the other). Each of `files` becomes a downloadable file (GET
 * /v1/files/:id/content) in the request's container.
 */
export interface FakeCodeResultBlock {
  type: "bash_code_execution_tool_result" | "code_execution_tool_result";
  /** Defaults to the id of the latest matching server_tool_use before it in `blocks`. */
  toolUseId?: string;
  /** Defaults to "". */
  stdout?: string;
  /** Defaults to "". */
  stderr?: string;
  /** Defaults to 0. */
  returnCode?: number;
  files?: FakeProducedFile[];
  /** Instead of the result: content {type: "bash_code_execution_tool_result_error", error_code}, e.g. "execution_time_exceeded", "unavailable". */
  errorCode?: string;
  /** Wait this long before the block (the code running); default 0. */
  delayMs?: number;
}

/** A file the scripted code made. */
export interface FakeProducedFile {
  /** Its filename in the Files API. */
  name: string;
  /** Defaults from the extension (text/csv, image/png, ...), else application/octet-stream. */
  mediaType?: string;
  /** The bytes, as UTF-8 text or base64. */
  text?: string;
  base64?: string;
  /** Defaults to a random "file_01..." id. */
  id?: string;
}

/** The result of a text_editor_code_execution call, whole in content_block_start, no caller. */
export interface FakeTextEditorResultBlock {
  type: "text_editor_code_execution_tool_result";
  toolUseId?: string;
  /**
   * Sent as given, in the API's shape: {type: "text_editor_code_execution_view_result", file_type, content,
   * num_lines, start_line, total_lines}, {type: "text_editor_code_execution_create_result", is_file_update}
   * or {type: "text_editor_code_execution_str_replace_result", old_start, old_lines, new_start, new_lines, lines}.
   */
  content?: Record<string, unknown>;
  /** Instead: {type: "text_editor_code_execution_tool_result_error", error_code, error_message}, e.g. "file_not_found". */
  errorCode?: string;
  /** Defaults to null. */
  errorMessage?: string;
  delayMs?: number;
}

/**
 * One code execution turn: [text], a bash_code_execution call {command} and its result, [answer]. With
 * version "20250522" (Python only): a code_execution call {code} and a code_execution_tool_result. The
 * request must declare a code execution tool; its message_delta then carries the container (see
 * server-tools.mjs / code-execution.mjs). Checked when registered, like a blocks step.
 */
export interface CodeStep extends StepTiming {
  kind: "code";
  /** The bash command (version 20250825 and later). */
  command?: string;
  /** The Python code (version 20250522). */
  code?: string;
  version?: "20250522" | "20250825";
  /** A text block before the call. */
  text?: string;
  /** A text block after the result. */
  answer?: string;
  /** The call's id; defaults to a random "srvtoolu_01..." id. */
  id?: string;
  stdout?: string;
  stderr?: string;
  returnCode?: number;
  files?: FakeProducedFile[];
  errorCode?: string;
  /** Wait this long before the result (the code running). */
  resultDelayMs?: number;
  stopReason?: BlocksStep["stopReason"];
  usage?: UsageOverride;
}

/** A client tool call, e.g. the memory tool: { name: "memory", input: { command: "view", path: "/memories" } }. Has caller {type: "direct"}. */
export interface FakeToolUseBlock {
  type: "tool_use";
  name: string;
  input: Record<string, unknown>;
  /** Defaults to a random "toolu_01..." id. */
  id?: string;
}

export type FakeCitation = FakeWebSearchCitation | FakeCharLocationCitation | FakeSearchResultCitation;

/** Becomes {type: "web_search_result_location", cited_text, url, title, encrypted_index: random base64}. */
export interface FakeWebSearchCitation {
  type?: "web_search_result_location";
  url: string;
  /** Defaults to the title of a search result with this url, in this step or the request's messages, else null. */
  title?: string;
  citedText: string;
}

/**
 * Cites blocks [start, end) of the request's search result number `searchResult`, and becomes what
 * the API sends: {type: "search_result_location", cited_text, source, title, search_result_index,
 * start_block_index, end_block_index}, cited_text being those blocks' text concatenated (joined with
 * ""), source and title the search result's. Search results are numbered from 0 across the whole
 * request in order of appearance: top level in user turns and inside tool_result content alike.
 * Checked when registered (indexes, end > start); when played, a request without that search result
 * or those blocks, or whose search result has no citations: {enabled: true}, gets a 500
 * "fake-upstream: blocks[i].citations[k] cannot be played: …" (the script is wrong, not the client).
 */
export interface FakeSearchResultCitation {
  type?: "search_result_location";
  /** 0-based index of the cited search_result block in the request. */
  searchResult: number;
  /** First cited block of its content; defaults to 0. */
  start?: number;
  /** Exclusive end, greater than start; defaults to start + 1 (one block). */
  end?: number;
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

export type Step = TextStep | ToolUseStep | ErrorStep | StreamErrorStep | CutStep | HangStep | RawStep | ClockStep | BlocksStep | CodeStep;

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

// ---------------------------------------------------------------------------
// Files API and containers (GET /_control/files, GET /_control/containers)
// ---------------------------------------------------------------------------

/** The Files API's metadata, as GET /v1/files/:id answers it. */
export interface FakeFileMetadata {
  id: string;
  type: "file";
  filename: string;
  mime_type: string;
  size_bytes: number;
  /** e.g. "2026-07-30T18:53:29.651134Z". */
  created_at: string;
  /** True only for files the (scripted) code made. */
  downloadable: boolean;
  /** Only for uploads given expires_in_seconds. */
  expires_at?: string;
}

/** Body of GET /_control/files. Deleted files are gone from `files`; the counts keep them. */
export interface FileStats {
  /** Successful POST /v1/files. */
  uploads: number;
  /** Successful GET /v1/files/:id/content. */
  downloads: number;
  files: (FakeFileMetadata & { source: "upload" | "code"; downloads: number })[];
}

/** An entry of GET /_control/containers' `containers`. */
export interface ContainerStats {
  id: string;
  expires_at: string;
  /** Set with POST /_control/containers/expire { id, status?, type?, message? }. */
  expired: boolean;
  /** Files copied in by container_upload blocks and made by scripted code. */
  files: string[];
}
