import { describe, expect, it } from "vitest";
import { parseCommands } from "../../worker/thread/run/commands";

describe("parseCommands", () => {
  it("finds lines that are exactly /name args", () => {
    const text = "Sure.\n/delegate write a haiku about rain\nThen:\n/checkin halfway\n/stop";
    expect(parseCommands(text)).toEqual([
      { name: "delegate", args: "write a haiku about rain", raw: "/delegate write a haiku about rain" },
      { name: "checkin", args: "halfway", raw: "/checkin halfway" },
      { name: "stop", args: "", raw: "/stop" },
    ]);
  });

  it("does not take paths, inline mentions or commands inside code fences", () => {
    const text = [
      "/usr/bin/env node",
      "Run /delegate later, not now.",
      " /delegate indented is not a line of its own",
      "```",
      "/delegate inside a fence",
      "```",
      "~~~md",
      "/checkin in a tilde fence",
      "~~~",
      "/Delegate capitalised",
      "/9lives",
      "/re-delegate try again model=claude-haiku-4-5",
    ].join("\n");
    expect(parseCommands(text).map((c) => c.name)).toEqual(["re-delegate"]);
  });

  it("keeps a fence open until its own marker closes it", () => {
    expect(parseCommands("````\n```\n/delegate x\n````\n/delegate y").map((c) => c.args)).toEqual(["y"]);
  });
});
