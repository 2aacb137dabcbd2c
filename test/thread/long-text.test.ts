// Text past what one SQLite value holds is kept in parts: never a surrogate pair cut in two (a lone
// half would not survive UTF-8), and read back whole.
import { describe, expect, it } from "vitest";
import { split } from "../../worker/thread/store/long-text";

describe("split", () => {
  it("cuts at the size given but never inside a surrogate pair, and joins back to the text", () => {
    const text = `a${"😀".repeat(10)}b`;
    const parts = split(text, 4);
    expect(parts.join("")).toBe(text);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(4);
      expect(new TextDecoder().decode(new TextEncoder().encode(part))).toBe(part);
    }
  });

  it("leaves text within the size in one part", () => {
    expect(split("short", 10)).toEqual(["short"]);
  });
});
