// The user's object in the bench: the user routes' D1 round trips and search among many users, on one
// app started with DEV_FAULTS=1, whose /api/dev routes count D1's round trips and seed a user's object
// with text messages. (D1 away: d1-away.mjs.)
import { sleep } from "./app.mjs";
import { api, now, openSocket, script, waitForEnds } from "./clients.mjs";

/** The user routes that must not reach D1 (each a GET). */
const USER_ROUTES = { list: "/api/threads", search: "/api/search?q=river", metrics: "/api/metrics", context: "/api/context" };
export const SEARCHES = ["river quick", "lantern", "number1234"];

const roundTrips = async (base) => (await api(base, "/api/dev/d1")).roundTrips;

/** Waits for a log line (`match`) among the app's, past index `from`; null after `timeoutMs`. */
async function logLine(logs, match, { from = 0, timeoutMs = 30_000 } = {}) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const line = logs.slice(from).find(match);
    if (line || Date.now() > until) return line ?? null;
    await sleep(50);
  }
}

/** One run on the thread (10 stamped tokens), and its "run finished" line (its D1 flush is done then). */
async function runOnce(base, upstream, logs, socket, threadId) {
  const match = `[[user-object-${Math.random()}]]`;
  await script(upstream, match, [{ kind: "clock", count: 10, delayMs: 2 }]);
  socket.stamps = [];
  const ended = socket.ends.length;
  await api(base, `/api/threads/${threadId}/messages`, { content: match });
  await waitForEnds(socket, ended + 1);
  const runId = socket.runIds.at(-1);
  await logLine(logs, (l) => l.message === "run finished" && l.runId === runId, { timeoutMs: 10_000 });
  return { completed: socket.ends.at(-1).event === "pipeline:complete", tokens: socket.stamps.length, runId };
}

/**
 * A thread with one finished run (so the routes have something to answer), then the user routes,
 * each warmed once (the user's object imports from D1 on first touch), called `times` more: the D1
 * round trips meanwhile, in all and by route. No run is under way, so no thread's flush counts.
 */
export async function userRouteRoundTrips(base, upstream, logs, times = 5) {
  const { thread } = await api(base, "/api/threads", { name: "bench user object" });
  const socket = await openSocket(base, thread.id);
  await runOnce(base, upstream, logs, socket, thread.id);
  socket.ws.close();
  for (const path of Object.values(USER_ROUTES)) await api(base, path);
  await sleep(300);
  const byRoute = {};
  const start = await roundTrips(base);
  for (const [name, path] of Object.entries(USER_ROUTES)) {
    const before = await roundTrips(base);
    for (let i = 0; i < times; i++) await api(base, path);
    byRoute[name] = (await roundTrips(base)) - before;
  }
  const total = (await roundTrips(base)) - start;
  // `start` is not 0: the import and the run's flush counted, so the counter does count.
  return { threadId: thread.id, total, byRoute, calls: times * Object.keys(USER_ROUTES).length, counted: start };
}

/** `rounds` rounds of SEARCHES (after 3 unmeasured): each GET /api/search's ms. */
async function searchTimes(base, rounds) {
  const out = [];
  for (let i = 0; i < rounds + 3; i++) {
    for (const q of SEARCHES) {
      const t = now();
      const { results } = await api(base, `/api/search?q=${encodeURIComponent(q)}`);
      if (results.length === 0) throw new Error(`search "${q}" found nothing in the seeded messages`);
      if (i >= 3) out.push(now() - t);
    }
  }
  return out;
}

/**
 * Search over one user's `messages` seeded messages, with no one else's in the app, then again after
 * `others` other users were seeded as much (`parallel` at once: the app is one process on a small
 * machine). Answers both sets of timings and how long the seeding took.
 */
export async function searchAmongUsers(base, { messages = 2_000, others = 99, rounds = 20, parallel = 3 } = {}) {
  await api(base, "/api/dev/seed", { messages });
  const alone = await searchTimes(base, rounds);
  const seedStart = now();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < others) await api(base, "/api/dev/seed", { messages, userId: `bench-user-${next++}` });
    }),
  );
  const seedSeconds = (now() - seedStart) / 1000;
  await sleep(1_000);
  const among = await searchTimes(base, rounds);
  return { alone, among, seedSeconds };
}
