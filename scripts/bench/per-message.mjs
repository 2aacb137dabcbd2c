// What one message costs in writes and calls: a 750-token answer streamed at 13 ms a token (the pace
// of a real answer, which sets how many coalesced deltas it makes), without and with a tool call. Each
// run's log line says what its thread's object wrote and read since the run before (worker/lib/meter.ts):
// its SQL rows, the rows its owner's object took for what it reported, its RPCs and R2 operations, and
// the rows and bytes it wrote to D1. The owner's object sends the day's usage to D1 a minute after a
// run (for all the runs in that minute), on a line of its own: the bench waits for it and shares it
// among the case's runs. The bench averages those lines over a few messages.
import { api, openSocket, script, waitForEnds } from "./clients.mjs";
import { sleep } from "./app.mjs";
import { objectBytes } from "./stored.mjs";

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

/** The owner's roll-up goes a minute after the first run it counts (worker/user/spend/spend.ts). */
const ROLL_UP_WAIT_MS = 75_000;

/** The first log line from index `from` on that `match` takes, or null after `timeoutMs`. */
async function waitForLine(logs, from, match, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = logs.slice(from).find(match);
    if (line) return line;
    await sleep(250);
  }
  return null;
}

const FIRST = "a new thread's first message, its creation included";

/** The payload bytes the threads' and the users' objects gained per message between two readings. */
function perMessageKept(before, after, messages) {
  return { threadBytesKept: ((after.thread ?? 0) - (before.thread ?? 0)) / messages, ownerBytesKept: ((after.user ?? 0) - (before.user ?? 0)) / messages };
}

/** The mean of runs' log lines' costs, with the owner's roll-up's share. */
function row(runs, shared) {
  const lines = runs.map((l) => l.cost);
  const mean = (key) => lines.reduce((n, c) => n + (c[key] ?? 0), 0) / lines.length;
  return {
    runSeconds: runs.reduce((n, l) => n + l.durationMs, 0) / runs.length / 1000,
    objectRowsWritten: mean("rowsWritten") + mean("ownerRowsWritten") + shared("rowsWritten"),
    threadRowsRead: mean("rowsRead"),
    ownerRowsWritten: mean("ownerRowsWritten") + shared("rowsWritten"),
    d1Rows: mean("d1Rows") + shared("d1Rows"),
    d1Bytes: mean("d1Bytes") + shared("d1Bytes"),
    rpcs: mean("rpcs"),
    r2: mean("r2"),
    r2Writes: mean("r2Writes"),
    runs: lines.length,
  };
}

/** Each case's costs per message: the mean of its runs' log lines, after one warm-up run. */
export async function perMessage(base, upstream, logs, stateDir, messages = 3) {
  const out = {};
  const kept = {};
  // The deployment's first read of the plugin configs makes their copy (D1, R2): not a message's cost.
  await api(base, "/api/plugins");
  for (const [name, steps] of Object.entries(STEPS)) {
    const caseStart = logs.length;
    const { thread } = await api(base, "/api/threads", { name: `bench per message: ${name}` });
    const socket = await openSocket(base, thread.id);
    let keptBefore = null;
    for (let ran = 1; ran <= messages + 1; ran++) {
      const match = `[[cost-${Math.random()}]]`;
      await script(upstream, match, steps());
      await api(base, `/api/threads/${thread.id}/messages`, { content: `Write it up ${match}` });
      await waitForEnds(socket, ran, 60_000);
      // What the objects keep, after the warm-up and after the last (a run's housekeeping done).
      if (ran === 1 || ran === messages + 1) {
        await sleep(1_500);
        if (ran === 1) keptBefore = objectBytes(stateDir);
        else kept[name] = perMessageKept(keptBefore, objectBytes(stateDir), messages);
      }
    }
    await sleep(500); // a run's line comes a moment after its end
    socket.ws.close();
    const rollUp = await waitForLine(logs, caseStart, (l) => l.message === "usage days flushed", ROLL_UP_WAIT_MS);
    const costOf = (runIds) => logs.filter((l) => l.message === "run finished" && runIds.includes(l.runId));
    // The roll-up covered every run of the case, the warm-up's too.
    const shared = (key) => (rollUp?.cost[key] ?? 0) / socket.runIds.length;
    out[name] = { ...row(costOf(socket.runIds.slice(1)), shared), ...kept[name] };
    // The warm-up: a new thread's first message, its creation included (the object's first cost line).
    if (!out[FIRST]) out[FIRST] = row(costOf(socket.runIds.slice(0, 1)), shared);
  }
  return out;
}
