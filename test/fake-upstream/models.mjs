// What the fake Messages API knows of models and long prompts, as the real one behaves:
//   GET /v1/models        a catalog in the Models API's shape (capabilities, windows, lifecycle)
//   thinking              a thinking type the model does not take is refused (400)
//   a context limit       past `contextLimitChars` the request is refused with the API's own text
//   compaction            the compact_20260112 edit answers with a `compaction` block once the
//                         prompt passes the trigger; a later request must send that block back
//                         unchanged and first, with nothing from before it; `refuseCompaction`
//                         makes the beta a 400 (a compatible server that lacks it)
import { randomBytes } from "node:crypto";

/** `code`: "none", "bash" (code execution without programmatic calling) or "repl" (with it, the newer versions). */
function model(id, display_name, max_input_tokens, max_tokens, thinking, compaction, code = "none") {
  const yes = (supported) => ({ supported });
  return {
    type: "model",
    id,
    display_name,
    created_at: "2026-01-01T00:00:00Z",
    lifecycle: "active",
    deprecated_at: null,
    retires_at: null,
    line: null,
    max_input_tokens,
    max_tokens,
    capabilities: {
      thinking: { supported: thinking.length > 0, types: { adaptive: yes(thinking.includes("adaptive")), enabled: yes(thinking.includes("enabled")) } },
      context_management: { supported: compaction, compact_20260112: yes(compaction), clear_thinking_20251015: yes(false), clear_tool_uses_20250919: yes(false) },
      image_input: yes(true),
      pdf_input: yes(true),
      citations: yes(true),
      code_execution: yes(code === "repl"),
      server_tools: { supported: code !== "none", code_execution: yes(code !== "none"), web_search: yes(code !== "none") },
    },
  };
}

export const DEFAULT_CATALOG = [
  model("claude-sonnet-4-6", "Claude Sonnet 4.6", 200_000, 64_000, ["adaptive", "enabled"], true, "repl"),
  model("claude-opus-4-6", "Claude Opus 4.6", 200_000, 128_000, ["adaptive", "enabled"], true, "repl"),
  model("claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, ["enabled"], false, "bash"),
  model("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, ["enabled"], false, "bash"),
  model("claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, ["enabled"], false, "bash"),
  model("claude-fake-plain", "Fake model without thinking", 32_000, 4_096, [], false),
  model("claude-fake-small", "Fake model with a small window", 25_000, 4_096, ["enabled"], false),
];

/** GET /v1/models: the Models API's page shape, newest first, `limit` and `after_id` honoured. */
export function listModels(state, url) {
  const limit = Number(url.searchParams.get("limit") ?? 20);
  const after = url.searchParams.get("after_id");
  const all = state.catalog;
  const from = after ? all.findIndex((m) => m.id === after) + 1 : 0;
  const data = all.slice(from, from + limit);
  return { data, has_more: from + limit < all.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

const refuse = (message) => ({ status: 400, type: "invalid_request_error", message });

/** A request the API would refuse before answering, or null. */
export function refusal(state, body, headers, size) {
  const entry = state.catalog.find((m) => m.id === body.model);
  const thinking = body.thinking?.type;
  if (entry && (thinking === "adaptive" || thinking === "enabled") && !entry.capabilities.thinking.types[thinking].supported) {
    return refuse(`thinking.type: "${thinking}" is not supported for model ${body.model}`);
  }
  const compacting = wantsCompaction(body, headers);
  if (compacting && state.config.refuseCompaction) return refuse("Unexpected value(s) `compact-2026-01-12` for the `anthropic-beta` header.");
  const misplaced = checkCompactionBlocks(state, body);
  if (misplaced) return refuse(misplaced);
  const limit = state.config.contextLimitChars;
  if (limit && size > limit) {
    return refuse(`prompt is too long: ${Math.ceil(size / 4)} tokens > ${Math.floor(limit / 4)} maximum`);
  }
  return null;
}

function wantsCompaction(body, headers) {
  const edits = body.context_management?.edits ?? [];
  return edits.some((e) => e.type === "compact_20260112") && /compact-2026-01-12/.test(headers["anthropic-beta"] ?? "");
}

/** A compaction block must come back as it was issued, first in the messages, nothing before it. */
function checkCompactionBlocks(state, body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const [i, m] of messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, block] of m.content.entries()) {
      if (block?.type !== "compaction") continue;
      const issued = state.compactions.get(block.encrypted_content);
      if (!issued || JSON.stringify(issued) !== JSON.stringify(block)) return "messages: a compaction block was altered; send it back as it was returned";
      if (i !== 0 || j !== 0) return "messages: a compaction block must come first; drop what came before it";
    }
  }
  return null;
}

/** The compaction block to open this answer with, or null (no edit asked, or under the trigger). */
export function compactionFor(state, body, headers, size) {
  if (!wantsCompaction(body, headers)) return null;
  const edit = body.context_management.edits.find((e) => e.type === "compact_20260112");
  const trigger = state.config.compactionTriggerChars ?? (edit.trigger?.value ?? 150_000) * 4;
  if (size <= trigger) return null;
  const block = {
    type: "compaction",
    content: `Summary of ${body.messages.length} earlier messages (${size} characters).`,
    encrypted_content: `enc_${randomBytes(12).toString("hex")}`,
  };
  state.compactions.set(block.encrypted_content, block);
  return block;
}
