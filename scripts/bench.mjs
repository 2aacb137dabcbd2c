#!/usr/bin/env node
// npm run bench: the app under `wrangler dev`, against the fake Messages API in this process, so one
// clock times both ends. Prints medians and p95 over repeated runs; nothing here is a pass/fail test.
//
//   npm run bench -- [--runs 25] [--tokens 40] [--token-delay-ms 2] [--d1-latency 40]
//   npm run bench -- --compare <rev> [--pairs 3]
//   npm run bench -- --only user,cap        (some parts only: main, cap, user, first, knowledge, cost)
//   npm run bench -- --only cost --save docs/scale-figures.json   (the figures npm run scale reads)
//   npm run bench -- --only first --peer <dir>   (the first leg beside a peer app's, in the same run)
//
// With --d1-latency, the app runs twice, the second time with that delay added to every D1 round
// trip (a primary one region away), and the table prints both side by side. With --compare, only the
// latency legs, this checkout against <rev>, in pairs run back to back (scripts/bench/compare.mjs).
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startFakeUpstream } from "../test/fake-upstream/server.mjs";
import { startMcpServers } from "../test/mcp/server.mjs";
import { d1PerRun, sleep, startApp } from "./bench/app.mjs";
import { d1RowBytes } from "./bench/stored.mjs";
import { api } from "./bench/clients.mjs";
import { compare } from "./bench/compare.mjs";
import { cacheablePrefix, coldRuns, fanout, firstPost, floor, latency, manyThreads, spendPastCap } from "./bench/scenarios.mjs";
import { d1AwayFromTheStart } from "./bench/d1-away.mjs";
import { SEARCHES, searchAmongUsers, userRouteRoundTrips } from "./bench/user-object.mjs";
import { ANSWER_TOKENS, perMessage, TOKEN_MS } from "./bench/per-message.mjs";
import { ingest, retrieval } from "./bench/knowledge.mjs";
import { apiLatency } from "./bench/api-endpoint.mjs";
import { researchWall } from "./bench/research.mjs";
import { firstLeg, MESSAGES } from "./bench/first-leg.mjs";
import { bareObjectLeg } from "./bench/bare-object.mjs";
import { docxParts, prose, zipParts } from "../test/extract/ooxml-builder.ts";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const opts = { runs: Number(args.runs ?? 25), tokens: Number(args.tokens ?? 40), tokenDelayMs: Number(args["token-delay-ms"] ?? 2) };
const d1Latency = Number(args["d1-latency"] ?? 0);
const FANOUT = [1, 10, 100];
// The table's parts: every scenario on one app (main), the spend cap's app (cap), the user's object's (user).
const only = args.only ? new Set(args.only.split(",")) : null;
const part = (name) => !only || only.has(name);

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

/**
 * The latency legs again with one MCP server connected (the test servers' tools, test/mcp/server.mjs):
 * its tool list rides with step 0's cached inputs, so a warm post waits on nothing more.
 */
async function withMcpServer(base, upstream) {
  const mcp = await startMcpServers();
  try {
    await api(base, "/api/mcp/servers", { name: `bench${Date.now() % 100000}`, url: `${mcp.url}/tools/mcp` });
    const lat = await latency(base, upstream, opts);
    const offered = lat.toolNames.filter((n) => n.startsWith("bench")).length;
    return [
      [`POST → upstream request, one MCP server connected (${offered} tools offered) (ms)`, stats(lat.overhead)],
      ["socket send → upstream request, one MCP server connected (ms)", stats(lat.socketOverhead)],
    ];
  } finally {
    await mcp.close();
  }
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
      ["API (chat completions, streaming) send → upstream request (ms)", stats((await apiLatency(app.base, upstream, opts)).overhead)],
      ["upstream delta → socket delta, every token (ms)", stats(lat.tokenLatency)],
      ["upstream delta → socket delta, first token (ms)", stats(lat.firstToken)],
      ["upstream delta → socket delta, last token (ms)", stats(lat.lastToken)],
      ["upstream end → pipeline:complete (ms)", stats(lat.endToComplete)],
      ...(await withMcpServer(app.base, upstream)),
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
      rows.push(["research, 5 tasks of 2 s: wall (ms)", stats(await researchWall(app.base, upstream, 5))]);
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
const cell = (s) => (s.text !== undefined ? s.text : s.pair ? `${fmt(s.median)}, ${s.p95}` : `${fmt(s.median)} / ${fmt(s.p95)}`);

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

/**
 * The user's object, on an app of its own with the bench's D1 switch (DEV_FAULTS=1): the user routes'
 * D1 round trips and search among 100 users; then, on a fresh app, D1 away from the first request,
 * then back, and a share link's 1,000 views.
 */
async function userObject(upstream) {
  const app = await startApp(upstream.url, { DEV_FAULTS: "1" });
  let trips, search;
  try {
    trips = await userRouteRoundTrips(app.base, upstream, app.logs);
    search = await searchAmongUsers(app.base);
  } finally {
    app.stop();
  }
  const away = await d1AwayFromTheStart(upstream);
  const alone = stats(search.alone);
  const among = stats(search.among);
  const names = Object.keys(away.answered);
  const failed = names.filter((n) => !away.answered[n]);
  const byRoute = (counts) => Object.entries(counts).map(([n, v]) => `${n} ${v}`).join(", ");
  const rows = [
    ["D1 round trips on user routes (list, search, metrics, context)", { text: String(trips.total), n: trips.calls }],
    ["search ms, one user's 2,000 messages, alone", alone],
    ["search ms, one user's 2,000 messages, among 100 users × 2,000 messages", among],
    ["search, among 100 users ÷ alone (medians)", { text: `${(among.median / alone.median).toFixed(2)}×`, n: among.n }],
    ["D1 away from the first request: answered", { text: `${names.length - failed.length}/${names.length}${failed.length ? ` (not ${failed.join(", ")})` : ""}`, n: names.length }],
    ["D1 back: its record caught up after (s)", { text: away.caughtUp === null ? "not in 120 s" : away.caughtUp.toFixed(1), n: 1 }],
    [`a share link viewed ${away.share.views} times: views that reached its owner's object`, { text: String(away.share.ownerReaches), n: away.share.views }],
    ["a share view ms (20 readers at once)", stats(away.share.times)],
  ];
  const notes = [
    `D1 round trips on user routes, by route (${trips.calls / 4} calls each, warm): ${byRoute(trips.byRoute)} (the counter stood at ${trips.counted} before them, from a run and its flush: it does count)`,
    `search seeding: 99 users × 2,000 messages in ${search.seedSeconds.toFixed(0)} s; searches: ${SEARCHES.join(", ")}`,
    `D1 away from the first request: ${names.map((n) => `${n} ${away.answered[n] ? "answered" : "FAILED"}`).join(", ")}`,
    `D1 back: the thread's directory row ${away.record.directory ? "in D1" : "MISSING"}, the day's runs in the roll-up ${away.record.usageRuns} (the roll-up goes a minute after a run); share views refused: ${away.share.failed}`,
  ];
  return { rows, notes };
}

/** A Word document of about 1 MB: headings every 40 paragraphs of prose, stored without compression. */
function megabyteDocx() {
  const blocks = [];
  for (let i = 0; blocks.length < 1_200; i++) blocks.push(i % 40 === 0 ? { heading: `Chapter ${i / 40 + 1}`, level: 1 } : { p: prose(160, i + 1) });
  return zipParts(docxParts(blocks), 0);
}

/** A project's knowledge, on an app of its own: search over 10,000 passages, and a 1 MB DOCX's ingest. */
async function knowledge(upstream) {
  const app = await startApp(upstream.url);
  try {
    const found = await retrieval(app.base);
    const read = await ingest(app.base, megabyteDocx);
    return {
      rows: [
        ["retrieval, 10,000 passages (ms)", stats(found.times)],
        ["ingest, 1 MB DOCX (ms)", stats(read.times)],
      ],
      notes: [`knowledge: ${found.indexed} passages indexed; the DOCX is ${(read.bytes / 1024 / 1024).toFixed(2)} MB, upload to ready (extracted after the answer, then cut and indexed)`],
    };
  } finally {
    app.stop();
  }
}

/**
 * The first leg as a person feels it, on an app of its own: the figures by socket and by POST, their
 * floors, and a table of the phases (means) that add up to them. With --peer, a peer app's figure in
 * the same scenario on the same workerd, after ours (peerLeg).
 */
async function first(upstream) {
  const app = await startApp(upstream.url);
  let byVia;
  try {
    byVia = { socket: await firstLeg(app.base, upstream, app.logs, "socket"), post: await firstLeg(app.base, upstream, app.logs, "post") };
  } finally {
    app.stop();
  }
  const bare = await bareObjectLeg(upstream, MESSAGES);
  const peer = args.peer ? await peerLeg(upstream, args.peer) : [];
  const rows = [
    [`first leg (${MESSAGES} messages, 50 tokens): socket send → upstream request (ms)`, stats(byVia.socket.felt)],
    ["floor: socket ping → pong, same client (ms)", stats(byVia.socket.floor)],
    [`first leg (${MESSAGES} messages, 50 tokens): POST → upstream request (ms)`, stats(byVia.post.felt)],
    ["floor: GET /api/health round trip, same client (ms)", stats(byVia.post.floor)],
    [`a bare Durable Object, nothing between: socket frame → upstream request (ms)`, stats(bare.felt)],
    ...peer,
  ];
  return { rows, notes: [phaseTable(byVia)] };
}

/**
 * The phases' means (which add up, where medians do not) over the object's whole-millisecond marks,
 * for the messages after the first (whose object was cold: step 0 asked the owner's object).
 */
function phaseTable(byVia) {
  const warm = Object.fromEntries(Object.entries(byVia).map(([via, v]) => [via, v.phases.slice(1)]));
  const names = [...new Set(Object.values(warm).flatMap((phases) => phases.flatMap((p) => Object.keys(p))))].filter((n) => n !== "whole");
  const mean = (values) => values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);
  const lines = [
    `phases of the first leg, messages 2 to ${MESSAGES} (means, ms). The object's clock moves at I/O only: a phase of`,
    "computation alone reads 0, and the object's computation after its last I/O is in the last phase, with the fetch and the network.",
  ];
  const width = Math.max(...names.map((n) => n.length), 24);
  const line = (name, cells) => lines.push(`${name.padEnd(width)} | ${cells.map((c) => c.toFixed(1).padStart(8)).join(" | ")}`);
  lines.push(`${"phase".padEnd(width)} | ${"socket".padStart(8)} | ${"POST".padStart(8)}`);
  for (const name of names) line(name, Object.values(warm).map((phases) => mean(phases.map((p) => p[name] ?? 0))));
  line("sum of the phases", Object.values(warm).map((phases) => mean(phases.map((p) => names.reduce((sum, n) => sum + (p[n] ?? 0), 0)))));
  line("the whole leg, mean", Object.values(warm).map((phases) => mean(phases.map((p) => p.whole))));
  line("the whole leg, median", Object.values(warm).map((phases) => stats(phases.map((p) => p.whole)).median));
  return lines.join("\n");
}

/**
 * A peer app's first leg: `<dir>/first-leg-peer.mjs` exports `peerFirstLeg(upstream)`, which starts
 * the peer on this checkout's workerd against this fake upstream, runs the same scenario over its
 * socket, and answers { felt, floor, floorKind }. The peer is not part of this repository
 * (docs/architecture.md, "The first leg", says how the figures in it were taken).
 */
async function peerLeg(upstream, dir) {
  const { peerFirstLeg } = await import(join(resolve(dir), "first-leg-peer.mjs"));
  const leg = await peerFirstLeg(upstream, { messages: MESSAGES });
  return [
    [`peer: first leg (${MESSAGES} messages, 50 tokens): socket send → upstream request (ms)`, stats(leg.felt)],
    [`peer: floor, ${leg.floorKind} (ms)`, stats(leg.floor)],
  ];
}

/** What one message writes and calls, on an app of its own (its runs' log lines say). */
async function costs(upstream) {
  const app = await startApp(upstream.url);
  try {
    const byCase = await perMessage(app.base, upstream, app.logs, join(app.dir, "state"));
    return { byCase, d1: d1RowBytes(join(app.dir, "state")) };
  } finally {
    app.stop();
  }
}

const COST_COLUMNS = [
  ["objectRowsWritten", "rows written, objects"],
  ["threadRowsRead", "rows read, thread"],
  ["ownerRowsWritten", "of them the user's"],
  ["d1Rows", "D1 rows written"],
  ["d1Bytes", "D1 bytes written"],
  ["rpcs", "RPCs"],
  ["r2", "R2 ops"],
];

function printCosts(byCase, d1) {
  console.log(`
per message (${ANSWER_TOKENS}-token answer, ${TOKEN_MS} ms a token; means over 3 messages after a warm-up)
`);
  const width = Math.max(...Object.keys(byCase).map((n) => n.length));
  console.log(`${"message".padEnd(width)} | ${COST_COLUMNS.map(([, h]) => h).join(" | ")}`);
  console.log(`${"-".repeat(width)}-|-${COST_COLUMNS.map(([, h]) => "-".repeat(h.length)).join("-|-")}`);
  for (const [name, c] of Object.entries(byCase)) {
    console.log(`${name.padEnd(width)} | ${COST_COLUMNS.map(([k, h]) => fmt(c[k]).padStart(h.length)).join(" | ")}`);
  }
  const kept = Object.entries(byCase).filter(([, c]) => c.threadBytesKept !== undefined);
  console.log(`\nkept per message (payload bytes): ${kept.map(([n, c]) => `${n}: thread's object ${fmt(c.threadBytesKept)}, owner's ${fmt(c.ownerBytesKept)}`).join("; ")}`);
  if (d1) console.log(`D1 stored per row, indexes included: a thread's directory row ${fmt(d1.directoryRow)} B, a user-day's usage row ${fmt(d1.usageDayRow)} B`);
}

/** The table: every scenario, and again with D1 one region away when --d1-latency is given. */
async function table(upstream) {
  console.log(`bench: ${opts.runs} runs, ${opts.tokens} tokens per answer, ${opts.tokenDelayMs} ms between tokens upstream\n`);
  // MCP_ALLOW_LOCAL: the MCP server the bench connects is on this machine.
  const base = part("main") ? await measure(upstream, { MCP_ALLOW_LOCAL: "1" }, { withFanout: true }) : { rows: [], notes: [] };
  if (part("cap")) base.rows.push(["spend past the cap, 20 runs at once (USD), runs that ran", await capped(upstream)]);
  if (part("user")) {
    const user = await userObject(upstream);
    base.rows.push(...user.rows);
    base.notes.push(...user.notes);
  }
  if (part("first")) {
    const leg = await first(upstream);
    base.rows.push(...leg.rows);
    base.notes.push(...leg.notes);
  }
  if (part("knowledge")) {
    const known = await knowledge(upstream);
    base.rows.push(...known.rows);
    base.notes.push(...known.notes);
  }
  const slow = d1Latency && part("main") ? await measure(upstream, { D1_LATENCY_MS: d1Latency }, { withFanout: false }) : null;
  if (base.rows.length) {
    const width = Math.max(...base.rows.map(([name]) => name.length));
    const head = ["median / p95", ...(slow ? [`with D1 +${d1Latency} ms`] : []), "samples"];
    console.log(`${"metric".padEnd(width)} | ${head.map((h) => h.padStart(16)).join(" | ")}`);
    console.log(`${"-".repeat(width)}-|-${head.map(() => "-".repeat(16)).join("-|-")}`);
    for (const [name, s] of base.rows) {
      const other = slow?.rows.find(([n]) => n === name)?.[1];
      const cells = [cell(s), ...(slow ? [other ? cell(other) : "-"] : []), String(s.n)];
      console.log(`${name.padEnd(width)} | ${cells.map((c) => c.padStart(16)).join(" | ")}`);
    }
  }
  for (const note of base.notes) console.log(`\n${note}`);
  if (part("main")) console.log(`(the upstream takes ≈${opts.tokens * opts.tokenDelayMs} ms to stream each answer; socket deltas are coalesced every ~30 ms)`);
  if (part("cost")) {
    const measured = await costs(upstream);
    printCosts(measured.byCase, measured.d1);
    // The figures docs/scale.md is made from (npm run scale).
    if (args.save) writeFileSync(args.save, `${JSON.stringify({ measuredAt: new Date().toISOString(), answerTokens: ANSWER_TOKENS, tokenMs: TOKEN_MS, ...measured }, null, 2)}\n`);
  }
}

const upstream = await startFakeUpstream({ port: 0 });
try {
  if (args.compare) await compare(upstream, args.compare, Number(args.pairs ?? 3), opts);
  else await table(upstream);
} finally {
  await upstream.close();
}
