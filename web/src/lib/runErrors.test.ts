import { describe, expect, it } from "vitest";
import { runErrorHeadline } from "./runErrors";

describe("a failed run's headline", () => {
  it("names the daily spend cap for a rate limit that retrying will not lift", () => {
    expect(runErrorHeadline("rate_limited", false)).toBe("Your daily spend cap is reached.");
    expect(runErrorHeadline("rate_limited", true)).toBe("Rate limited by the model provider.");
    expect(runErrorHeadline("rate_limited")).toBe("Rate limited by the model provider.");
  });

  it("has words for every code, and for one it does not know", () => {
    expect(runErrorHeadline("overloaded", true)).toBe("The model is overloaded right now.");
    expect(runErrorHeadline("something_new")).toBe("The run failed.");
  });
});
