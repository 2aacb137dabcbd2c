import { describe, expect, it } from "vitest";
import { configOf, type Env } from "../../worker/env";
import { createInvoker, providerOf } from "../../worker/invoker/client";
import type { StreamEvent } from "../../worker/invoker/types";

// No ANTHROPIC_API_KEY: the offline model answers through the real SDK, in the API's own format.
const offlineEnv = {} as Env;

function request(prompt: string, events: StreamEvent[], tools = [{ name: "time__current_time", description: "time", input_schema: { type: "object" as const } }]) {
  return {
    model: "claude-sonnet-4-6",
    system: [],
    prompt,
    history: [],
    tools,
    runTool: async () => ({ content: "teatime", isError: false }),
    onEvent: (e: StreamEvent) => void events.push(e),
    signal: new AbortController().signal,
  };
}

describe("the offline model", () => {
  it("is what runs without a key, and streams thinking and text through the SDK", async () => {
    expect(providerOf(offlineEnv)).toBe("offline");
    const events: StreamEvent[] = [];
    const result = await createInvoker(offlineEnv, configOf(offlineEnv)).invoke(request("hello there", events));
    expect(events[0].type).toBe("thinking");
    const text = events.filter((e) => e.type === "text").map((e) => (e as { delta: string }).delta).join("");
    expect(text).toBe(result.output);
    expect(result.output).toContain("You said: “hello there”");
    expect(result.output).toContain("ANTHROPIC_API_KEY");
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.stopReason).toBe("end_turn");
    const thinking = (result.turns[1].content as any[])[0];
    expect(thinking).toMatchObject({ type: "thinking", signature: expect.stringMatching(/^offline-/) });
  });

  it("calls a plugin tool when one fits, and answers with its result", async () => {
    const events: StreamEvent[] = [];
    const result = await createInvoker(offlineEnv, configOf(offlineEnv)).invoke(request("what time is it?", events));
    expect(events.find((e) => e.type === "tool_call")).toMatchObject({ toolName: "time__current_time", input: {} });
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ content: "teatime", isError: false });
    expect(result.output).toBe("The tool says: teatime");
    expect(result.toolCalls).toBe(1);
  });

  it("says that running code needs Claude (it is offered no code execution tool)", async () => {
    const events: StreamEvent[] = [];
    const result = await createInvoker(offlineEnv, configOf(offlineEnv)).invoke(request("plot these numbers: 3, 5, 8", events, []));
    expect(result.output).toBe("**Offline model.** I cannot run code: code execution (analysis, charts, files) needs Claude (set `ANTHROPIC_API_KEY`).");
    expect(configOf(offlineEnv).codeExecution).toBe(false);
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const pending = createInvoker(offlineEnv, configOf(offlineEnv)).invoke({ ...request("a long enough message to stream for a while", events, []), signal: controller.signal });
    setTimeout(() => controller.abort("stopped"), 20);
    await expect(pending).rejects.toMatchObject({ error: { code: "aborted" } });
  });
});
