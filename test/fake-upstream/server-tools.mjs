// Server tools (web_search, web_fetch), citations and client tool calls such as the memory tool,
// for the fake Messages API: the `blocks` step that streams them, and the checks the real API
// makes when they come back in a later request.
//
// Wire shapes follow @anthropic-ai/sdk 1.12's types (ServerToolUseBlock, WebSearchToolResultBlock,
// WebFetchToolResultBlock, CitationsDelta, ServerToolUsage) and streams recorded from the real API
// (vercel/ai packages/anthropic/src/__fixtures__/anthropic-web-search-tool.1.chunks.txt,
// anthropic-web-fetch-tool*.chunks.txt):
//   - server_tool_use starts with `input: {}`, then input_json_delta pieces, the first one "";
//   - a result block arrives whole in content_block_start, followed at once by content_block_stop;
//   - a cited text block starts as {"citations":[],"type":"text","text":""} and sends every
//     citations_delta before its first text_delta; an uncited one has no `citations` key at all;
//   - usage.server_tool_use is in message_delta only, never in message_start;
//   - message_delta's input_tokens includes what the results added to the prompt, so it is larger
//     than message_start's.
// A text block may also cite the request's own search_result blocks (search_result_location citations,
// streamed the same way); those blocks, their rules and their citations are in search-results.mjs.
// The code execution tool's calls and results go through here too; their shapes are in code-execution.mjs.
import { randomBytes } from "node:crypto";
import { randomId } from "./ids.mjs";
import { checkCodeResult, CODE_RESULT_TYPE, CODE_TOOL_NAMES, codeResultContent, codeToolMismatch } from "./code-execution.mjs";
import { checkSearchResultCitation, isSearchResultCitation, searchResultLocation } from "./search-results.mjs";

/** Which result block answers which server tool. */
const RESULT_TYPE = { web_search: "web_search_tool_result", web_fetch: "web_fetch_tool_result", ...CODE_RESULT_TYPE };
const TOOL_OF_RESULT = Object.fromEntries(Object.entries(RESULT_TYPE).map(([tool, result]) => [result, tool]));

/** The tool a request declares for each server tool the model calls: the code execution tool runs all three of its. */
const DECLARED_AS = Object.fromEntries(CODE_TOOL_NAMES.map((name) => [name, "code_execution"]));

const FAKE_BLOCK_TYPES = new Set(["text", "thinking", "server_tool_use", "tool_use", ...Object.keys(TOOL_OF_RESULT)]);

/** Issued search results are remembered to check they come back unchanged; capped like the request log. */
const MAX_ISSUED_SEARCHES = 2000;

/** What the API sends as `caller` on tool calls and results the model made itself (not from code execution). */
const direct = () => ({ type: "direct" });

// ---------------------------------------------------------------------------
// Script registration
// ---------------------------------------------------------------------------

/** Why a `blocks` step can never be played, or null. Checked when the script is registered, so a test fails at its cause. */
export function checkBlocksStep(step) {
  if (!Array.isArray(step.blocks) || step.blocks.length === 0) return "a blocks step needs a non-empty `blocks` array";
  const seen = new Set();
  for (const [i, block] of step.blocks.entries()) {
    const at = `blocks[${i}]`;
    if (!FAKE_BLOCK_TYPES.has(block?.type)) return `${at}: unknown block type ${JSON.stringify(block?.type)}`;
    if (block.type === "server_tool_use") {
      if (!RESULT_TYPE[block.name]) return `${at}: server_tool_use name must be one of ${Object.keys(RESULT_TYPE).join(", ")}`;
      seen.add(block.name);
    }
    const tool = TOOL_OF_RESULT[block.type];
    if (tool && block.toolUseId === undefined && !seen.has(tool)) return `${at}: ${block.type} needs a toolUseId or an earlier ${tool} server_tool_use`;
    if (block.type === "web_fetch_tool_result" && block.errorCode === undefined && typeof block.url !== "string") return `${at}: web_fetch_tool_result needs a url`;
    const codeProblem = CODE_TOOL_NAMES.includes(tool) ? checkCodeResult(block) : null;
    if (codeProblem) return `${at}: ${codeProblem}`;
    if ((block.type === "tool_use" || block.type === "server_tool_use") && block.input !== undefined && !isObject(block.input)) return `${at}: input must be an object`;
    if (block.type === "tool_use" && typeof block.name !== "string") return `${at}: tool_use needs a name`;
    if (block.type === "text" && block.citations !== undefined) {
      const problem = checkCitations(block.citations);
      if (problem) return `${at}.${problem}`;
    }
  }
  return null;
}

function checkCitations(citations) {
  if (!Array.isArray(citations)) return "citations must be an array";
  for (const [k, c] of citations.entries()) {
    if (isSearchResultCitation(c)) {
      const problem = checkSearchResultCitation(c);
      if (problem) return `citations[${k}]: ${problem}`;
      continue;
    }
    if (typeof c?.citedText !== "string") return `citations[${k}]: citedText is required`;
    if (c.type !== "char_location" && typeof c.url !== "string") return `citations[${k}]: url is required`;
  }
  return null;
}

/** Why the request could not have produced this step (the model only calls server tools it was given), or null. */
export function undeclaredServerTool(step, tools) {
  for (const block of step.blocks) {
    if (block.type !== "server_tool_use") continue;
    const declared = DECLARED_AS[block.name] ?? block.name;
    const tool = declaredTool(tools, declared);
    if (!tool) return `fake-upstream: the script calls ${block.name}, but the request declares no ${declared} tool`;
    const mismatch = declared === "code_execution" ? codeToolMismatch(block.name, tool) : null;
    if (mismatch) return mismatch;
  }
  return null;
}

// ---------------------------------------------------------------------------
// Streaming a blocks step
// ---------------------------------------------------------------------------

/**
 * Writes the step's blocks through `writer` (server.mjs's BlockWriter) and reports what the message
 * needs besides: whether a client tool was called (stop_reason "tool_use"), the server tool counts
 * for usage (null when no server tool took part) and the input tokens the results added.
 */
export function writeFakeBlocks(writer, blocks, { tools, messages, issuedSearches, produceFile, searchResults }) {
  const lastIdOf = {}; // server tool name → id of its latest server_tool_use, for results without toolUseId
  const titles = searchTitles(messages); // url → title of a search result, so a citation can default its title
  const counts = { web_search_requests: 0, web_fetch_requests: 0 };
  let usesServerTools = false;
  let clientToolUse = false;
  let resultChars = 0;

  for (const block of blocks) {
    switch (block.type) {
      case "text":
        writer.text(block.text ?? "", block.chunks, { citations: (block.citations ?? []).map((c) => citation(c, titles, searchResults)) });
        break;
      case "thinking":
        writer.thinking({ text: block.text ?? "", signature: block.signature });
        break;
      case "tool_use":
        clientToolUse = true;
        writer.toolInput({ type: "tool_use", id: block.id ?? randomId("toolu_"), name: block.name, input: {}, caller: direct() }, block.input ?? {});
        break;
      case "server_tool_use": {
        usesServerTools = true;
        const id = block.id ?? randomId("srvtoolu_");
        lastIdOf[block.name] = id;
        // The recorded code execution calls carry no caller; the web tools' do.
        const caller = DECLARED_AS[block.name] ? {} : { caller: direct() };
        writer.toolInput({ type: "server_tool_use", id, name: block.name, input: {}, ...caller }, block.input ?? {});
        break;
      }
      case "web_search_tool_result":
      case "web_fetch_tool_result": {
        usesServerTools = true;
        const tool = TOOL_OF_RESULT[block.type];
        const toolUseId = block.toolUseId ?? lastIdOf[tool];
        const content = tool === "web_search" ? searchContent(block, titles) : fetchContent(block, tools);
        if (block.errorCode === undefined) counts[`${tool}_requests`] += 1; // failed calls are not billed
        if (tool === "web_search" && Array.isArray(content)) {
          remember(issuedSearches, toolUseId, content.map((r) => r.encrypted_content));
        }
        resultChars += JSON.stringify(content).length;
        // The search or fetch runs between the call and its result: `delayMs` stands for that pause.
        writer.whole({ type: block.type, tool_use_id: toolUseId, content, caller: direct() }, { delayMs: block.delayMs });
        break;
      }
      case "code_execution_tool_result":
      case "bash_code_execution_tool_result":
      case "text_editor_code_execution_tool_result": {
        usesServerTools = true;
        const content = codeResultContent(block, produceFile);
        resultChars += JSON.stringify(content).length;
        // The code runs between the call and its result: `delayMs` stands for that pause.
        writer.whole({ type: block.type, tool_use_id: block.toolUseId ?? lastIdOf[TOOL_OF_RESULT[block.type]], content }, { delayMs: block.delayMs });
        break;
      }
    }
  }
  return { clientToolUse, serverToolUse: usesServerTools ? counts : null, resultTokens: Math.ceil(resultChars / 4) };
}

/** Titles of the search results already in the conversation (a turn continued after pause_turn cites them). */
function searchTitles(messages) {
  const titles = new Map();
  for (const message of Array.isArray(messages) ? messages : []) {
    for (const block of Array.isArray(message?.content) ? message.content : []) {
      if (block?.type !== "web_search_tool_result" || !Array.isArray(block.content)) continue;
      for (const r of block.content) if (typeof r?.url === "string") titles.set(r.url, r.title ?? null);
    }
  }
  return titles;
}

function searchContent(block, titles) {
  if (block.errorCode !== undefined) return { type: "web_search_tool_result_error", error_code: block.errorCode };
  return (block.results ?? []).map((r) => {
    titles.set(r.url, r.title);
    return { type: "web_search_result", title: r.title, url: r.url, encrypted_content: opaque(96), page_age: r.pageAge ?? null };
  });
}

function fetchContent(block, tools) {
  if (block.errorCode !== undefined) return { type: "web_fetch_tool_result_error", error_code: block.errorCode };
  // The document says whether it may be cited only when the tool asked for citations.
  const citable = block.citations ?? declaredTool(tools, "web_fetch")?.citations?.enabled === true;
  return {
    type: "web_fetch_result",
    url: block.url,
    retrieved_at: retrievedAt(),
    content: {
      type: "document",
      source: { type: "text", media_type: "text/plain", data: block.text ?? "" },
      title: block.title ?? null,
      ...(citable ? { citations: { enabled: true } } : {}),
    },
  };
}

function citation(c, titles, searchResults) {
  if (isSearchResultCitation(c)) return searchResultLocation(c, searchResults);
  if (c.type === "char_location") {
    const start = c.startCharIndex ?? 0;
    return {
      type: "char_location",
      cited_text: c.citedText,
      document_index: c.documentIndex ?? 0,
      document_title: c.documentTitle ?? null,
      start_char_index: start,
      end_char_index: c.endCharIndex ?? start + c.citedText.length,
      file_id: null,
    };
  }
  return { type: "web_search_result_location", cited_text: c.citedText, url: c.url, title: c.title ?? titles.get(c.url) ?? null, encrypted_index: opaque(48) };
}

/** The API's own timestamp format, e.g. "2025-07-17T21:38:38.606000+00:00" (microseconds, no "Z"). */
function retrievedAt() {
  return new Date().toISOString().replace(/Z$/, "000+00:00");
}

/** Every issue is kept: a test may give several scripted results the same fixed toolUseId. */
function remember(issued, toolUseId, encrypted) {
  const known = issued.get(toolUseId) ?? new Set();
  known.add(JSON.stringify(encrypted));
  issued.set(toolUseId, known);
  if (issued.size > MAX_ISSUED_SEARCHES) issued.delete(issued.keys().next().value);
}

// ---------------------------------------------------------------------------
// Requests the real API refuses
// ---------------------------------------------------------------------------

const refuse = (message) => ({ status: 400, type: "invalid_request_error", message });

/** A 400 for server tool definitions or history the API would not take, or null. */
export function serverToolRefusal(state, body) {
  const message = checkToolDefinitions(body.tools) ?? checkHistory(state, body.messages);
  return message ? refuse(message) : null;
}

/** The versioned server tools and the name each must have; later versions of web search and fetch included. */
const TOOL_NAME_BY_TYPE_PREFIX = { web_search_: "web_search", web_fetch_: "web_fetch", memory_: "memory", code_execution_: "code_execution" };

function checkToolDefinitions(tools) {
  if (!Array.isArray(tools)) return null;
  for (const [i, tool] of tools.entries()) {
    const prefix = typeof tool?.type === "string" && Object.keys(TOOL_NAME_BY_TYPE_PREFIX).find((p) => tool.type.startsWith(p));
    if (!prefix) continue; // custom tools and server tools this fake does not model are taken as they are
    const at = `tools.${i}.${tool.type}`;
    const name = TOOL_NAME_BY_TYPE_PREFIX[prefix];
    if (tool.name !== name) return `${at}.name: Input should be '${name}'`;
    if (name === "memory" || name === "code_execution") continue;
    for (const field of ["allowed_domains", "blocked_domains"]) {
      // Wording as the API answers it (seen in CherryHQ/cherry-studio#10374).
      if (Array.isArray(tool[field]) && tool[field].length === 0) return `${at}.${field}: Empty list of domains is ambiguous. Provide at least one domain or null.`;
    }
    if (tool.allowed_domains != null && tool.blocked_domains != null) {
      return `${at}: Cannot specify both allowed_domains and blocked_domains in the same request`;
    }
  }
  return null;
}

/**
 * Server tool blocks in the history. A server_tool_use is answered by its result block later in
 * the SAME assistant turn (consecutive assistant messages count as one turn, as the API merges
 * them), never by a user tool_result. A request may end with that assistant turn: that is how a
 * turn stopped with pause_turn is continued. Results must keep their opaque fields as issued.
 */
function checkHistory(state, messages) {
  if (!Array.isArray(messages)) return null;
  const serverIds = new Set();
  let open = new Map(); // id → { name, at } for server tool calls of the current assistant turn without a result yet

  // Wording as the API answers it (seen in anthropics/anthropic-sdk-python#1339, AnswerDotAI/lisette#108).
  const endTurn = () => {
    const [id, call] = open.entries().next().value ?? [];
    open = new Map();
    return id ? `messages.${call.at}: \`${call.name}\` tool use with id \`${id}\` was found without a corresponding \`${RESULT_TYPE[call.name]}\` block` : null;
  };

  for (const [i, message] of messages.entries()) {
    if (message?.role !== "assistant") {
      const unanswered = endTurn();
      if (unanswered) return unanswered;
    }
    if (!Array.isArray(message?.content)) continue;
    for (const [j, block] of message.content.entries()) {
      const at = `messages.${i}.content.${j}`;
      if (message.role !== "assistant") {
        if (block?.type === "tool_result" && serverIds.has(block.tool_use_id)) {
          return `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
        continue;
      }
      const problem = checkAssistantBlock(state, block, at, i, open, serverIds);
      if (problem) return problem;
    }
  }
  return endTurn();
}

function checkAssistantBlock(state, block, at, messageIndex, open, serverIds) {
  if (block?.type === "server_tool_use" && RESULT_TYPE[block.name]) {
    open.set(block.id, { name: block.name, at: messageIndex });
    serverIds.add(block.id);
    return null;
  }
  const tool = TOOL_OF_RESULT[block?.type];
  if (tool) {
    const call = open.get(block.tool_use_id);
    if (call?.name !== tool) {
      return `${at}: unexpected \`tool_use_id\` found in \`${block.type}\` blocks: ${block.tool_use_id}. Each \`${block.type}\` block must follow its \`${tool}\` \`server_tool_use\` block in the same assistant turn.`;
    }
    open.delete(block.tool_use_id);
    return tool === "web_search" ? checkSearchResults(state, block, at) : null;
  }
  if (block?.type === "text" && Array.isArray(block.citations)) {
    for (const [k, c] of block.citations.entries()) {
      const required = c?.type === "char_location"
        ? ["cited_text", "document_index", "document_title", "start_char_index", "end_char_index"]
        : c?.type === "web_search_result_location" ? ["cited_text", "url", "title", "encrypted_index"]
        // Only the shape: the search result it cites need not be in this request any more.
        : c?.type === "search_result_location" ? SEARCH_RESULT_LOCATION_FIELDS : [];
      const missing = required.find((field) => !(field in c));
      if (missing) return `${at}.citations.${k}.${missing}: Field required`;
      const notIndex = c.type === "search_result_location" ? SEARCH_RESULT_LOCATION_FIELDS.slice(3).find((field) => !Number.isInteger(c[field])) : undefined;
      if (notIndex) return `${at}.citations.${k}.${notIndex}: Input should be a valid integer`;
    }
  }
  return null;
}

const SEARCH_RESULT_LOCATION_FIELDS = ["cited_text", "source", "title", "search_result_index", "start_block_index", "end_block_index"];

function checkSearchResults(state, block, at) {
  if (!Array.isArray(block.content)) return null; // an error object carries nothing opaque
  for (const [k, r] of block.content.entries()) {
    const missing = ["encrypted_content", "title", "url"].find((field) => typeof r?.[field] !== "string");
    if (missing) return `${at}.content.${k}.${missing}: Field required`;
  }
  // The real API decrypts encrypted_content; the fake can only compare it with what it issued.
  const issued = state.issuedSearches.get(block.tool_use_id);
  const returned = JSON.stringify(block.content.map((r) => r.encrypted_content));
  if (issued && !issued.has(returned)) {
    return `${at}: web_search_tool_result content was altered; send encrypted_content back as it was returned`;
  }
  return null;
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

function declaredTool(tools, name) {
  return (Array.isArray(tools) ? tools : []).find((t) => t?.name === name && typeof t.type === "string" && t.type.startsWith(`${name}_`));
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Opaque server state (encrypted_content, encrypted_index): random base64, like the real values. */
function opaque(bytes) {
  return randomBytes(bytes).toString("base64");
}
