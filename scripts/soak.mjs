#!/usr/bin/env node
// npm run soak: many threads at once under `wrangler dev`, with what goes wrong in real life: posts
// sent twice with the same clientMessageId, sockets cut and reconnected with ?since=, sockets cut
// between a send frame and its answer, and the whole runtime killed and started again while runs are
// streaming. Then it counts: every message stored once, every run ended once, and every socket saw
// every seq exactly once.
//
//   npm run soak -- [--threads 12] [--messages 8]
import WebSocket from "ws";
import { startFakeUpstream } from "../test/fake-upstream/server.mjs";
import { sleep, startApp } from "./bench/app.mjs";
import { sendOverSocket } from "./bench/clients.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const THREADS = Number(args.threads ?? 12);
const MESSAGES = Number(args.messages ?? 8);

/** A client of one thread: a socket that checks seq continuity across cuts and restarts. */
class Client {
  lastSeq = 0;
  gaps = 0;
  jumps = []; // [from, to]: seqs the socket went past
  doubles = 0;
  ends = new Map(); // runId → count of end events
  starts = new Set();
  runOf = new Map(); // the message a run answers → its runId
  ws = null;

  constructor(app, threadId) {
    this.app = app;
    this.threadId = threadId;
  }

  connect() {
    const ws = new WebSocket(`${this.app.base.replace("http", "ws")}/api/threads/${this.threadId}/ws?since=${this.lastSeq}`);
    ws.on("message", (raw) => {
      const f = JSON.parse(raw.toString());
      if (process.env.SOAK_DEBUG && f.event === "ready") this.lastReady = { ...f.data, since: this.lastSeq };
      if (f.event === "error" && f.data.code === "replay_unavailable") {
        this.gaps++;
        if (process.env.SOAK_DEBUG) console.log("replay unavailable", this.threadId, this.lastSeq);
      }
      if (f.seq === undefined) return;
      if (f.seq <= this.lastSeq) this.doubles++;
      else if (f.seq !== this.lastSeq + 1) {
        // A jump is a gap unless the thread never used the numbers in between (an object that
        // starts in the middle of a run skips past deltas a crash may have kept from its replay):
        // checked against the replay at the end.
        this.jumps.push([this.lastSeq, f.seq]);
        if (process.env.SOAK_DEBUG) console.log("jump", this.threadId, this.lastSeq, "→", f.seq, f.event, JSON.stringify(this.lastReady));
      }
      this.lastSeq = Math.max(this.lastSeq, f.seq);
      if (f.event === "pipeline:start") {
        this.starts.add(f.data.runId);
        this.runOf.set(f.data.messageId, f.data.runId);
      }
      if (f.event === "pipeline:complete" || f.event === "pipeline:error") this.ends.set(f.data.runId, (this.ends.get(f.data.runId) ?? 0) + 1);
    });
    ws.on("error", () => {});
    this.ws = ws;
  }

  /** The old socket is dropped for good (no frame of it counts any more), then a new one resumes. */
  cut() {
    this.ws?.removeAllListeners("message");
    this.ws?.terminate();
    this.connect();
  }
}

/** The seq of the first frame the thread's replay holds after `since` (null: none, or unavailable). */
function firstSeqAfter(app, threadId, since) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${app.base.replace("http", "ws")}/api/threads/${threadId}/ws?since=${since}`);
    const done = (v) => {
      ws.terminate();
      resolve(v);
    };
    ws.on("message", (raw) => {
      const f = JSON.parse(raw.toString());
      if (f.event === "error") done(null);
      else if (f.seq !== undefined) done(f.seq);
    });
    ws.on("error", () => done(null));
    setTimeout(() => done(null), 5_000);
  });
}

async function post(app, threadId, content, clientMessageId) {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(`${app.base}/api/threads/${threadId}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content, clientMessageId }),
      });
      if (res.status === 202 || res.status === 200) return res.status;
      if (res.status !== 429 && res.status < 500) throw new Error(`post: ${res.status} ${await res.text()}`);
    } catch (err) {
      if (attempt > 100) throw err; // the runtime is restarting: the same clientMessageId is sent again
    }
    await sleep(200);
  }
}

let cutBeforeAnswer = 0, storedBeforeCut = 0;

/**
 * A message over the client's socket, as the web app sends it: on anything but `accepted` (the socket
 * closed before the answer, an error frame) it goes again by POST with the same clientMessageId.
 * `cut`: the socket is cut on purpose a moment after the frame left, most often before its answer.
 */
async function sendBySocket(client, content, clientMessageId, { cut }) {
  let sent = false;
  const onSent = () => {
    sent = true;
    if (cut) setTimeout(() => client.cut(), Math.random() * 5);
  };
  const answer = await sendOverSocket(client.ws, { content, clientMessageId }, { onSent });
  if (answer.event === "accepted") return;
  const status = await post(client.app, client.threadId, content, clientMessageId);
  if (answer.event === "closed" && sent) {
    cutBeforeAnswer++;
    if (status === 200) storedBeforeCut++; // the frame had been taken; only its `accepted` was lost
  }
}

const upstream = await startFakeUpstream({ port: 0, defaultTokens: 30, tokenDelayMs: 4 });
let app = await startApp(upstream.url);
const threads = [];
for (let i = 0; i < THREADS; i++) {
  const res = await fetch(`${app.base}/api/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: `soak ${i}` }) });
  threads.push((await res.json()).thread.id);
}
const clients = threads.map((id) => new Client(app, id));
clients.forEach((c) => c.connect());
const sent = new Map(threads.map((id) => [id, []]));
let restarted = false;

const started = Date.now();
await Promise.all(
  threads.map(async (threadId, t) => {
    const client = clients[t];
    for (let i = 0; i < MESSAGES; i++) {
      const cid = `soak-${t}-${i}`;
      sent.get(threadId).push(cid);
      const content = `message ${i} of thread ${t}`;
      // Half the messages go over the socket, a third of those cut on purpose after the frame (those
      // are not also sent twice, so a retry's 200 tells that the frame had been stored).
      const bySocket = (i + t) % 2 === 1;
      const cut = bySocket && Math.random() < 1 / 3;
      const twice = !cut && Math.random() < 0.25;
      const first = bySocket ? sendBySocket(client, content, cid, { cut }) : post(app, threadId, content, cid);
      await Promise.all([first, ...(twice ? [post(app, threadId, content, cid)] : [])]);
      if (Math.random() < 0.3) client.cut();
      if (!restarted && t === 0 && i === Math.floor(MESSAGES / 2)) {
        restarted = true;
        await sleep(60); // runs are streaming now
        app.stop({ keep: true });
        app = await startApp(upstream.url, {}, { dir: app.dir, port: app.port });
        clients.forEach((c) => ((c.app = app), c.cut()));
      }
      await sleep(50 + Math.random() * 100);
    }
  }),
);

// Every thread settles: as many runs ended as started, nothing queued.
for (let i = 0; i < 600; i++) {
  if (clients.every((c) => c.starts.size > 0 && [...c.starts].every((r) => c.ends.has(r)))) break;
  await sleep(100);
}
await sleep(500);

let lost = 0, doubled = 0, unanswered = 0, answeredAgain = 0, interrupted = 0, gaps = 0, skipped = 0, seqDoubles = 0, endDoubles = 0;
for (const [t, threadId] of threads.entries()) {
  const { messages } = await (await fetch(`${app.base}/api/threads/${threadId}/messages?kinds=text&limit=500`)).json();
  const users = messages.filter((m) => m.role === "user");
  for (const cid of sent.get(threadId)) {
    const n = users.filter((m) => m.clientMessageId === cid).length;
    if (n === 0) lost++;
    if (n > 1) doubled++;
  }
  const c = clients[t];
  for (const u of users) {
    const answers = messages.filter((m) => m.role === "assistant" && m.parentId === u.id);
    const run = c.runOf.get(u.id);
    // Answered: its run ended (with the answer, or with a clean pipeline:error).
    if (!run || !c.ends.has(run)) {
      unanswered++;
      if (process.env.SOAK_DEBUG) console.log("unanswered", threadId, u.id, u.content, run, answers.length);
    }
    // A run the restart cut short (no tool had run) keeps its partial reply, marked, and answers again.
    const cut = answers.filter((a) => a.metadata.restarted);
    const whole = answers.filter((a) => !a.metadata.restarted);
    if (whole.length > 1 || cut.length > 1) doubled++;
    if (cut.length && whole.length === 0) unanswered++;
    if (cut.length) answeredAgain++;
    if (whole.some((a) => a.metadata.error === "interrupted")) interrupted++;
  }
  gaps += c.gaps;
  for (const [from, to] of c.jumps) {
    if ((await firstSeqAfter(app, threadId, from)) === to) skipped++;
    else gaps++;
  }
  seqDoubles += c.doubles;
  endDoubles += [...c.ends.values()].filter((n) => n > 1).length;
}
for (const c of clients) c.ws.terminate();
app.stop();
await upstream.close();

console.log(`soak: ${THREADS} threads × ${MESSAGES} messages, half over sockets (a third of those cut after the frame), a quarter sent twice, sockets cut at random, one restart mid-stream, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
const rows = [
  ["messages lost", lost],
  ["messages or answers doubled", doubled],
  ["messages unanswered (no answer, or a run that never ended)", unanswered],
  ["runs cut by the restart and answered again (partial reply kept)", answeredAgain],
  ["runs interrupted by the restart and not repeated (a tool had run)", interrupted],
  ["seq gaps seen by a socket (frames stored and never seen)", gaps],
  ["  seqs skipped by an object that started mid-run (never used)", skipped],
  ["seqs seen twice by a socket", seqDoubles],
  ["runs that ended twice", endDoubles],
  ["socket sends cut before their answer, sent again by POST", cutBeforeAnswer],
  ["  of which the frame had been stored (the POST answered 200)", storedBeforeCut],
];
for (const [name, n] of rows) console.log(`${name.padEnd(68)} ${String(n).padStart(4)}`);
process.exit(lost || doubled || unanswered || gaps || seqDoubles || endDoubles ? 1 : 0);
