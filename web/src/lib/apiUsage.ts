// The API keys page's "How to use": the compatible endpoints' addresses on this deployment and a
// first request to each, with the key read from the environment (never the secret itself: the page
// forgets it, and a snippet is what people paste into shared places).

/** The variable the examples read the key from. */
export const KEY_VARIABLE = "ORCHESTRATOR_API_KEY";

export const openAiBaseUrl = (origin: string) => `${origin}/v1`;
export const mcpServerUrl = (origin: string) => `${origin}/mcp`;

/** `model` goes into JSON inside single quotes: a model's id has no quote, and JSON.stringify escapes the rest. */
const chatBody = (model: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model, ...extra, messages: [{ role: "user", content: "Say hello" }] });

export function openAiCurl(origin: string, model: string): string {
  return [
    `curl ${openAiBaseUrl(origin)}/chat/completions \\`,
    `  -H "Authorization: Bearer $${KEY_VARIABLE}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${chatBody(model)}'`,
  ].join("\n");
}

export function anthropicCurl(origin: string, model: string): string {
  return [
    `curl ${origin}/v1/messages \\`,
    `  -H "x-api-key: $${KEY_VARIABLE}" \\`,
    `  -H "anthropic-version: 2023-06-01" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${chatBody(model, { max_tokens: 1024 })}'`,
  ].join("\n");
}
