import { describe, expect, it } from "vitest";
import { partialStrings } from "./partialJson";

const INPUT = { title: "Plan \"B\"", type: "markdown", content: "# Héllo 😀\n\tline\\two\u0001 \u2028 </script>" };

describe("partialStrings", () => {
  it("reads a whole object's string fields as JSON.parse does", () => {
    const json = JSON.stringify(INPUT);
    expect(partialStrings(json)).toEqual({ strings: INPUT, open: null });
    // Spaced, with escapes written out (as a model may), and other values between them skipped.
    const spaced = '{ "n": 12.5, "title" : "A\\u00e9\\/b", "nested": {"x": ["}", {"y": "\\""}]}, "ok": true,\n "content": "c\\"d" }';
    expect(partialStrings(spaced)).toEqual({ strings: { title: "Aé/b", content: 'c"d' }, open: null });
  });

  it("gives every prefix of the text as much as it holds, never more, and the open field", () => {
    const json = JSON.stringify(INPUT);
    let last = "";
    for (let cut = 0; cut <= json.length; cut++) {
      const { strings, open } = partialStrings(json.slice(0, cut));
      for (const [key, value] of Object.entries(strings)) {
        const whole = INPUT[key as keyof typeof INPUT];
        expect(whole.startsWith(value), `${key} at ${cut}: ${JSON.stringify(value)}`).toBe(true);
        if (key !== open) expect(value).toBe(whole);
      }
      // The content only grows, a character (or a surrogate pair) at a time.
      const content = strings.content ?? "";
      expect(content.startsWith(last)).toBe(true);
      last = content;
    }
    expect(last).toBe(INPUT.content);
  });

  it("leaves out an escape cut short until the rest of it comes", () => {
    expect(partialStrings('{"content":"a\\')).toEqual({ strings: { content: "a" }, open: "content" });
    expect(partialStrings('{"content":"a\\n')).toEqual({ strings: { content: "a\n" }, open: "content" });
    expect(partialStrings('{"content":"a\\u00')).toEqual({ strings: { content: "a" }, open: "content" });
    expect(partialStrings('{"content":"a\\u00e9')).toEqual({ strings: { content: "aé" }, open: "content" });
    expect(partialStrings('{"content":"say \\"hi')).toEqual({ strings: { content: 'say "hi' }, open: "content" });
    // Half of a surrogate pair waits for its other half.
    expect(partialStrings('{"content":"x\\ud83d')).toEqual({ strings: { content: "x" }, open: "content" });
    expect(partialStrings('{"content":"x\\ud83d\\ude00')).toEqual({ strings: { content: "x😀" }, open: "content" });
  });

  it("knows a field only once its key is whole; a cut value or a text that is no object gives what came before", () => {
    expect(partialStrings("")).toEqual({ strings: {}, open: null });
    expect(partialStrings('{"tit')).toEqual({ strings: {}, open: null });
    expect(partialStrings('{"title"')).toEqual({ strings: {}, open: null });
    expect(partialStrings('{"title": ')).toEqual({ strings: {}, open: null });
    expect(partialStrings('{"title": "')).toEqual({ strings: { title: "" }, open: "title" });
    expect(partialStrings('{"title":"T","n":12')).toEqual({ strings: { title: "T" }, open: null });
    expect(partialStrings('{"title":"T","o":{"a":"b')).toEqual({ strings: { title: "T" }, open: null });
    expect(partialStrings('["a"]')).toEqual({ strings: {}, open: null });
  });
});
