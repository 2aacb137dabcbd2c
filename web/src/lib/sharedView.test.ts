import type { Artifact } from "@protocol";
import { describe, expect, it } from "vitest";
import { message } from "../testing/fixtures";
import { sharedOn, sharedTimeline } from "./sharedView";

const artifact = (over: Partial<Artifact> = {}): Artifact => ({
  id: "art_1",
  title: "Plan",
  type: "markdown",
  language: null,
  version: 2,
  messageId: "u1",
  updatedAt: 5,
  content: "# Plan",
  versions: [{ version: 1, createdAt: 4 }, { version: 2, createdAt: 5 }],
  ...over,
});

const outline = (items: ReturnType<typeof sharedTimeline>) =>
  items.map((i) => (i.type === "message" ? `${i.message.role}:${i.message.kind}` : i.type === "artifacts" ? `cards:${i.artifacts.map((a) => a.id)}` : i.type));

describe("sharedTimeline", () => {
  const messages = [
    message({ id: "u1", role: "user", content: "Plan a trip", createdAt: 1 }),
    message({ id: "th", role: "assistant", kind: "thinking", content: "hmm", metadata: { runId: "run_1" }, parentId: "u1", createdAt: 2 }),
    message({ id: "tc", role: "assistant", kind: "tool_call", content: "{}", metadata: { runId: "run_1", toolUseId: "tu", toolName: "x__y", input: {} }, parentId: "u1", createdAt: 3 }),
    message({ id: "tr", role: "assistant", kind: "tool_result", content: "ok", metadata: { runId: "run_1", toolUseId: "tu" }, parentId: "u1", createdAt: 4 }),
    message({ id: "a1", role: "assistant", content: "Here it is", metadata: { runId: "run_1" }, parentId: "u1", createdAt: 5 }),
    message({ id: "u2", role: "user", content: "Thanks", createdAt: 6 }),
  ];

  it("shows the exchanges in order, with the artifacts' cards after the exchange that wrote them", () => {
    const items = sharedTimeline({ messages: [...messages].reverse(), artifacts: [artifact()] });
    expect(outline(items)).toEqual(["user:text", "assistant:thinking", "assistant:tool_call", "assistant:tool_result", "assistant:text", "cards:art_1", "user:text"]);
    const cards = items.find((i) => i.type === "artifacts");
    // The cards carry the artifact's facts, not its content.
    expect(cards && cards.type === "artifacts" && cards.artifacts[0]).toEqual({ id: "art_1", title: "Plan", type: "markdown", language: null, version: 2, messageId: "u1", updatedAt: 5 });
  });

  it("leaves out kinds a share does not show (pipeline steps, statuses)", () => {
    const step = message({ id: "s", role: "assistant", kind: "pipeline_step", content: "invoking", metadata: { runId: "run_1" }, createdAt: 2 });
    expect(outline(sharedTimeline({ messages: [messages[0], step, messages[4]], artifacts: [] }))).toEqual(["user:text", "assistant:text"]);
  });
});

describe("sharedOn", () => {
  it("says the day it was shared", () => {
    expect(sharedOn(Date.UTC(2026, 4, 3, 12), "en-GB", "UTC")).toBe("Shared on 3 May 2026");
    expect(sharedOn(Date.UTC(2026, 4, 3, 23, 30), "en-US", "Asia/Tokyo")).toBe("Shared on May 4, 2026");
  });
});
