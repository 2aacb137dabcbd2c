import { describe, expect, it } from "vitest";
import { message } from "../testing/fixtures";
import { branchOf, lastUserMessage, mayBeOlderOnBranch, siblingPosition } from "./branches";

describe("siblingPosition", () => {
  it("places a message among its versions, with its neighbours", () => {
    const siblings = ["msg_a", "msg_b", "msg_c"];
    expect(siblingPosition({ id: "msg_a", siblings })).toEqual({ index: 0, count: 3, previous: null, next: "msg_b" });
    expect(siblingPosition({ id: "msg_b", siblings })).toEqual({ index: 1, count: 3, previous: "msg_a", next: "msg_c" });
    expect(siblingPosition({ id: "msg_c", siblings })).toEqual({ index: 2, count: 3, previous: "msg_b", next: null });
  });

  it("has no switcher for a message without other versions, or one its list does not name", () => {
    expect(siblingPosition({ id: "msg_a", siblings: ["msg_a"] })).toBeNull();
    expect(siblingPosition({ id: "msg_a" })).toBeNull();
    expect(siblingPosition({ id: "msg_x", siblings: ["msg_a", "msg_b"] })).toBeNull();
  });
});

describe("lastUserMessage", () => {
  it("is the newest user text message, past replies and activity", () => {
    const messages = [
      message({ id: "msg_u1" }),
      message({ id: "msg_a1", role: "assistant" }),
      message({ id: "msg_u2" }),
      message({ id: "msg_a2", role: "assistant" }),
      message({ id: "msg_s", role: "assistant", kind: "status", content: "pipeline_complete" }),
    ];
    expect(lastUserMessage(messages)?.id).toBe("msg_u2");
    expect(lastUserMessage([message({ role: "system" })])).toBeNull();
  });
});

describe("branchOf", () => {
  it("is a user message itself, and the question an answer answers", () => {
    expect(branchOf({ messageId: "msg_u", role: "user", parentId: "msg_before" })).toBe("msg_u");
    expect(branchOf({ messageId: "msg_a", role: "assistant", parentId: "msg_u" })).toBe("msg_u");
  });
});

describe("mayBeOlderOnBranch", () => {
  const shown = [message({ id: "msg_2", createdAt: 2_000 }), message({ id: "msg_3", createdAt: 3_000 })];
  it("is true only for a message older than what is shown, while older pages remain", () => {
    expect(mayBeOlderOnBranch(1_000, shown, true)).toBe(true);
    expect(mayBeOlderOnBranch(2_500, shown, true)).toBe(false);
    expect(mayBeOlderOnBranch(1_000, shown, false)).toBe(false);
  });
});
