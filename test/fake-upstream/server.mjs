// A fake of Anthropic's Messages API (`POST /v1/messages`) that streams the
// same SSE wire format as the real API, plus a small HTTP control API so tests
// running in another runtime (workerd) can script answers and inspect what was
// sent. Plain ESM with Node built-ins only, so it runs without a build step.
//
// Wire format checked against @anthropic-ai/sdk's own parser
// (src/core/streaming.ts `_iterSSEMessages`, src/lib/MessageStream.ts
// `#accumulateMessage`) and Anthropic's streaming documentation. Server tools,
// citations and the `blocks` step live in server-tools.mjs; the request's own
// `search_result` blocks (what the API refuses in them, and the
// search_result_location citations a blocks step makes of them) in
// search-results.mjs; the code execution tool (containers, its result blocks, the
// `code` step) in code-execution.mjs; the Files API (/v1/files) in files-api.mjs;
// models, long prompts and compaction in models.mjs; images and documents it
// refuses in files.mjs.
//
// Step kinds (POST /_control/scripts; types in server.d.mts): text, tool_use, blocks,
// code, error, stream_error, cut, hang, raw, clock. `code` is one code execution turn:
//   { kind: "code", text?, command, stdout?, stderr?, returnCode?, files?: [{ name,
//     mediaType?, text | base64, id? }], errorCode?, answer?, version?: "20250522" }
// streams [text] server_tool_use bash_code_execution {command} (code_execution {code}
// for version "20250522"), then its bash_code_execution_tool_result (or
// code_execution_tool_result), then [answer]; the files become downloadable through
// /v1/files/:id/content. Text editor calls and several calls a turn: a `blocks` step.

import { createServer } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { fileRefusal } from "./files.mjs";
import { compactionFor, DEFAULT_CATALOG, listModels, refusal } from "./models.mjs";
import { randomId } from "./ids.mjs";
import { checkBlocksStep, serverToolRefusal, undeclaredServerTool, writeFakeBlocks } from "./server-tools.mjs";
import { codeStepAsBlocks, containerRefusal, containerStats, containerWire, expireContainer, openContainer, producer } from "./code-execution.mjs";
import { createFileStore, failFiles, fileStats, handleFilesApi, MAX_FILE_BYTES } from "./files-api.mjs";
import { requestSearchResults, searchResultRefusal, uncitableSearchResult } from "./search-results.mjs";

/** Recorded requests are capped so long benchmark runs don't grow without bound. */
const MAX_RECORDED_REQUESTS = 2000;

const ERROR_TYPE_BY_STATUS = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

const DEFAULT_ERROR_MESSAGE_BY_TYPE = {
  invalid_request_error: "Invalid request.",
  authentication_error: "invalid x-api-key",
  permission_error: "Your API key does not have permission to use the specified resource.",
  not_found_error: "Not found.",
  rate_limit_error: "Number of request tokens has exceeded your per-minute rate limit.",
  api_error: "Internal server error",
  overloaded_error: "Overloaded",
  timeout_error: "Request timed out.",
};

/** Filler vocabulary for the benchmark's fixed-length default answer. */
const BENCH_WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split(" ");

// ---------------------------------------------------------------------------
// Public entry point
// ---------------------------------------------------------------------------

/**
 * Start the fake upstream.
 * `defaultTokens` / `tokenDelayMs` tune the default (unscripted) answer for
 * benchmarks: N filler words, D ms between deltas. Without `defaultTokens`
 * the default answer echoes the last user message.
 */
export async function startFakeUpstream({ port = 0, host = "127.0.0.1", defaultTokens, tokenDelayMs = 0 } = {}) {
  const state = createState({ defaultTokens, tokenDelayMs });
  const server = createServer({ noDelay: true }, (req, res) => {
    handleRequest(state, req, res).catch((err) => failRequest(res, err));
  });

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  const boundPort = server.address().port;
  return {
    url: `http://${host}:${boundPort}`,
    port: boundPort,
    server,
    close: () => closeServer(server),
  };
}

function createState({ defaultTokens, tokenDelayMs }) {
  return {
    /** @type {{ match: string, steps: object[] }[]} registration order; exhausted scripts are dropped */
    scripts: [],
    /** @type {{ headers: Record<string,string>, bodyText: string, receivedAt: number }[]} */
    requests: [],
    defaultAnswer: { tokens: defaultTokens, tokenDelayMs },
    catalog: DEFAULT_CATALOG,
    /**
     * POST /_control/config: { contextLimitChars?, compactionTriggerChars?, refuseCompaction?, match? };
     * with `match`, only requests that hold it see the config (tests in parallel share the fake).
     */
    config: {},
    /** Compaction blocks issued, by their encrypted_content, to check they come back unchanged. */
    compactions: new Map(),
    /** encrypted_content of the web search results issued (JSON lists, by tool_use_id), likewise. */
    issuedSearches: new Map(),
    /** The Files API's files (uploads and what scripted code made), with upload and download counts. */
    files: createFileStore(),
    /** Code execution containers by id: { id, files: Set<file id>, expired, expiresAt, skills }. */
    containers: new Map(),
  };
}

function closeServer(server) {
  return new Promise((resolve) => {
    // Hanging streams would otherwise keep server.close() waiting forever.
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

// ---------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------

async function handleRequest(state, req, res) {
  const path = new URL(req.url ?? "/", "http://fake").pathname;
  const route = `${req.method} ${path}`;
  if (path === "/v1/files" || path.startsWith("/v1/files/")) {
    return handleFilesApi(state.files, req, res, path, { sendJson, sendApiError, hasApiKey, readRaw });
  }

  switch (route) {
    case "POST /v1/messages":
      return handleMessages(state, req, res);
    case "POST /_control/scripts":
      return handleRegisterScript(state, req, res);
    case "GET /_control/requests":
      return handleListRequests(state, req, res);
    case "GET /v1/models":
      if (!hasApiKey(req.headers)) return sendApiError(res, { status: 401, type: "authentication_error", message: "x-api-key header is required" });
      return sendJson(res, 200, listModels(state, new URL(req.url ?? "/", "http://fake")));
    case "POST /_control/config":
      state.config = safeParseJson(await readBody(req)) ?? {};
      return sendEmpty(res);
    case "POST /_control/reset":
      state.scripts = [];
      state.requests = [];
      state.config = {};
      state.files = createFileStore();
      state.containers = new Map();
      return sendEmpty(res);
    case "GET /_control/files":
      return sendJson(res, 200, fileStats(state.files));
    case "POST /_control/files/limit": {
      const { maxBytes } = safeParseJson(await readBody(req)) ?? {};
      state.files.maxBytes = Number.isInteger(maxBytes) && maxBytes >= 0 ? maxBytes : MAX_FILE_BYTES;
      return sendEmpty(res);
    }
    case "POST /_control/files/fail":
      return failFiles(state.files, safeParseJson(await readBody(req))) ? sendEmpty(res) : sendJson(res, 400, { error: "expected { id | filename, status, type?, message? }" });
    case "GET /_control/containers":
      return sendJson(res, 200, containerStats(state));
    case "POST /_control/containers/expire": {
      const body = safeParseJson(await readBody(req));
      if (typeof body?.id !== "string") return sendJson(res, 400, { error: "expected { id, status?, type?, message? }" });
      return expireContainer(state, body) ? sendEmpty(res) : sendJson(res, 404, { error: `no container ${body.id}` });
    }
    case "GET /_control/health":
      return sendJson(res, 200, { ok: true });
    default:
      return sendApiError(res, { status: 404, type: "not_found_error", message: `Not found: ${route}` });
  }
}

function failRequest(res, err) {
  console.error("[fake-upstream] handler failed:", err);
  if (!res.headersSent) sendApiError(res, { status: 500, type: "api_error", message: String(err) });
  else res.destroy();
}

// ---------------------------------------------------------------------------
// Control API
// ---------------------------------------------------------------------------

async function handleRegisterScript(state, req, res) {
  const body = safeParseJson(await readBody(req));
  const valid =
    body && typeof body.match === "string" && body.match.length > 0 && Array.isArray(body.responses);
  if (!valid) {
    return sendJson(res, 400, { error: "expected { match: non-empty string, responses: Step[] }" });
  }
  for (const [i, step] of body.responses.entries()) {
    const problem = step?.kind === "blocks" ? checkBlocksStep(step) : step?.kind === "tool_use" ? checkToolUseStep(step) : step?.kind === "code" ? checkCodeStep(step) : null;
    if (problem) return sendJson(res, 400, { error: `responses[${i}]: ${problem}` });
  }
  state.scripts.push({ match: body.match, steps: [...body.responses] });
  sendEmpty(res);
}

function handleListRequests(state, req, res) {
  const match = new URL(req.url ?? "/", "http://fake").searchParams.get("match");
  const requests = state.requests
    .filter((r) => match === null || r.bodyText.includes(match))
    .map((r) => ({ headers: r.headers, body: safeParseJson(r.bodyText) ?? r.bodyText, receivedAt: r.receivedAt }));
  sendJson(res, 200, { requests });
}

function recordRequest(state, headers, bodyText) {
  state.requests.push({ headers, bodyText, receivedAt: performance.timeOrigin + performance.now() });
  if (state.requests.length > MAX_RECORDED_REQUESTS) {
    state.requests.splice(0, state.requests.length - MAX_RECORDED_REQUESTS);
  }
}

/** Most recently registered script whose token is in the request and still has steps; consumes one step. */
function takeScriptedStep(state, bodyText) {
  for (let i = state.scripts.length - 1; i >= 0; i--) {
    const script = state.scripts[i];
    if (!bodyText.includes(script.match)) continue;
    const step = script.steps.shift();
    if (script.steps.length === 0) state.scripts.splice(i, 1);
    return step;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// /v1/messages
// ---------------------------------------------------------------------------

/** The Messages API's limit on a request's size. */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

async function handleMessages(state, req, res) {
  const rawText = await readBody(req);
  if (Buffer.byteLength(rawText) > MAX_REQUEST_BYTES) {
    recordRequest(state, lowerCaseHeaders(req.headers), rawText);
    return sendApiError(res, { status: 413, type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." });
  }
  const body = safeParseJson(rawText);
  // Tokens are matched against the re-stringified body, as documented, so the
  // client's JSON formatting doesn't matter.
  const bodyText = body === undefined ? rawText : JSON.stringify(body);
  recordRequest(state, lowerCaseHeaders(req.headers), bodyText);

  if (!hasApiKey(req.headers)) {
    return sendApiError(res, { status: 401, type: "authentication_error", message: "x-api-key header is required" });
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    return sendApiError(res, { status: 400, type: "invalid_request_error", message: "Request body must be a JSON object." });
  }

  const headers = lowerCaseHeaders(req.headers);
  const applies = !state.config.match || bodyText.includes(state.config.match);
  const scoped = applies ? state : { ...state, config: {} };
  const size = promptSize(body, bodyText);
  const refused = refusal(scoped, body, headers, size) ?? serverToolRefusal(state, body) ?? searchResultRefusal(body) ?? fileRefusal(body) ?? containerRefusal(state, body);
  if (refused) return sendApiError(res, refused);
  const step = takeScriptedStep(state, bodyText) ?? defaultStep(state.defaultAnswer, body);
  const container = openContainer(state, body);
  const context = {
    container,
    produceFile: producer(state, container),
    model: typeof body.model === "string" ? body.model : "claude-fake",
    inputTokens: Math.max(1, Math.ceil(size / 4)),
    compaction: compactionFor(scoped, body, headers, size),
    tools: Array.isArray(body.tools) ? body.tools : [],
    messages: Array.isArray(body.messages) ? body.messages : [],
    issuedSearches: state.issuedSearches,
    /** The request's search_result blocks, in the order search_result_index counts them. */
    searchResults: requestSearchResults(body.messages),
  };
  const plan = planStep(step, context);

  if (step.firstByteDelayMs) await sleep(step.firstByteDelayMs);
  if (body.stream === true) await sendStream(res, plan);
  else await sendNonStream(res, plan);
}

/**
 * The request's size in characters, about 4 a token: its JSON, but an image inline (base64) counted as
 * the 1,600 tokens an image costs, as the API counts it, not by its data's length.
 */
function promptSize(body, bodyText) {
  let size = bodyText.length;
  const visit = (blocks) => {
    if (!Array.isArray(blocks)) return;
    for (const b of blocks) {
      if (b?.type === "image" && b.source?.type === "base64" && typeof b.source.data === "string") size += 1_600 * 4 - b.source.data.length;
      if (b?.type === "tool_result") visit(b.content);
    }
  };
  for (const m of Array.isArray(body.messages) ? body.messages : []) visit(m?.content);
  return size;
}

function hasApiKey(headers) {
  const bearer = /^Bearer\s+\S+/i.test(headers.authorization ?? "");
  return bearer || Boolean(headers["x-api-key"]);
}

// ---------------------------------------------------------------------------
// Default answer
// ---------------------------------------------------------------------------

function defaultStep(defaultAnswer, body) {
  if (defaultAnswer.tokens !== undefined) {
    const words = Array.from({ length: defaultAnswer.tokens }, (_, i) => BENCH_WORDS[i % BENCH_WORDS.length]);
    return { kind: "text", text: words.join(" "), delayMs: defaultAnswer.tokenDelayMs };
  }
  return { kind: "text", text: echoText(body), delayMs: defaultAnswer.tokenDelayMs };
}

/** "Echo: <last user text>", or "Tool said: <result>" when the last user turn carries tool results. */
function echoText(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const lastUser = messages.findLast((m) => m?.role === "user");
  if (!lastUser) return "Echo: ";
  if (typeof lastUser.content === "string") return `Echo: ${lastUser.content}`;

  const blocks = Array.isArray(lastUser.content) ? lastUser.content : [];
  const toolResults = blocks.filter((b) => b?.type === "tool_result");
  if (toolResults.length > 0) {
    return `Tool said: ${toolResults.map((b) => contentAsText(b.content)).join("\n")}`;
  }
  const lastText = blocks.findLast((b) => b?.type === "text");
  return `Echo: ${lastText?.text ?? ""}`;
}

/** A tool result's text: its text blocks, and the text of its search results. */
function contentAsText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => (b?.type === "text" ? b.text : b?.type === "search_result" ? contentAsText(b.content) : ""))
    .join("");
}

// ---------------------------------------------------------------------------
// Planning: a step becomes either an HTTP error or a list of SSE events plus
// how the stream ends ("end" | "cut" | "hang"). Each event may carry the delay
// to wait before sending it.
// ---------------------------------------------------------------------------

function planStep(step, context) {
  switch (step.kind) {
    case "text":
    case "tool_use":
      return planMessage(step, context);
    case "blocks":
      return planBlocks(step, context);
    case "code":
      return planBlocks(codeStepAsBlocks(step), context);
    case "error":
      return planHttpError(step);
    case "stream_error":
      return planStreamError(step, context);
    case "cut":
      return planPartialText(step, context, "cut");
    case "hang":
      return planPartialText(step, context, "hang");
    case "raw":
      return planRaw(step);
    case "clock":
      return planClock(step, context);
    default:
      return planHttpError({ status: 400, message: `fake-upstream: unknown step kind ${JSON.stringify(step.kind)}` });
  }
}

function planMessage(step, context) {
  const delayMs = step.delayMs ?? 0;
  const blocks = new BlockWriter(delayMs);
  if (context.compaction) blocks.compaction(context.compaction);
  if (step.thinking) blocks.thinking(step.thinking);
  if (step.kind === "text") blocks.text(step.text ?? "", step.chunks);
  if (step.kind === "tool_use") {
    if (step.text) blocks.text(step.text, step.chunks);
    for (const tool of step.tools ?? []) blocks.toolUse(tool);
  }

  const stopReason = step.stopReason ?? (step.kind === "tool_use" ? "tool_use" : "end_turn");
  const usage = makeUsage(context, step.usage, blocks.outputChars);
  return wholeMessage(context, blocks, stopReason, usage, finalUsage(usage));
}

/** Any sequence of blocks, server tool calls and their results included (see server-tools.mjs). */
function planBlocks(step, context) {
  const undeclared = undeclaredServerTool(step, context.tools);
  if (undeclared) return planHttpError({ status: 400, message: undeclared });
  // The script cites a search result the request does not hold (or not citable): the script is wrong, not the client.
  const uncitable = uncitableSearchResult(step.blocks, context.searchResults);
  if (uncitable) {
    console.error(`[fake-upstream] ${uncitable}`);
    return planHttpError({ status: 500, type: "api_error", message: uncitable });
  }

  const blocks = new BlockWriter(step.delayMs ?? 0);
  if (context.compaction) blocks.compaction(context.compaction);
  const written = writeFakeBlocks(blocks, step.blocks, context);

  const stopReason = step.stopReason ?? (written.clientToolUse ? "tool_use" : "end_turn");
  const { server_tool_use: serverToolOverride, ...override } = step.usage ?? {};
  const usage = makeUsage(context, override, blocks.outputChars);
  const final = finalUsage(usage);
  // The results were read by the model, so the whole message bills them as input; the counts of
  // server tool calls come in message_delta only.
  if (override.input_tokens === undefined) final.input_tokens += written.resultTokens;
  const serverToolUse = serverToolOverride ?? written.serverToolUse;
  if (serverToolUse) final.server_tool_use = serverToolUse;
  return wholeMessage(context, blocks, stopReason, usage, final);
}

/** message_start, the blocks, then message_delta (with `final` usage) and message_stop. */
function wholeMessage(context, blocks, stopReason, usage, final) {
  return {
    type: "sse",
    ending: "end",
    events: [
      messageStartEvent(context, usage),
      ...blocks.events,
      sse("message_delta", {
        type: "message_delta",
        // The container is reported here only, never in message_start (as the recorded streams have it).
        delta: { stop_reason: stopReason, stop_sequence: null, ...(context.container ? { container: containerWire(context.container) } : {}) },
        usage: { ...final, ...(context.compaction ? { iterations: compactionIterations(usage) } : {}) },
      }),
      sse("message_stop", { type: "message_stop" }),
    ],
  };
}

/** A compacting answer bills two iterations: the summary, then the message. */
function compactionIterations(usage) {
  return [
    { type: "compaction", input_tokens: usage.input_tokens, output_tokens: 200, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    { type: "message", input_tokens: 400, output_tokens: usage.output_tokens, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  ];
}

function planHttpError(step) {
  const status = step.status ?? 500;
  const type = step.type ?? ERROR_TYPE_BY_STATUS[status] ?? "api_error";
  return {
    type: "http_error",
    status,
    body: errorBody(type, step.message),
    headers: step.retryAfter !== undefined ? { "retry-after": String(step.retryAfter) } : {},
  };
}

function planStreamError(step, context) {
  const { events } = planPartialText(step, context, "end");
  const error = sse("error", errorBody(step.type ?? "overloaded_error", step.message));
  error.delayMs = step.delayMs ?? 0;
  return { type: "sse", ending: "end", events: [...events, error] };
}

/** message_start plus an unfinished text block: the shared prefix of stream_error, cut and hang. */
function planPartialText(step, context, ending) {
  const blocks = new BlockWriter(step.delayMs ?? 0);
  if (step.afterText) blocks.text(step.afterText, undefined, { open: true });
  const usage = makeUsage(context, step.usage, 0);
  const events = [messageStartEvent(context, usage), ...blocks.events];
  return { type: "sse", ending, events, endDelayMs: step.delayMs ?? 0 };
}

function planRaw(step) {
  const events = (step.events ?? []).map((e, i) => ({ ...sse(e.event, e.data), delayMs: i === 0 ? 0 : step.delayMs ?? 0 }));
  return { type: "sse", ending: "end", events };
}

/**
 * For benchmarks: `count` text deltas, each carrying the moment it was written as `⟨epoch ms⟩`
 * (performance.timeOrigin + performance.now()), so a client in the same process can measure the
 * latency of every token end to end.
 */
function planClock(step, context) {
  const stamp = () => ({
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: `⟨${(performance.timeOrigin + performance.now()).toFixed(3)}⟩` },
  });
  const deltas = Array.from({ length: step.count ?? 50 }, () => ({ event: "content_block_delta", data: stamp, delayMs: step.delayMs ?? 0 }));
  const usage = makeUsage(context, undefined, (step.count ?? 50) * 18);
  return {
    type: "sse",
    ending: "end",
    events: [
      messageStartEvent(context, usage),
      sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      ...deltas,
      sse("content_block_stop", { type: "content_block_stop", index: 0 }),
      sse("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: finalUsage(usage) }),
      sse("message_stop", { type: "message_stop" }),
    ],
  };
}

/** Builds content_block_* events with consecutive indexes, the way the API numbers them. */
class BlockWriter {
  events = [];
  outputChars = 0;
  #index = 0;
  #pinged = false;

  constructor(delayMs) {
    this.delayMs = delayMs;
  }

  thinking({ text, signature }) {
    const index = this.#start({ type: "thinking", thinking: "", signature: "" });
    for (const piece of splitWords(text)) this.#delta(index, { type: "thinking_delta", thinking: piece });
    // The API sends the signature as a single delta right before the block stops.
    const sig = signature ?? defaultSignature(text);
    this.#delta(index, { type: "signature_delta", signature: sig });
    this.#stop(index);
  }

  /** The compaction block opens the answer: its summary and opaque state arrive in one delta. */
  compaction({ content, encrypted_content }) {
    const index = this.#start({ type: "compaction", content: null, encrypted_content: null });
    this.#delta(index, { type: "compaction_delta", content, encrypted_content });
    this.#stop(index);
  }

  /**
   * A cited block starts as {"citations":[],...} and sends all its citations before its text, as the
   * API does; an uncited one has no `citations` key.
   */
  text(text, chunks, { open = false, citations = [] } = {}) {
    const index = this.#start(citations.length > 0 ? { citations: [], type: "text", text: "" } : { type: "text", text: "" });
    for (const citation of citations) this.#delta(index, { type: "citations_delta", citation });
    for (const piece of splitText(text, chunks)) this.#delta(index, { type: "text_delta", text: piece });
    if (!open) this.#stop(index);
  }

  /** `chunks`: how its input's JSON is split (see jsonPieces). */
  toolUse({ name, input = {}, id, chunks }) {
    this.toolInput({ type: "tool_use", id: id ?? randomId("toolu_"), name, input: {} }, input, chunks);
  }

  /** tool_use and server_tool_use: the block starts with `input: {}`, then the JSON comes in pieces. */
  toolInput(contentBlock, input, chunks) {
    const index = this.#start(contentBlock);
    for (const piece of jsonPieces(input, chunks)) {
      this.#delta(index, { type: "input_json_delta", partial_json: piece });
    }
    this.#stop(index);
  }

  /** A block that arrives complete in content_block_start (server tool results), `delayMs` after the previous event. */
  whole(contentBlock, { delayMs = 0 } = {}) {
    const index = this.#start(contentBlock, delayMs);
    this.#stop(index);
  }

  #start(contentBlock, delayMs = 0) {
    const index = this.#index++;
    const start = sse("content_block_start", { type: "content_block_start", index, content_block: contentBlock });
    start.delayMs = delayMs;
    this.events.push(start);
    // The real API emits one ping right after the first block starts.
    if (!this.#pinged) {
      this.events.push(sse("ping", { type: "ping" }));
      this.#pinged = true;
    }
    return index;
  }

  #delta(index, delta) {
    this.outputChars += (delta.text ?? delta.thinking ?? delta.partial_json ?? "").length;
    const event = sse("content_block_delta", { type: "content_block_delta", index, delta });
    event.delayMs = this.delayMs;
    this.events.push(event);
  }

  #stop(index) {
    this.events.push(sse("content_block_stop", { type: "content_block_stop", index }));
  }
}

function messageStartEvent(context, usage) {
  return sse("message_start", {
    type: "message_start",
    message: {
      id: randomId("msg_"),
      type: "message",
      role: "assistant",
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: Math.min(usage.output_tokens, 1) },
    },
  });
}

function makeUsage(context, override, outputChars) {
  return {
    input_tokens: context.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
    service_tier: "standard",
    ...override,
  };
}

/** message_delta carries cumulative totals of the token counters, not the service tier. */
function finalUsage(usage) {
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = usage;
  return { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens };
}

function errorBody(type, message) {
  return {
    type: "error",
    error: { type, message: message ?? DEFAULT_ERROR_MESSAGE_BY_TYPE[type] ?? "Error" },
    request_id: randomId("req_"),
  };
}

function sse(event, data) {
  return { event, data, delayMs: 0 };
}

// ---------------------------------------------------------------------------
// Text splitting
// ---------------------------------------------------------------------------

/** Per word, keeping the whitespace attached to the preceding word ("Hello ", "world"). */
function splitWords(text) {
  if (!text) return [];
  return text.split(/(?<=\s)(?=\S)/);
}

function splitText(text, chunks) {
  if (Array.isArray(chunks)) return chunks;
  if (typeof chunks === "number") return splitEvenly(text, chunks);
  return splitWords(text);
}

/** Splits on code points so a surrogate pair never lands in two deltas. */
function splitEvenly(text, count) {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / Math.max(1, count)));
  const pieces = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces;
}

/**
 * Like the API: an empty first fragment, then the input's JSON text in pieces: `chunks` of them
 * (a number), exactly the pieces given (an array, which then is the input: `input` is not used), or
 * by default pieces of about 12 characters (at least two).
 */
function jsonPieces(input, chunks) {
  if (Array.isArray(chunks)) return ["", ...chunks];
  const json = JSON.stringify(input);
  return ["", ...splitEvenly(json, typeof chunks === "number" ? chunks : Math.max(2, Math.ceil(json.length / 12)))];
}

/** A code step needs its command (or code), and must make a blocks step that can be played. */
function checkCodeStep(step) {
  if (typeof (step.command ?? step.code) !== "string") return "a code step needs a `command` (or `code`, for version 20250522) string";
  return checkBlocksStep(codeStepAsBlocks(step));
}

/** A tool's pieces given as an array must make a JSON object, or the SDK could not parse the input. */
function checkToolUseStep(step) {
  for (const [i, tool] of (step.tools ?? []).entries()) {
    if (!Array.isArray(tool?.chunks)) continue;
    if (!tool.chunks.every((c) => typeof c === "string")) return `tools[${i}].chunks must be strings`;
    const input = safeParseJson(tool.chunks.join(""));
    if (!input || typeof input !== "object" || Array.isArray(input)) return `tools[${i}].chunks must join to a JSON object`;
  }
  return null;
}

function defaultSignature(text) {
  return "sig_" + Buffer.from(text, "utf8").toString("base64");
}

// ---------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------

async function sendStream(res, plan) {
  if (plan.type === "http_error") return sendApiError(res, plan);

  const closed = whenClosed(res);
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": randomId("req_"),
  });
  res.flushHeaders();

  for (const event of plan.events) {
    if (event.delayMs && (await sleepUnlessClosed(event.delayMs, closed))) return;
    if (res.destroyed) return;
    const data = typeof event.data === "function" ? event.data() : event.data; // clock steps stamp at send time
    await writeChunk(res, `event: ${event.event}\ndata: ${JSON.stringify(data)}\n\n`, closed);
  }

  if (plan.ending === "cut") {
    if (plan.endDelayMs && (await sleepUnlessClosed(plan.endDelayMs, closed))) return;
    // No terminating chunk: the client sees the connection drop mid-body.
    res.socket?.destroy();
  } else if (plan.ending === "hang") {
    await closed.promise; // nothing more is ever sent; return once the client gives up
  } else {
    res.end();
  }
}

/** Non-streaming requests get the message the stream would have assembled. */
async function sendNonStream(res, plan) {
  if (plan.type === "http_error") return sendApiError(res, plan);
  if (plan.ending === "cut") {
    res.socket?.destroy();
    return;
  }
  if (plan.ending === "hang") {
    await whenClosed(res).promise;
    return;
  }

  const { message, error } = assembleMessage(plan.events);
  if (error) return sendJson(res, 500, error);
  sendJson(res, 200, message, { "request-id": randomId("req_") });
}

function assembleMessage(events) {
  let message;
  for (const { data } of events) {
    switch (data?.type) {
      case "error":
        return { error: data };
      case "message_start":
        message = structuredClone(data.message);
        break;
      case "content_block_start":
        message?.content.push(structuredClone(data.content_block));
        break;
      case "content_block_delta":
        applyDelta(message?.content[data.index], data.delta);
        break;
      case "content_block_stop":
        finishBlock(message?.content[data.index]);
        break;
      case "message_delta":
        if (message) Object.assign(message, data.delta, { usage: { ...message.usage, ...data.usage } });
        break;
    }
  }
  return { message };
}

function applyDelta(block, delta) {
  if (!block) return;
  if (delta.type === "text_delta") block.text += delta.text;
  if (delta.type === "citations_delta") block.citations = [...(block.citations ?? []), delta.citation];
  if (delta.type === "thinking_delta") block.thinking += delta.thinking;
  if (delta.type === "signature_delta") block.signature = delta.signature;
  if (delta.type === "input_json_delta") block.partialJson = (block.partialJson ?? "") + delta.partial_json;
}

function finishBlock(block) {
  if (block?.partialJson === undefined) return;
  block.input = safeParseJson(block.partialJson) ?? {};
  delete block.partialJson;
}

function sendApiError(res, { status, type, message, body, headers = {} }) {
  const errBody = body ?? errorBody(type, message);
  sendJson(res, status, errBody, { "request-id": errBody.request_id, ...headers });
}

function sendJson(res, status, value, headers = {}) {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendEmpty(res) {
  res.writeHead(204);
  res.end();
}

// ---------------------------------------------------------------------------
// Small I/O helpers
// ---------------------------------------------------------------------------

/** The body as bytes (uploads are binary). */
function readRaw(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function readBody(req) {
  return (await readRaw(req)).toString("utf8");
}

/** Resolves once the write is handed to the socket (so a following destroy() can't drop it) or the client is gone. */
function writeChunk(res, text, closed) {
  const written = new Promise((resolve) => res.write(text, () => resolve()));
  return Promise.race([written, closed.promise]);
}

/** A promise (plus abort signal) that settles when the client connection closes. */
function whenClosed(res) {
  const controller = new AbortController();
  const promise = new Promise((resolve) => {
    const onClose = () => {
      controller.abort();
      resolve();
    };
    // The client may already have left during firstByteDelayMs.
    if (res.closed || res.destroyed) onClose();
    else res.once("close", onClose);
  });
  return { promise, signal: controller.signal };
}

/** Waits `ms`; returns true if the client went away meanwhile (so the caller stops). */
async function sleepUnlessClosed(ms, closed) {
  try {
    await sleep(ms, undefined, { signal: closed.signal });
    return false;
  } catch {
    return true;
  }
}

function lowerCaseHeaders(headers) {
  const out = {};
  for (const [key, value] of Object.entries(headers)) {
    out[key.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

function safeParseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
