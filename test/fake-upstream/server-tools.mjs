// Server tools (web_search, web_fetch), citations and client tool calls such as the memory tool,
// for the fake Messages API: the `blocks` step that streams them.
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
import { randomBytes } from "node:crypto";

/** Which result block answers which server tool. */
const RESULT_TYPE = { web_search: "web_search_tool_result", web_fetch: "web_fetch_tool_result" };
const TOOL_OF_RESULT = { web_search_tool_result: "web_search", web_fetch_tool_result: "web_fetch" };

const FAKE_BLOCK_TYPES = new Set(["text", "thinking", "server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "tool_use"]);

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
      if (!RESULT_TYPE[block.name]) return `${at}: server_tool_use name must be "web_search" or "web_fetch"`;
      seen.add(block.name);
    }
    const tool = TOOL_OF_RESULT[block.type];
    if (tool && block.toolUseId === undefined && !seen.has(tool)) return `${at}: ${block.type} needs a toolUseId or an earlier ${tool} server_tool_use`;
    if (block.type === "web_fetch_tool_result" && block.errorCode === undefined && typeof block.url !== "string") return `${at}: web_fetch_tool_result needs a url`;
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
    if (typeof c?.citedText !== "string") return `citations[${k}]: citedText is required`;
    if (c.type !== "char_location" && typeof c.url !== "string") return `citations[${k}]: url is required`;
  }
  return null;
}

/** Why the request could not have produced this step (the model only calls server tools it was given), or null. */
export function undeclaredServerTool(step, tools) {
  for (const block of step.blocks) {
    if (block.type !== "server_tool_use" || declaredTool(tools, block.name)) continue;
    return `fake-upstream: the script calls ${block.name}, but the request declares no ${block.name} tool`;
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
export function writeFakeBlocks(writer, blocks, { tools, messages }) {
  const lastIdOf = {}; // server tool name → id of its latest server_tool_use, for results without toolUseId
  const titles = searchTitles(messages); // url → title of a search result, so a citation can default its title
  const counts = { web_search_requests: 0, web_fetch_requests: 0 };
  let usesServerTools = false;
  let clientToolUse = false;
  let resultChars = 0;

  for (const block of blocks) {
    switch (block.type) {
      case "text":
        writer.text(block.text ?? "", block.chunks, { citations: (block.citations ?? []).map((c) => citation(c, titles)) });
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
        writer.toolInput({ type: "server_tool_use", id, name: block.name, input: {}, caller: direct() }, block.input ?? {});
        break;
      }
      case "web_search_tool_result":
      case "web_fetch_tool_result": {
        usesServerTools = true;
        const tool = TOOL_OF_RESULT[block.type];
        const toolUseId = block.toolUseId ?? lastIdOf[tool];
        const content = tool === "web_search" ? searchContent(block, titles) : fetchContent(block, tools);
        if (block.errorCode === undefined) counts[`${tool}_requests`] += 1; // failed calls are not billed
        resultChars += JSON.stringify(content).length;
        // The search or fetch runs between the call and its result: `delayMs` stands for that pause.
        writer.whole({ type: block.type, tool_use_id: toolUseId, content, caller: direct() }, { delayMs: block.delayMs });
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

function citation(c, titles) {
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

/** Ids in the API's style: prefix, "01", then base62 characters. server.mjs uses it for message and tool ids too. */
export function randomId(prefix) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let id = prefix + "01";
  for (const b of randomBytes(24)) id += alphabet[b % alphabet.length];
  return id;
}
