// What one message costs in writes and calls: a 750-token answer streamed at 13 ms a token (the pace
// of a real answer, which sets how many coalesced deltas it makes), without and with a tool call. Each
// run's log line says what its thread's object wrote and read since the run before (worker/lib/meter.ts):
// its SQL rows, the rows its owner's object took for what it reported, its RPCs and R2 operations, and
// the rows and bytes it wrote to D1. The bench averages those lines over a few messages.
import { api, openSocket, script, waitForEnds } from "./clients.mjs";
import { sleep } from "./app.mjs";

export const ANSWER_TOKENS = 750;
export const TOKEN_MS = 13;

/** A plausible answer of `tokens` tokens: short words, about a token each, in sentences. */
const answer = (tokens) => Array.from({ length: tokens }, (_, i) => ["the", "plan", "ship", "code", "test", "note"][i % 6] + (i % 11 === 10 ? ".\n" : " ")).join("");

const STEPS = {
  "a 750-token answer": () => [{ kind: "text", text: answer(ANSWER_TOKENS), delayMs: TOKEN_MS }],
  "a 750-token answer after a tool call": () => [
    { kind: "tool_use", tools: [{ name: "time__current_time", input: {} }] },
    { kind: "text", text: answer(ANSWER_TOKENS), delayMs: TOKEN_MS },
  ],
};

/** Each case's costs per message: the mean of its runs' log lines, after one warm-up run. */
export async function perMessage(base, upstream, logs, messages = 3) {
  const out = {};
  for (const [name, steps] of Object.entries(STEPS)) {
    const { thread } = await api(base, "/api/threads", { name: `bench per message: ${name}` });
    const socket = await openSocket(base, thread.id);
    for (let ran = 1; ran <= messages + 1; ran++) {
      const match = `[[cost-${Math.random()}]]`;
      await script(upstream, match, steps());
      await api(base, `/api/threads/${thread.id}/messages`, { content: `Write it up ${match}` });
      await waitForEnds(socket, ran, 60_000);
    }
    await sleep(500); // a run's line comes a moment after its end
    socket.ws.close();
    const measured = new Set(socket.runIds.slice(1));
    const lines = logs.filter((l) => l.message === "run finished" && measured.has(l.runId)).map((l) => l.cost);
    const mean = (key) => lines.reduce((n, c) => n + c[key], 0) / lines.length;
    out[name] = {
      objectRowsWritten: mean("rowsWritten") + mean("ownerRowsWritten"),
      threadRowsRead: mean("rowsRead"),
      ownerRowsWritten: mean("ownerRowsWritten"),
      d1Rows: mean("d1Rows"),
      d1Bytes: mean("d1Bytes"),
      rpcs: mean("rpcs"),
      r2: mean("r2"),
      runs: lines.length,
    };
  }
  return out;
}
