// The offline model: with no ANTHROPIC_API_KEY the SDK is handed this fetch, which answers in the
// Messages API's own streaming format, so every byte still goes through the real SDK code path.
import type Anthropic from "@anthropic-ai/sdk";
import { WEB_FETCH_TOOL, WEB_SEARCH_TOOL } from "../../protocol";
import type { ApiContent, ApiMessage } from "./types";

interface OfflineRequest {
  model: string;
  messages: ApiMessage[];
  tools?: { name: string }[];
  tool_choice?: { type: string };
}

const WORD_DELAY_MS = 12;

export const offlineFetch: typeof fetch = async (_input, init) => {
  const raw = String(init?.body ?? "{}");
  const req = JSON.parse(raw) as OfflineRequest;
  // Usage as the API would roughly count it (about 4 characters a token), so metrics mean something.
  const events = answer(req, Math.ceil(raw.length / 4));
  const encoder = new TextEncoder();
  const signal = init?.signal;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [event, data] of events) {
        if (signal?.aborted) return controller.error(signal.reason);
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        if (event === "content_block_delta") await new Promise((r) => setTimeout(r, WORD_DELAY_MS));
      }
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream", "request-id": "req_offline" } });
};

type Sse = [string, Record<string, unknown>];

function answer(req: OfflineRequest, inputTokens: number): Sse[] {
  const last = req.messages[req.messages.length - 1];
  const blocks: ApiContent[] = typeof last?.content === "string" ? [{ type: "text", text: last.content }] : (last?.content ?? []);
  const toolResult = blocks.find((b): b is Anthropic.ToolResultBlockParam => b.type === "tool_result");
  const userText = blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  const said = userText.split("\n\n---\n\n").pop()!.trim();
  const timeTool = req.tools?.find((t) => t.name === "time__current_time");

  if (toolResult) {
    const content = typeof toolResult.content === "string" ? toolResult.content : JSON.stringify(toolResult.content);
    return message(req.model, inputTokens, [thinking("The tool answered; I'll pass that on."), text(`The tool says: ${content}`)], "end_turn");
  }
  if (timeTool && req.tool_choice?.type !== "none" && /\b(time|date|clock|today)\b/i.test(said)) {
    return message(
      req.model,
      inputTokens,
      [thinking("The user asks about the time; I'll use the time tool."), toolUse(timeTool.name, {})],
      "tool_use",
    );
  }
  const webTools = req.tools?.some((t) => t.name === WEB_SEARCH_TOOL || t.name === WEB_FETCH_TOOL);
  if (webTools && /\b(search|look up|google|latest|news|browse|web|fetch)\b|https?:\/\//i.test(said)) {
    return message(req.model, inputTokens, [
      thinking("The user wants something from the web; the offline model has no way there."),
      text("**Offline model.** I cannot reach the web: web search and web fetch need Claude (set `ANTHROPIC_API_KEY`)."),
    ], "end_turn");
  }
  if (/\b(execute|plot|chart|graph|analy[sz]e|calculate|compute|python|spreadsheet|excel|xlsx|run (this |the |some |my )?code)\b/i.test(said)) {
    return message(req.model, inputTokens, [
      thinking("The user wants code run; the offline model runs none."),
      text("**Offline model.** I cannot run code: code execution (analysis, charts, files) needs Claude (set `ANTHROPIC_API_KEY`)."),
    ], "end_turn");
  }
  const excerpt = said.length > 280 ? `${said.slice(0, 280)}…` : said;
  const files = received(blocks);
  return message(
    req.model,
    inputTokens,
    [
      thinking(`The user wrote ${said.length} characters. I am the offline model, so I echo them.`),
      text(
        `**Offline model.** You said: “${excerpt}”${files ? `\n\n${files}` : ""}\n\nSet \`ANTHROPIC_API_KEY\` to talk to Claude; ` +
          "everything else (the pipeline, plugins, tools, streaming) is running for real.",
      ),
    ],
    "end_turn",
  );
}

/** What files came with the message, in words: the offline model cannot look at them, only list them. */
function received(blocks: ApiContent[]): string {
  const files = blocks.flatMap((b) => {
    if (b.type === "image") return [`an image (${b.source.type === "base64" ? b.source.media_type : "by URL"})`];
    if (b.type === "document") return [`“${b.title ?? "a document"}” (${b.source.type === "text" ? "text" : b.source.type === "base64" ? b.source.media_type : "a document"})`];
    return [];
  });
  return files.length ? `I received ${files.length === 1 ? "one file" : `${files.length} files`}: ${files.join(", ")}.` : "";
}

type Block = (index: number) => Sse[];

function thinking(thought: string): Block {
  return (index) => [
    ["content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }],
    ...words(thought).map((w): Sse => ["content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: w } }]),
    ["content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: `offline-${btoa(thought.slice(0, 24))}` } }],
    ["content_block_stop", { type: "content_block_stop", index }],
  ];
}

function text(body: string): Block {
  return (index) => [
    ["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }],
    ...words(body).map((w): Sse => ["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: w } }]),
    ["content_block_stop", { type: "content_block_stop", index }],
  ];
}

function toolUse(name: string, input: unknown): Block {
  const id = `toolu_offline_${crypto.randomUUID().slice(0, 8)}`;
  return (index) => [
    ["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } }],
    ["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } }],
    ["content_block_stop", { type: "content_block_stop", index }],
  ];
}

function message(model: string, inputTokens: number, blocks: Block[], stopReason: string): Sse[] {
  const id = `msg_offline_${crypto.randomUUID().slice(0, 12)}`;
  const events: Sse[] = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null,
          usage: { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
    ],
  ];
  blocks.forEach((block, i) => events.push(...block(i)));
  const outputTokens = events.filter(([e]) => e === "content_block_delta").length;
  events.push(
    ["message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } }],
    ["message_stop", { type: "message_stop" }],
  );
  return events;
}

function words(s: string): string[] {
  return s.match(/\S+\s*|\s+/g) ?? [];
}
