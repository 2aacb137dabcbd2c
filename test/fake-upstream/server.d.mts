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
  [key: string]: unknown;
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
  tools: { name: string; input: Record<string, unknown>; id?: string }[];
  /** Optional text block before the tool_use blocks. */
  text?: string;
  chunks?: number | string[];
  thinking?: ThinkingSpec;
  usage?: UsageOverride;
  /** Defaults to "tool_use". */
  stopReason?: string;
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

export type Step = TextStep | ToolUseStep | ErrorStep | StreamErrorStep | CutStep | HangStep | RawStep | ClockStep;

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
