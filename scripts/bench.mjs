#!/usr/bin/env node
// npm run bench: the app under `wrangler dev`, against the fake Messages API in this process, so one
// clock times both ends. Prints medians and p95 over repeated runs; nothing here is a pass/fail test.
//
//   node scripts/bench.mjs [--runs 25] [--tokens 40] [--token-delay-ms 2]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { startFakeUpstream } from "../test/fake-upstream/server.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const RUNS = Number(args.runs ?? 25);
const TOKENS = Number(args.tokens ?? 40);
const TOKEN_DELAY_MS = Number(args["token-delay-ms"] ?? 2);
const FANOUT = [1, 10, 100];

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

// --- the app under test -------------------------------------------------------------------

async function startApp(upstreamUrl) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "bench-"));
  const state = join(dir, "state");
  const envFile = join(dir, "bench.env");
  writeFileSync(envFile, `ANTHROPIC_API_KEY="bench-key"\nANTHROPIC_BASE_URL="${upstreamUrl}"\n`);
  const wrangler = "node_modules/.bin/wrangler";
  const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", state], {
    env: { ...process.env, CI: "true" },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`migrations failed:\n${migrate.stdout}${migrate.stderr}`);
  const child = spawn(wrangler, ["dev", "--port", String(port), "--persist-to", state, "--env-file", envFile], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // wrangler dev's own trace capture is off: the bench measures the app, not the local explorer.
    env: { ...process.env, CI: "true", X_LOCAL_OBSERVABILITY: "false" },
  });
  // Each run logs one line with its D1 statement count (worker/thread/room.ts).
  const runLogs = [];
  const collect = (stream) => {
    let buffered = "";
    stream.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const line of lines) {
        const at = line.indexOf('{"level"');
        if (at >= 0 && line.includes('"run finished"')) runLogs.push(JSON.parse(line.slice(at)));
      }
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    if (i > 300) throw new Error("wrangler dev did not start");
    await sleep(100);
  }
  const stop = () => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  return { base, runLogs, stop };
}

// --- clients ------------------------------------------------------------------------------

async function api(base, path, body) {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A socket that records when each stamped token and each run end arrived. */
function openSocket(base, threadId) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace("http", "ws")}/api/threads/${threadId}/ws`);
    const s = { ws, text: "", stamps: [], ends: [], waiters: new Set() };
    ws.on("message", (raw) => {
      const at = now();
      const frame = JSON.parse(raw.toString());
      if (frame.event === "pipeline:stream" && frame.data.type === "text") {
        s.text += frame.data.delta;
        for (const m of frame.data.delta.matchAll(/⟨([\d.]+)⟩/g)) s.stamps.push({ sent: Number(m[1]), at });
      } else if (frame.event === "pipeline:complete" || frame.event === "pipeline:error") {
        s.ends.push({ event: frame.event, at });
      }
      for (const w of s.waiters) w();
    });
    ws.once("open", () => resolve(s));
    ws.once("error", reject);
  });
}

function waitForEnds(socket, count) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (socket.ends.length >= count) {
        socket.waiters.delete(check);
        resolve();
      }
    };
    socket.waiters.add(check);
    check();
    setTimeout(() => reject(new Error("run did not end in 30 s")), 30_000).unref();
  });
}

async function upstreamRequest(upstream, match) {
  const res = await fetch(`${upstream.url}/_control/requests?match=${encodeURIComponent(match)}`);
  return (await res.json()).requests[0];
}

async function script(upstream, match, responses) {
  await fetch(`${upstream.url}/_control/scripts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ match, responses }),
  });
}

// --- scenarios ----------------------------------------------------------------------------

async function latencyScenario(base, upstream) {
  const overhead = [], tokenLatency = [], firstToken = [], endToComplete = [];
  const { thread } = await api(base, "/api/threads", { name: "bench latency" });
  const socket = await openSocket(base, thread.id);
  for (let i = 0; i < RUNS + 3; i++) {
    const match = `[[bench-${i}-${Math.random()}]]`;
    await script(upstream, match, [{ kind: "clock", count: TOKENS, delayMs: TOKEN_DELAY_MS }]);
    socket.stamps = [];
    const posted = Date.now();
    await api(base, `/api/threads/${thread.id}/messages`, { content: match });
    await waitForEnds(socket, i + 1);
    if (i < 3) continue; // warm-up
    const req = await upstreamRequest(upstream, match);
    overhead.push(req.receivedAt - posted);
    for (const s of socket.stamps) tokenLatency.push(s.at - s.sent);
    firstToken.push(socket.stamps[0].at - socket.stamps[0].sent);
    endToComplete.push(socket.ends[i].at - socket.stamps[socket.stamps.length - 1].sent);
  }
  socket.ws.close();
  return { overhead, tokenLatency, firstToken, endToComplete };
}

async function fanoutScenario(base, upstream, count) {
  const { thread } = await api(base, "/api/threads", { name: `bench fanout ${count}` });
  const sockets = await Promise.all(Array.from({ length: count }, () => openSocket(base, thread.id)));
  const allHaveText = [];
  let inOrder = true;
  for (let i = 0; i < Math.max(20, Math.floor(RUNS * 0.8)) + 2; i++) {
    const match = `[[fan-${count}-${i}-${Math.random()}]]`;
    await script(upstream, match, [{ kind: "clock", count: TOKENS, delayMs: TOKEN_DELAY_MS }]);
    for (const s of sockets) s.stamps = [];
    const start = now();
    await api(base, `/api/threads/${thread.id}/messages`, { content: match });
    await Promise.all(sockets.map((s) => waitForEnds(s, i + 1)));
    if (i < 2) continue;
    for (const s of sockets) {
      const sent = s.stamps.map((x) => x.sent);
      if (sent.length !== TOKENS || sent.some((v, j) => j > 0 && v < sent[j - 1])) inOrder = false;
    }
    const lastToken = Math.max(...sockets.map((s) => s.stamps[s.stamps.length - 1]?.at ?? Infinity));
    allHaveText.push(lastToken - start);
  }
  for (const s of sockets) s.ws.close();
  return { allHaveText, inOrder };
}

// --- main ---------------------------------------------------------------------------------

const fmt = (v) => (v === undefined ? "-" : v >= 100 ? v.toFixed(0) : v.toFixed(1));

const upstream = await startFakeUpstream({ port: 0 });
const app = await startApp(upstream.url);
try {
  console.log(`bench: ${RUNS} runs, ${TOKENS} tokens per answer, ${TOKEN_DELAY_MS} ms between tokens upstream\n`);
  const lat = await latencyScenario(app.base, upstream);
  const rows = [
    ["POST → upstream request (ms)", stats(lat.overhead)],
    ["upstream delta → socket delta, every token (ms)", stats(lat.tokenLatency)],
    ["upstream delta → socket delta, first token (ms)", stats(lat.firstToken)],
    ["upstream end → pipeline:complete (ms)", stats(lat.endToComplete)],
  ];
  const order = [];
  for (const n of FANOUT) {
    const fan = await fanoutScenario(app.base, upstream, n);
    rows.push([`POST → all ${n} socket(s) have the full text (ms)`, stats(fan.allHaveText)]);
    order.push(`${n}: ${fan.inOrder ? "every token, in order" : "MISSING OR OUT OF ORDER TOKENS"}`);
  }
  await sleep(300);
  const d1 = app.runLogs.filter((l) => l.status === "completed");
  rows.push(["D1 statements per run", stats(d1.map((l) => l.d1Statements))]);
  rows.push(["D1 round trips per run", stats(d1.map((l) => l.d1RoundTrips))]);

  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(`${"metric".padEnd(width)} | median |    p95 | samples`);
  console.log(`${"-".repeat(width)}-|--------|--------|--------`);
  for (const [name, s] of rows) console.log(`${name.padEnd(width)} | ${fmt(s.median).padStart(6)} | ${fmt(s.p95).padStart(6)} | ${String(s.n).padStart(7)}`);
  console.log(`\nfan-out delivery: ${order.join("; ")}`);
  const totalTime = TOKENS * TOKEN_DELAY_MS;
  console.log(`(the upstream itself takes ≈${totalTime} ms to stream each answer; socket deltas are coalesced every ~30 ms)`);
} finally {
  app.stop();
  await upstream.close();
}
