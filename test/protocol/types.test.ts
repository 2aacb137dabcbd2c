// The protocol is checked by the compiler: a wrong payload for a known event, or a route answered
// with the wrong shape, does not compile. Each @ts-expect-error below fails `npm run typecheck` if
// the line it marks ever compiles.
import { describe, expect, it } from "vitest";
import type { ResponseOf } from "../../protocol";
import type { Broadcaster } from "../../worker/thread/broadcaster";

function emits(b: Broadcaster) {
  b.emit("pipeline:complete", { threadId: "t", runId: "r", commandsHandled: [], commandsUnhandled: [], durationMs: 1 });
  // @ts-expect-error pipeline:complete needs durationMs
  b.emit("pipeline:complete", { threadId: "t", runId: "r", commandsHandled: [], commandsUnhandled: [] });
  // @ts-expect-error pipeline:error's code is one of the protocol's run error codes
  b.emit("pipeline:error", { threadId: "t", runId: "r", code: "oops", message: "m", retryable: false });
  // @ts-expect-error a text stream event carries a delta, not content
  b.emit("pipeline:stream", { threadId: "t", runId: "r", type: "text", content: "x" });
  // @ts-expect-error an event the protocol does not have
  b.emit("pipeline:finished", {});
}

function answers(): ResponseOf<"GET /api/threads/:id"> {
  // @ts-expect-error GET a thread answers { thread }, not the thread itself
  return { id: "t", name: "n" };
}

describe("the protocol's types", () => {
  it("are checked at compile time (see the @ts-expect-error cases in this file)", () => {
    expect(typeof emits).toBe("function");
    expect(typeof answers).toBe("function");
  });
});
