// What onPipelineComplete is given: the seed's outcome of handleMessage (the prompt the chain made,
// the model's result, the steps, the run's stream merged, status and commands), for a run that used a
// tool and for one that failed; and that a plugin whose onPipelineStep throws breaks neither the run
// nor the other plugins' view of its steps.
import { describe, expect, it } from "vitest";
import type { Hooks, PluginDefinition, RunInfo, RunOutcome, StepInfo } from "../../worker/plugins/contract";
import { marker, messagesOf, script, Socket, upstreamRequests } from "../helpers";
import { lastUserText, newThread, runTurn, withPlugin } from "./util";

const STEPS = ["onMessage", "onBeforeInvoke", "invoking", "onAfterInvoke"];
/** What the time plugin's tool answers: the time in words, then in ISO 8601 between parentheses. */
const TIME = /^.+ \(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\)$/;

/** A plugin that keeps what it is given: every step, and the outcome of every run (copied as it was then). */
function observer(name = "observer") {
  const seen = { steps: [] as { step: StepInfo; runId: string }[], outcomes: [] as { outcome: RunOutcome; run: RunInfo; stepsSoFar: number }[] };
  const plugin: PluginDefinition = {
    name,
    version: "0.0.1",
    register: (): Hooks => ({
      onPipelineStep: (step, run) => {
        seen.steps.push({ step: structuredClone(step), runId: run.runId });
      },
      onPipelineComplete: (outcome, run) => {
        seen.outcomes.push({ outcome: structuredClone(outcome), run: structuredClone(run), stepsSoFar: seen.steps.length });
      },
    }),
  };
  return { plugin, seen };
}

/** Changes the prompt on its way (system and prompt both) and takes the /noted command. */
const decorator: PluginDefinition = {
  name: "decorator",
  version: "0.0.1",
  register: (): Hooks => ({
    onBeforeInvoke: (prompt) => ({ system: `${prompt.system}\n\nDECORATED-SYSTEM`, prompt: `${prompt.prompt} [decorated]` }),
    onCommand: (command) => command.name === "noted",
  }),
};

describe("onPipelineComplete's outcome", () => {
  it("a completed run with a tool call: prompt as chained, result, steps in order, stream merged, status, commands", async () => {
    const obs = observer();
    await withPlugin(decorator, () =>
      withPlugin(obs.plugin, async () => {
        const thread = await newThread();
        const m = marker("outcome");
        await script(m, [
          { kind: "tool_use", text: "Let me check the clock.", tools: [{ name: "time__current_time", input: {}, id: "toolu_outcome" }], usage: { input_tokens: 100, output_tokens: 10 } },
          { kind: "text", text: "It is late enough.\n/noted the time\n/unheard-of", thinking: { text: "weighing the answer now", signature: "sig-outcome" }, usage: { input_tokens: 120, output_tokens: 5 } },
        ]);
        const ws = await Socket.open(thread.id);
        const { message, end } = await runTurn(ws, thread.id, `what time is it? ${m}`);
        expect(end.event).toBe("pipeline:complete");

        expect(obs.seen.outcomes).toHaveLength(1);
        const { outcome, run } = obs.seen.outcomes[0];
        expect(run.runId).toBe(ws.events("pipeline:start")[0].data.runId);
        expect(run.messageId).toBe(message.id);

        // The prompt as the onBeforeInvoke chain left it, which is what the model was sent.
        const [first, second] = await upstreamRequests(m);
        expect(outcome.prompt!.prompt).toBe(`what time is it? ${m} [decorated]`);
        expect(outcome.prompt!.system.startsWith(`[Thread: ${thread.id} (general)]`)).toBe(true);
        expect(outcome.prompt!.system.endsWith("\n\nDECORATED-SYSTEM")).toBe(true);
        expect(first.body.system[0].text).toBe(outcome.prompt!.system);
        expect(lastUserText(first.body)).toBe(outcome.prompt!.prompt);

        // The result: all the text across the tool turn, both requests' usage, the turns it adds.
        const output = "Let me check the clock.\n\nIt is late enough.\n/noted the time\n/unheard-of";
        expect(outcome.result).toMatchObject({
          output,
          model: thread.model,
          usage: { inputTokens: 220, outputTokens: 15, cacheReadTokens: 0, cacheWriteTokens: 0 },
          stopReason: "end_turn",
          toolCalls: 1,
        });
        expect(outcome.result!.turns.map((t) => t.role)).toEqual(["user", "assistant", "user", "assistant"]);
        expect(outcome.usage).toEqual(outcome.result!.usage);
        expect(outcome.assistantMessage).toMatchObject({ role: "assistant", content: output, parentId: message.id });
        expect(ws.events("chat:message").pop()!.data.message.id).toBe(outcome.assistantMessage!.id);

        // The steps, in order, as the sockets saw them.
        expect(outcome.steps).toEqual(STEPS);
        expect(ws.events("pipeline:step").map((f) => f.data.step)).toEqual(STEPS);

        // The stream: each run of text or thinking deltas merged into one event, tool call and result whole.
        const toolResult = second.body.messages.at(-1).content[0];
        expect(toolResult).toMatchObject({ type: "tool_result", tool_use_id: "toolu_outcome" });
        expect(outcome.streamEvents).toEqual([
          { type: "text", delta: "Let me check the clock." },
          { type: "tool_call", toolUseId: "toolu_outcome", toolName: "time__current_time", input: {} },
          { type: "tool_result", toolUseId: "toolu_outcome", toolName: "time__current_time", content: toolResult.content, isError: false },
          { type: "thinking", delta: "weighing the answer now" },
          { type: "text", delta: "\n\nIt is late enough.\n/noted the time\n/unheard-of" },
        ]);
        expect(toolResult.content).toMatch(TIME);
        // The sockets got the text in more pieces than that: the merge is the outcome's own.
        expect(ws.events("pipeline:stream").filter((f) => f.data.type === "text").length).toBeGreaterThanOrEqual(2);

        expect(outcome.status).toBe("completed");
        expect(outcome.error).toBeUndefined();
        expect(outcome.commandsHandled).toEqual(["noted"]);
        expect(outcome.commandsUnhandled).toEqual(["unheard-of"]);
        expect(end.data).toMatchObject({ commandsHandled: ["noted"], commandsUnhandled: ["unheard-of"] });
        expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
        expect(outcome.durationMs).toBeLessThan(10_000);
        ws.close();
      }),
    );
  });

  it("a failed run: status, error, the prompt it got to, the steps it reached, no commands", async () => {
    const obs = observer();
    await withPlugin(decorator, () =>
      withPlugin(obs.plugin, async () => {
        const thread = await newThread();
        const m = marker("outcome-fail");
        await script(m, [{ kind: "error", status: 400, message: "messages: something the API refuses" }]);
        const ws = await Socket.open(thread.id);
        const { end } = await runTurn(ws, thread.id, `this will fail ${m}`);
        expect(end.event).toBe("pipeline:error");

        expect(obs.seen.outcomes).toHaveLength(1);
        const { outcome } = obs.seen.outcomes[0];
        expect(outcome.status).toBe("failed");
        expect(outcome.error).toEqual({ code: end.data.code, message: end.data.message, retryable: false });
        expect(outcome.error!.code).toBe("invalid_request");
        expect(outcome.result).toBeUndefined();
        expect(outcome.assistantMessage).toBeUndefined();
        expect(outcome.prompt).toEqual({ system: expect.stringMatching(/\n\nDECORATED-SYSTEM$/), prompt: `this will fail ${m} [decorated]` });
        expect(outcome.steps).toEqual(["onMessage", "onBeforeInvoke", "invoking"]);
        expect(outcome.streamEvents).toEqual([]);
        expect(outcome.commandsHandled).toEqual([]);
        expect(outcome.commandsUnhandled).toEqual([]);
        expect(await upstreamRequests(m)).toHaveLength(1); // a 400 is not retried
        ws.close();
      }),
    );
  });
});

describe("a plugin whose onPipelineStep throws", () => {
  const throwing = (step: string): void => {
    throw new Error(`step ${step} exploded`);
  };
  const rejecting = async (step: string): Promise<void> => {
    throw new Error(`step ${step} rejected`);
  };
  const failures: [string, (step: string) => void | Promise<void>][] = [
    ["throws", throwing],
    ["rejects (an async hook)", rejecting],
  ];

  it.each(failures)("breaks nothing when it %s: the run completes, and the plugins after it see every step", async (_, fail) => {
    const thrown: string[] = [];
    const thrower: PluginDefinition = {
      name: "step-thrower",
      version: "0.0.1",
      register: (): Hooks => ({
        onPipelineStep: (step) => {
          thrown.push(step.step);
          return fail(step.step);
        },
      }),
    };
    const obs = observer();
    // First in line, so every other plugin's onPipelineStep comes after its failure.
    await withPlugin(
      thrower,
      () =>
        withPlugin(obs.plugin, async () => {
          const thread = await newThread();
          const m = marker("step-throw");
          await script(m, [
            { kind: "tool_use", tools: [{ name: "time__current_time", input: {}, id: "toolu_steps" }] },
            { kind: "text", text: "Fine after all." },
          ]);
          const ws = await Socket.open(thread.id);
          const { end } = await runTurn(ws, thread.id, `carry on ${m}`);
          expect(end.event).toBe("pipeline:complete");
          expect(ws.events("chat:message").pop()!.data.message.content).toBe("Fine after all.");

          expect(thrown).toEqual(STEPS);
          // The observer (registered last) saw each step, with what the step carries, before the outcome.
          expect(obs.seen.steps.map((s) => s.step.step)).toEqual(STEPS);
          const runId = ws.events("pipeline:start")[0].data.runId;
          expect(obs.seen.steps.every((s) => s.runId === runId)).toBe(true);
          expect(obs.seen.steps[2].step).toEqual({ step: "invoking", detail: thread.model });
          expect(obs.seen.steps[3].step.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
          expect(obs.seen.outcomes).toHaveLength(1);
          expect(obs.seen.outcomes[0].stepsSoFar).toBe(4);
          expect(obs.seen.outcomes[0].outcome).toMatchObject({ status: "completed", steps: STEPS });

          // The built-in activity plugin (also after it) stored a row for every step.
          const rows = (await messagesOf(thread.id, "?kinds=pipeline_step")).messages;
          expect(rows.map((r) => r.content)).toEqual(STEPS);
          ws.close();
        }),
      0,
    );
  });

  // An async step hook ahead in line puts off the later plugins' hooks: the run waits for them all
  // before onPipelineComplete, where the activity plugin stores its rows.
  it("an async onPipelineStep ahead in line costs the activity plugin no step row", async () => {
    const slowish: PluginDefinition = {
      name: "step-async",
      version: "0.0.1",
      register: (): Hooks => ({ onPipelineStep: async () => {} }),
    };
    await withPlugin(
      slowish,
      async () => {
        const thread = await newThread();
        const m = marker("step-async");
        await script(m, [{ kind: "text", text: "Rows, please." }]);
        const ws = await Socket.open(thread.id);
        const { end } = await runTurn(ws, thread.id, `log it ${m}`);
        expect(end.event).toBe("pipeline:complete");
        const rows = (await messagesOf(thread.id, "?kinds=pipeline_step")).messages;
        ws.close();
        expect(rows.map((r) => r.content)).toEqual(STEPS);
      },
      0,
    );
  });
});
