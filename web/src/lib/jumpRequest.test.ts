import { describe, expect, it } from "vitest";
import { message } from "../testing/fixtures";
import { MAX_JUMP_PAGES, nextJumpStep, type JumpRequest } from "./jumpRequest";

const request: JumpRequest = { threadId: "thr_1", messageId: "msg_hit", branchTo: "msg_q", createdAt: 1_000 };
const fresh = { pages: 0, switched: false };
const shownFrom = (createdAt: number, hasOlder: boolean, extra = {}) => {
  const messages = [message({ id: "msg_a", createdAt }), message({ id: "msg_b", createdAt: createdAt + 1 })];
  return { messages, ids: new Set(messages.map((m) => m.id)), hasOlder, running: false, ...extra };
};

describe("nextJumpStep", () => {
  it("shows the message once it is on screen", () => {
    const shown = shownFrom(500, true);
    expect(nextJumpStep(request, { ...shown, ids: new Set([...shown.ids, "msg_hit"]) }, fresh)).toEqual({ do: "show" });
  });

  it("loads older pages while the message is older than all that is shown, up to a bound", () => {
    expect(nextJumpStep(request, shownFrom(2_000, true), fresh)).toEqual({ do: "loadOlder" });
    expect(nextJumpStep(request, shownFrom(2_000, true), { pages: MAX_JUMP_PAGES, switched: false })).toEqual({ do: "switch", to: "msg_q" });
  });

  it("switches to its branch when the branch shown cannot hold it, once", () => {
    expect(nextJumpStep(request, shownFrom(500, true), fresh)).toEqual({ do: "switch", to: "msg_q" });
    expect(nextJumpStep(request, shownFrom(2_000, false), fresh)).toEqual({ do: "switch", to: "msg_q" });
    expect(nextJumpStep(request, shownFrom(2_000, false), { pages: 0, switched: true })).toMatchObject({ do: "giveUp" });
  });

  it("does not switch branches during a reply (the server would refuse)", () => {
    expect(nextJumpStep(request, shownFrom(500, false, { running: true }), fresh)).toMatchObject({
      do: "giveUp",
      why: expect.stringMatching(/once the reply has finished/),
    });
  });

  it("gives up on a message with no branch to switch to", () => {
    expect(nextJumpStep({ ...request, branchTo: null }, shownFrom(500, false), fresh)).toEqual({
      do: "giveUp",
      why: "That message is no longer in this thread.",
    });
  });
});
