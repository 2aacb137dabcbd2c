// `search_result` content blocks (the API's "Search results" feature) for the fake Messages API: what
// the API refuses in a request's search results, the search results a request holds (in the order that
// numbers them), and the `search_result_location` citations a `blocks` step makes of them.
//
// Shapes: @anthropic-ai/sdk 1.12's SearchResultBlockParam { type: "search_result", source, title,
// content: TextBlockParam[], citations?: { enabled? }, cache_control? } and CitationsSearchResultLocation
// { type: "search_result_location", cited_text, source, title, search_result_index, start_block_index,
// end_block_index }. Rules from the "Search results" page of Anthropic's docs
// (platform.claude.com/docs/en/build-with-claude/search-results, as published in 2026-09):
//   - source and title are strings ("any stable string works" for source: a URL or an id such as
//     kb://article-1234); content holds at least one block, each a text block with non-empty text; text only;
//   - citations are off unless `citations: { enabled: true }`, and they are all-or-nothing: "either all
//     search results in a request must have citations enabled, or all must have them disabled. Mixing
//     search results with different citation settings results in an error";
//   - with the web search tool in the same request, citations must be enabled on every search_result;
//   - search_result blocks go in user messages only, top level or inside a tool_result ("Assistant
//     messages with search results are rejected"), and a tool_result that holds one holds nothing else;
//   - search_result_index counts every search_result block of the request in order of appearance
//     (messages and tool results alike; web search results are not counted); start_block_index and
//     end_block_index (exclusive, always > start) slice the result's content; cited_text is that slice's
//     text "concatenated" (whole blocks, never a substring; the docs give no separator: the fake joins
//     with "").
// The docs give none of the refusals' wording; these name the path as the fake's other refusals do.
// Not from the docs: an empty `source` is refused here (a citation could not name its result), and
// whitespace-only text as the API refuses it in plain text blocks.
//
// A blocks step's text citation { searchResult, start?, end? } becomes one search_result_location. If
// the request holds no such search result or blocks, or that result's citations are off, the script
// cannot be played: the fake answers 500 "fake-upstream: …" (and logs it), since the script is wrong,
// not the client.

/** Every search_result block of the request, in the order that numbers them: { at, block }. */
export function requestSearchResults(messages) {
  const found = [];
  for (const [i, message] of (Array.isArray(messages) ? messages : []).entries()) {
    if (!Array.isArray(message?.content)) continue;
    for (const [j, block] of message.content.entries()) {
      const at = `messages.${i}.content.${j}`;
      if (block?.type === "search_result") found.push({ at, block });
      if (block?.type === "tool_result" && Array.isArray(block.content)) {
        for (const [k, inner] of block.content.entries()) if (inner?.type === "search_result") found.push({ at: `${at}.content.${k}`, block: inner });
      }
    }
  }
  return found;
}

// ---------------------------------------------------------------------------
// Requests the API refuses
// ---------------------------------------------------------------------------

/** A 400 for the request's search results, or null. */
export function searchResultRefusal(body) {
  const message = checkPlacement(body.messages) ?? checkSearchResultBlocks(requestSearchResults(body.messages), body.tools);
  return message ? { status: 400, type: "invalid_request_error", message } : null;
}

function checkPlacement(messages) {
  for (const [i, message] of (Array.isArray(messages) ? messages : []).entries()) {
    if (!Array.isArray(message?.content)) continue;
    for (const [j, block] of message.content.entries()) {
      const at = `messages.${i}.content.${j}`;
      if (block?.type === "search_result" && message.role !== "user") return `${at}: search_result blocks can only appear in user messages (or inside their tool results)`;
      if (block?.type !== "tool_result" || !Array.isArray(block.content) || !block.content.some((b) => b?.type === "search_result")) continue;
      const other = block.content.findIndex((b) => b?.type !== "search_result");
      if (other !== -1) {
        return `${at}.content.${other}: a tool_result that holds search_result blocks can hold nothing else (found a ${JSON.stringify(block.content[other]?.type)} block)`;
      }
    }
  }
  return null;
}

function checkSearchResultBlocks(results, tools) {
  for (const { at, block } of results) {
    const problem = shapeProblem(block);
    if (problem) return `${at}.search_result.${problem}`;
  }
  const on = results.findIndex((r) => citationsEnabled(r.block));
  const off = results.findIndex((r) => !citationsEnabled(r.block));
  if (on !== -1 && off !== -1) {
    return `${results[off].at}.search_result.citations: citations must be enabled on all search results of a request or on none; search result ${on} has them enabled, search result ${off} does not`;
  }
  const webSearch = (Array.isArray(tools) ? tools : []).some((t) => typeof t?.type === "string" && t.type.startsWith("web_search_"));
  if (webSearch && off !== -1) {
    return `${results[off].at}.search_result.citations: citations must be enabled on every search_result block when the web search tool is enabled`;
  }
  return null;
}

/** What is wrong with one search_result block, as `field: message`, or null. */
function shapeProblem(block) {
  for (const field of ["source", "title"]) {
    if (block[field] === undefined) return `${field}: Field required`;
    if (typeof block[field] !== "string") return `${field}: Input should be a valid string`;
  }
  if (block.source.length === 0) return "source: String should have at least 1 character";
  if (block.content === undefined) return "content: Field required";
  if (!Array.isArray(block.content)) return "content: Input should be a valid list";
  if (block.content.length === 0) return "content: List should have at least 1 item after validation, not 0";
  for (const [k, item] of block.content.entries()) {
    if (item?.type !== "text") return `content.${k}.type: Input should be 'text' (search results hold text blocks only)`;
    if (typeof item.text !== "string") return `content.${k}.text: ${item.text === undefined ? "Field required" : "Input should be a valid string"}`;
    if (item.text.length === 0) return `content.${k}.text: text content blocks must be non-empty`;
    if (item.text.trim().length === 0) return `content.${k}.text: text content blocks must contain non-whitespace text`;
  }
  const { citations } = block;
  if (citations != null && (typeof citations !== "object" || Array.isArray(citations))) return "citations: Input should be a valid dictionary";
  if (citations?.enabled != null && typeof citations.enabled !== "boolean") return "citations.enabled: Input should be a valid boolean";
  return null;
}

function citationsEnabled(block) {
  return block.citations?.enabled === true;
}

// ---------------------------------------------------------------------------
// Citations a blocks step makes
// ---------------------------------------------------------------------------

/** Whether a blocks step's citation points at a search result ({ searchResult, start?, end? }). */
export function isSearchResultCitation(c) {
  return c?.type === "search_result_location" || c?.searchResult !== undefined;
}

const isIndex = (n) => Number.isInteger(n) && n >= 0;

/** Why a search result citation can never be played (checked when the script is registered), or null. */
export function checkSearchResultCitation(c) {
  if (!isIndex(c.searchResult)) return "searchResult must be the cited search result's 0-based index in the request";
  const start = c.start ?? 0;
  if (!isIndex(start)) return "start must be a 0-based block index";
  if (c.end !== undefined && !(Number.isInteger(c.end) && c.end > start)) return "end must be an integer greater than start (it is exclusive)";
  return null;
}

/** Why the step's search result citations cannot be played against this request's search results, or null. */
export function uncitableSearchResult(blocks, results) {
  for (const [i, block] of blocks.entries()) {
    if (block.type !== "text" || !Array.isArray(block.citations)) continue;
    for (const [k, c] of block.citations.entries()) {
      if (!isSearchResultCitation(c)) continue;
      const problem = resolve(c, results).problem;
      if (problem) return `fake-upstream: blocks[${i}].citations[${k}] cannot be played: ${problem}`;
    }
  }
  return null;
}

/** The search_result_location the API would send for `c` (call uncitableSearchResult first). */
export function searchResultLocation(c, results) {
  return resolve(c, results).citation;
}

function resolve(c, results) {
  const n = c.searchResult;
  const start = c.start ?? 0;
  const end = c.end ?? start + 1;
  const found = results[n];
  if (!found) return { problem: `it cites search result ${n}, but the request holds ${results.length} search result${results.length === 1 ? "" : "s"}` };
  const { at, block } = found;
  if (!citationsEnabled(block)) {
    return { problem: `it cites search result ${n} (${at}), whose citations are not enabled; the API cites only search results with citations: { enabled: true }` };
  }
  if (end > block.content.length) {
    return { problem: `it cites blocks [${start}, ${end}) of search result ${n} (${at}), which has ${block.content.length} content block${block.content.length === 1 ? "" : "s"}` };
  }
  return {
    citation: {
      type: "search_result_location",
      cited_text: block.content.slice(start, end).map((b) => b.text).join(""),
      source: block.source,
      title: block.title,
      search_result_index: n,
      start_block_index: start,
      end_block_index: end,
    },
  };
}
