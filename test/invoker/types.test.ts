import { describe, expect, it } from "vitest";
import { isCompaction, usageOf, type ApiContent } from "../../worker/invoker/types";

describe("usageOf", () => {
  it("maps the API's counts to ours, a missing one to 0", () => {
    expect(usageOf({ input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 4 })).toEqual({
      inputTokens: 10,
      outputTokens: 2,
      cacheReadTokens: 3,
      cacheWriteTokens: 4,
    });
    expect(usageOf({ input_tokens: 10, output_tokens: 2, cache_read_input_tokens: null })).toEqual({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("keeps the base's count where the API leaves one out, and a 0 it sends", () => {
    const base = { inputTokens: 100, outputTokens: 1, cacheReadTokens: 50, cacheWriteTokens: 7, serverToolUses: { web_search: 1 } };
    expect(usageOf({ input_tokens: null, output_tokens: 40, cache_read_input_tokens: 0 }, base)).toEqual({
      inputTokens: 100,
      outputTokens: 40,
      cacheReadTokens: 0,
      cacheWriteTokens: 7,
    });
  });
});

describe("isCompaction", () => {
  it("tells a compaction block from the others, and gives its summary", () => {
    const blocks: ApiContent[] = [
      { type: "compaction", content: "Summary", encrypted_content: null },
      { type: "text", text: "compaction" },
    ];
    expect(blocks.map(isCompaction)).toEqual([true, false]);
    expect(blocks.filter(isCompaction).map((b) => b.content)).toEqual(["Summary"]);
  });
});
