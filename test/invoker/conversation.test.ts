import { describe, expect, it } from "vitest";
import { estimateTokens, normalizeConversation, windowByBudget, type StoredTurn } from "../../worker/invoker/conversation";
import type { ApiMessage } from "../../worker/invoker/types";

const user = (text: string): ApiMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): ApiMessage => ({ role: "assistant", content: [{ type: "text", text }] });
const turn = (exchange: string, message: ApiMessage): StoredTurn => ({ exchange, message, tokens: estimateTokens(message) });

describe("normalizeConversation", () => {
  it("merges consecutive turns of one role and drops empty text, keeping every block", () => {
    const out = normalizeConversation([user("a"), user("b"), assistant(""), { role: "assistant", content: "c" }, user("d")]);
    expect(out).toEqual([
      { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
      { role: "assistant", content: [{ type: "text", text: "c" }] },
      { role: "user", content: [{ type: "text", text: "d" }] },
    ]);
  });
});

describe("windowByBudget", () => {
  const toolUse: ApiMessage = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x__y", input: {} }] };
  const toolResult: ApiMessage = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] };
  const turns = [
    turn("e1", user("x".repeat(400))),
    turn("e1", toolUse),
    turn("e1", toolResult),
    turn("e1", assistant("done")),
    turn("e2", user("y".repeat(400))),
    turn("e2", assistant("fine")),
  ];

  it("keeps everything that fits", () => {
    expect(windowByBudget(turns, 10_000)).toEqual({ messages: turns.map((t) => t.message), dropped: 0 });
  });

  it("drops the oldest whole exchange, tool pair and all", () => {
    const second = turns.filter((t) => t.exchange === "e2").reduce((n, t) => n + t.tokens, 0);
    const { messages, dropped } = windowByBudget(turns, second + 5);
    expect(dropped).toBe(1);
    expect(messages).toEqual([turns[4].message, turns[5].message]);
  });

  it("can drop everything when even the newest exchange does not fit", () => {
    expect(windowByBudget(turns, 10)).toEqual({ messages: [], dropped: 2 });
  });
});

describe("estimateTokens", () => {
  it("counts an image inline in a tool's result as an image, not as its base64's length", () => {
    const shots: ApiMessage = {
      role: "user",
      content: [{
        type: "tool_result",
        tool_use_id: "t1",
        content: [
          { type: "text", text: "3 screenshots" },
          ...[0, 1, 2].map(() => ({ type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: "A".repeat(900_000) } })),
        ],
      }],
    };
    const tokens = estimateTokens(shots);
    expect(tokens).toBeGreaterThan(3 * 1_600);
    expect(tokens).toBeLessThan(3 * 1_600 + 100);
    // So an exchange with screenshots stays in a 200,000-token window, and the history before it too.
    const turns = [turn("e1", user("before")), turn("e1", assistant("ok")), turn("e2", user("look")), turn("e2", shots), turn("e2", assistant("seen"))];
    expect(windowByBudget(turns, 200_000).dropped).toBe(0);
  });
});
