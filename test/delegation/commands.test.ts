import { describe, expect, it } from "vitest";
import { parseDelegateArgs } from "../../worker/plugins/delegation/commands";

describe("parseDelegateArgs", () => {
  it("reads model= and maxIterations= off the end of the line", () => {
    expect(parseDelegateArgs("write a poem about tea model=claude-haiku-4-5 maxIterations=3")).toEqual({
      prompt: "write a poem about tea",
      model: "claude-haiku-4-5",
      maxIterations: 3,
    });
    expect(parseDelegateArgs("explain x=y in the middle")).toEqual({ prompt: "explain x=y in the middle" });
  });
});
