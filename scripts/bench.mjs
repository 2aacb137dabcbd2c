#!/usr/bin/env node
// npm run bench: the app under `wrangler dev`, against the fake Messages API in this process, so one
// clock times both ends. Prints medians and p95 over repeated runs; nothing here is a pass/fail test.
//
//   npm run bench -- [--runs 25] [--tokens 40] [--token-delay-ms 2] [--d1-latency 40]
//   npm run bench -- --compare <rev> [--pairs 3]
//
// With --d1-latency, the app runs twice, the second time with that delay added to every D1 round
// trip (a primary one region away), and the table prints both side by side. With --compare, only the
// latency legs, this checkout against <rev>, in pairs run back to back (scripts/bench/compare.mjs).
import { startFakeUpstream } from "../test/fake-upstream/server.mjs";
import { d1PerRun, sleep, startApp } from "./bench/app.mjs";
import { compare } from "./bench/compare.mjs";
import { cacheablePrefix, coldRuns, fanout, firstPost, floor, latency, manyThreads, spendPastCap } from "./bench/scenarios.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const opts = { runs: Number(args.runs ?? 25), tokens: Number(args.tokens ?? 40), tokenDelayMs: Number(args["token-delay-ms"] ?? 2) };
const d1Latency = Number(args["d1-latency"] ?? 0);
const FANOUT = [1, 10, 100];

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

/** Every scenario against one app; answers [label, stats] rows and notes. */
async function measure(upstream, vars, { withFanout }) {
  const app = await startApp(upstream.url, vars);
  try {
    const lat = await latency(app.base, upstream, opts);
    const cold = await coldRuns(app.base, upstream, 10);
    const rows = [
      ["a request that does nothing, round trip (ms)", stats(await floor(app.base, opts.runs))],
      ["POST → upstream request (ms)", stats(lat.overhead)],
      ["socket send → upstream request (ms)", stats(lat.socketOverhead)],
      ["upstream delta → socket delta, every token (ms)", stats(lat.tokenLatency)],
      ["upstream delta → socket delta, first token (ms)", stats(lat.firstToken)],
      ["upstream delta → socket delta, last token (ms)", stats(lat.lastToken)],
      ["upstream end → pipeline:complete (ms)", stats(lat.endToComplete)],
      ["new thread's first post → upstream request, cold (ms)", stats(await firstPost(app.base, upstream, 10, { prewarm: false }))],
      ["new thread's first post → upstream request, prewarmed (ms)", stats(await firstPost(app.base, upstream, 10, { prewarm: true }))],
    ];
    const notes = [];
    if (withFanout) {
      const shares = await cacheablePrefix(app.base, upstream);
      rows.push(["cacheable prefix share, 10 turns with 20 KB of context (%)", stats(shares)]);
      notes.push(`cacheable prefix share by turn (2 to 10): ${shares.map((s) => s.toFixed(1)).join(", ")} %`);
      const order = [];
      for (const n of FANOUT) {
        const fan = await fanout(app.base, upstream, n, opts);
        rows.push([`POST → all ${n} socket(s) have the full text (ms)`, stats(fan.allHaveText)]);
        order.push(`${n}: ${fan.inOrder ? "every token, in order" : "MISSING OR OUT OF ORDER TOKENS"}`);
      }
      notes.push(`fan-out delivery: ${order.join("; ")}`);
    }
    // Fresh threads for each path, and a pause between: neither finds objects the other woke or busy.
    const manyPosts = await manyThreads(app.base, upstream, 50, opts, "post");
    await sleep(500);
    const manySends = await manyThreads(app.base, upstream, 50, opts, "socket");
    await sleep(500); // runs log a moment after they end
    const warm = d1PerRun(app.logs, lat.runIds);
    const coldD1 = d1PerRun(app.logs, cold);
    rows.push(
      ["D1 round trips before the model request (warm thread)", stats(warm.map((r) => r.beforeModel))],
      ["D1 round trips before the model request (cold object)", stats(coldD1.map((r) => r.beforeModel))],
      ["D1 round trips per run", stats(warm.map((r) => r.total))],
      ["50 threads at once, by POST: wall ms, errors", { median: manyPosts.wall, p95: manyPosts.errors, n: 50, pair: true }],
      ["50 threads at once, by socket: wall ms, errors", { median: manySends.wall, p95: manySends.errors, n: 50, pair: true }],
      ["50 threads at once: POST → upstream request (ms)", stats(manyPosts.toUpstream)],
      ["50 threads at once: socket send → upstream request (ms)", stats(manySends.toUpstream)],
    );
    return { rows, notes };
  } finally {
    app.stop();
  }
}

const fmt = (v) => (v === undefined ? "-" : v >= 100 ? v.toFixed(0) : Number.isInteger(v) ? String(v) : v.toFixed(1));
const cell = (s) => (s.pair ? `${fmt(s.median)}, ${s.p95}` : `${fmt(s.median)} / ${fmt(s.p95)}`);

/** The spend cap under 20 runs started at once, on an app of its own with a $1 cap. */
async function capped(upstream) {
  const app = await startApp(upstream.url, { USER_DAILY_COST_USD: "1" });
  try {
    const { pastUsd, ran } = await spendPastCap(app.base, upstream, 1);
    return { median: Number(pastUsd.toFixed(3)), p95: ran, n: 20, pair: true };
  } finally {
    app.stop();
  }
}

/** The table: every scenario, and again with D1 one region away when --d1-latency is given. */
async function table(upstream) {
  console.log(`bench: ${opts.runs} runs, ${opts.tokens} tokens per answer, ${opts.tokenDelayMs} ms between tokens upstream\n`);
  const base = await measure(upstream, {}, { withFanout: true });
  base.rows.push(["spend past the cap, 20 runs at once (USD), runs that ran", await capped(upstream)]);
  const slow = d1Latency ? await measure(upstream, { D1_LATENCY_MS: d1Latency }, { withFanout: false }) : null;
  const width = Math.max(...base.rows.map(([name]) => name.length));
  const head = ["median / p95", ...(slow ? [`with D1 +${d1Latency} ms`] : []), "samples"];
  console.log(`${"metric".padEnd(width)} | ${head.map((h) => h.padStart(16)).join(" | ")}`);
  console.log(`${"-".repeat(width)}-|-${head.map(() => "-".repeat(16)).join("-|-")}`);
  for (const [name, s] of base.rows) {
    const other = slow?.rows.find(([n]) => n === name)?.[1];
    const cells = [cell(s), ...(slow ? [other ? cell(other) : "-"] : []), String(s.n)];
    console.log(`${name.padEnd(width)} | ${cells.map((c) => c.padStart(16)).join(" | ")}`);
  }
  for (const note of base.notes) console.log(`\n${note}`);
  console.log(`(the upstream takes ≈${opts.tokens * opts.tokenDelayMs} ms to stream each answer; socket deltas are coalesced every ~30 ms)`);
}

const upstream = await startFakeUpstream({ port: 0 });
try {
  if (args.compare) await compare(upstream, args.compare, Number(args.pairs ?? 3), opts);
  else await table(upstream);
} finally {
  await upstream.close();
}
