import { describe, expect, it } from "vitest";
import { anthropicCurl, KEY_VARIABLE, mcpServerUrl, openAiBaseUrl, openAiCurl } from "./apiUsage";

const ORIGIN = "https://chat.example.com";
/** The JSON after `-d '`, as the shell hands it to curl. */
const bodyOf = (snippet: string) => JSON.parse(/-d '([^']*)'/.exec(snippet)![1]);

describe("how to use the keys", () => {
  it("names the deployment's own endpoints", () => {
    expect(openAiBaseUrl(ORIGIN)).toBe("https://chat.example.com/v1");
    expect(mcpServerUrl(ORIGIN)).toBe("https://chat.example.com/mcp");
  });

  it("calls Chat Completions with the key as a bearer token and the model given", () => {
    const snippet = openAiCurl(ORIGIN, "claude-sonnet-4-6");
    expect(snippet.split("\n")[0]).toBe("curl https://chat.example.com/v1/chat/completions \\");
    expect(snippet).toContain(`-H "Authorization: Bearer $${KEY_VARIABLE}"`);
    expect(bodyOf(snippet)).toEqual({ model: "claude-sonnet-4-6", messages: [{ role: "user", content: "Say hello" }] });
  });

  it("calls the Messages API with x-api-key, its version header and max_tokens", () => {
    const snippet = anthropicCurl(ORIGIN, "claude-sonnet-4-6");
    expect(snippet.split("\n")[0]).toBe("curl https://chat.example.com/v1/messages \\");
    expect(snippet).toContain(`-H "x-api-key: $${KEY_VARIABLE}"`);
    expect(snippet).toContain('-H "anthropic-version: 2023-06-01"');
    expect(bodyOf(snippet)).toMatchObject({ model: "claude-sonnet-4-6", max_tokens: 1024 });
  });

  it("never holds a secret: the key is read from the environment", () => {
    for (const snippet of [openAiCurl(ORIGIN, "m"), anthropicCurl(ORIGIN, "m")]) expect(snippet).not.toMatch(/eo_/);
  });
});
