// What the bench measures. Each scenario answers raw samples; bench.mjs turns them into medians.
import { api, now, openSocket, script, sendMessage, upstreamRequest, waitForEnds } from "./clients.mjs";

/**
 * One thread, message after message, sent by POST and over the socket in turn (the same thread, the
 * same moment's machine for both): latency of each leg, every token, and the run ids.
 */
export async function latency(base, upstream, { runs, tokens, tokenDelayMs }) {
  const out = { overhead: [], socketOverhead: [], tokenLatency: [], firstToken: [], lastToken: [], endToComplete: [], runIds: [], toolNames: [] };
  const { thread } = await api(base, "/api/threads", { name: "bench latency" });
  const socket = await openSocket(base, thread.id);
  let sent = 0;
  for (let i = 0; i < runs + 3; i++) {
    for (const via of ["post", "socket"]) {
      const match = `[[bench-${i}-${via}-${Math.random()}]]`;
      await script(upstream, match, [{ kind: "clock", count: tokens, delayMs: tokenDelayMs }]);
      socket.stamps = [];
      const sentAt = await sendMessage(base, socket, thread.id, match, via);
      if (sentAt === null) continue; // this revision takes no send frames
      await waitForEnds(socket, ++sent);
      if (i < 3) continue; // warm-up
      const [req] = await upstreamRequest(upstream, match);
      (via === "post" ? out.overhead : out.socketOverhead).push(req.receivedAt - sentAt);
      out.toolNames = (req.body?.tools ?? []).map((t) => t.name);
      for (const s of socket.stamps) out.tokenLatency.push(s.at - s.sent);
      out.firstToken.push(socket.stamps[0].at - socket.stamps[0].sent);
      out.lastToken.push(socket.stamps.at(-1).at - socket.stamps.at(-1).sent);
      out.endToComplete.push(socket.ends.at(-1).at - socket.stamps.at(-1).sent);
      out.runIds.push(socket.runIds.at(-1));
    }
  }
  socket.ws.close();
  return out;
}

/**
 * The floor under every other figure: a request that does nothing (GET /api/health, answered by the
 * Worker without the object), round trip through `wrangler dev`'s local proxy.
 */
export async function floor(base, runs) {
  const out = [];
  for (let i = 0; i < runs + 3; i++) {
    const t = now();
    await api(base, "/api/health");
    if (i >= 3) out.push(now() - t);
  }
  return out;
}

/** New threads' first runs: their objects have no step-0 inputs yet (the cold path). */
export async function coldRuns(base, upstream, count) {
  const runIds = [];
  for (let i = 0; i < count; i++) {
    const { thread } = await api(base, "/api/threads", { name: `bench cold ${i}` });
    const socket = await openSocket(base, thread.id);
    const match = `[[cold-${i}-${Math.random()}]]`;
    await script(upstream, match, [{ kind: "text", text: "cold answer" }]);
    await api(base, `/api/threads/${thread.id}/messages`, { content: match });
    await waitForEnds(socket, 1);
    runIds.push(socket.runIds[0]);
    socket.ws.close();
  }
  return runIds;
}

/**
 * New threads' first posts, POST → upstream request: each thread either posted to at once (its object
 * reads step 0's inputs on the way), or prewarmed first (POST /api/prewarm, as the web app does when a
 * thread is opened or hovered) and posted to a moment later.
 */
export async function firstPost(base, upstream, count, { prewarm }) {
  const overhead = [];
  for (let i = 0; i < count; i++) {
    const { thread } = await api(base, "/api/threads", { name: `bench first post ${i}` });
    const socket = await openSocket(base, thread.id);
    if (prewarm) {
      await fetch(`${base}/api/prewarm`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId: thread.id }) });
      await new Promise((r) => setTimeout(r, 50)); // a person's hover or click comes before their post
    }
    const match = `[[first-${prewarm}-${i}-${Math.random()}]]`;
    await script(upstream, match, [{ kind: "text", text: "first answer" }]);
    const posted = now();
    await api(base, `/api/threads/${thread.id}/messages`, { content: match });
    await waitForEnds(socket, 1);
    const [req] = await upstreamRequest(upstream, match);
    overhead.push(req.receivedAt - posted);
    socket.ws.close();
  }
  return overhead;
}

/** `count` sockets on one thread: when all of them have the whole answer, and whether in order. */
export async function fanout(base, upstream, count, { runs, tokens, tokenDelayMs }) {
  const { thread } = await api(base, "/api/threads", { name: `bench fanout ${count}` });
  const sockets = await Promise.all(Array.from({ length: count }, () => openSocket(base, thread.id)));
  const allHaveText = [];
  let inOrder = true;
  for (let i = 0; i < Math.max(20, Math.floor(runs * 0.8)) + 2; i++) {
    const match = `[[fan-${count}-${i}-${Math.random()}]]`;
    await script(upstream, match, [{ kind: "clock", count: tokens, delayMs: tokenDelayMs }]);
    for (const s of sockets) s.stamps = [];
    const start = now();
    await api(base, `/api/threads/${thread.id}/messages`, { content: match });
    await Promise.all(sockets.map((s) => waitForEnds(s, i + 1)));
    if (i < 2) continue;
    for (const s of sockets) {
      const sent = s.stamps.map((x) => x.sent);
      if (sent.length !== tokens || sent.some((v, j) => j > 0 && v < sent[j - 1])) inOrder = false;
    }
    const lastToken = Math.max(...sockets.map((s) => s.stamps[s.stamps.length - 1]?.at ?? Infinity));
    allHaveText.push(lastToken - start);
  }
  for (const s of sockets) s.ws.close();
  return { allHaveText, inOrder };
}

/**
 * `count` new threads, one message each, all sent at once by POST or over their open sockets: each
 * one's send → upstream request, the wall time until every run ended, and the errors.
 */
export async function manyThreads(base, upstream, count, { tokens, tokenDelayMs }, via) {
  const threads = await Promise.all(Array.from({ length: count }, (_, i) => api(base, "/api/threads", { name: `bench many ${via} ${i}` })));
  const sockets = await Promise.all(threads.map(({ thread }) => openSocket(base, thread.id)));
  const matches = threads.map((_, i) => `[[many-${via}-${i}-${Math.random()}]]`);
  await Promise.all(matches.map((match) => script(upstream, match, [{ kind: "clock", count: tokens, delayMs: tokenDelayMs }])));
  const start = now();
  let errors = 0;
  const sentAt = await Promise.all(threads.map(({ thread }, i) => sendMessage(base, sockets[i], thread.id, matches[i], via).catch(() => (errors++, null))));
  await Promise.all(sockets.map((s) => waitForEnds(s, 1, 60_000).catch(() => errors++)));
  const wall = now() - start;
  errors += sockets.filter((s) => s.ends.some((e) => e.event === "pipeline:error")).length;
  for (const s of sockets) s.ws.close();
  const toUpstream = [];
  for (const [i, match] of matches.entries()) {
    const [req] = await upstreamRequest(upstream, match);
    if (req && sentAt[i] !== null) toUpstream.push(req.receivedAt - sentAt[i]);
  }
  return { wall, errors, toUpstream };
}

/** A request as the cache sees it: its blocks in order (tools, system, messages), and the last breakpoint. */
function cacheBlocks(body) {
  const blocks = [
    ...(body.tools ?? []),
    ...(body.system ?? []),
    ...body.messages.flatMap((m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content).map((b) => ({ role: m.role, ...b }))),
  ];
  const breakpoint = blocks.findLastIndex((b) => b.cache_control);
  const text = blocks.map((b) => JSON.stringify(b, (k, v) => (k === "cache_control" ? undefined : v)));
  return { text, breakpoint };
}

/**
 * A 10-turn thread with 20 KB of context files: for each request from the second on, the share of it
 * that is a prefix identical to the previous request, up to its last cache breakpoint.
 */
export async function cacheablePrefix(base, upstream, turns = 10) {
  await fetch(`${base}/api/context/bench-context.md`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content: `# Notes for the bench\n\n${"Context that every request carries. ".repeat(560)}` }),
  });
  const { thread } = await api(base, "/api/threads", { name: "bench cache" });
  const socket = await openSocket(base, thread.id);
  const match = `[[cache-${Math.random()}]]`;
  // Turns of ordinary chat length: a question of a sentence, an answer of a short paragraph.
  const answer = (i) => `Answer ${i + 1}: here is what the notes say about that, in a few plain sentences. ${"It fits the plan. ".repeat(8)}`;
  await script(upstream, match, Array.from({ length: turns }, (_, i) => ({ kind: "text", text: answer(i) })));
  for (let i = 0; i < turns; i++) {
    await api(base, `/api/threads/${thread.id}/messages`, { content: `Question ${i + 1}: what do my notes say next? ${match}` });
    await waitForEnds(socket, i + 1);
  }
  socket.ws.close();
  await fetch(`${base}/api/context/bench-context.md`, { method: "DELETE" });
  const requests = (await upstreamRequest(upstream, match)).map((r) => cacheBlocks(r.body));
  const shares = [];
  for (let k = 1; k < requests.length; k++) {
    const [prev, cur] = [requests[k - 1], requests[k]];
    let same = 0;
    for (let i = 0; i <= cur.breakpoint && i < prev.text.length && prev.text[i] === cur.text[i]; i++) same += cur.text[i].length;
    shares.push((same / cur.text.reduce((n, t) => n + t.length, 0)) * 100);
  }
  return shares;
}

/**
 * A user at 84 % of a $1 daily cap starts 20 runs at once ($0.12 each): how far past the cap the
 * day's spend ends (USD), and how many of the runs ran. Without reservations all 20 ran ($2.24 past).
 */
export async function spendPastCap(base, upstream, capUsd) {
  const first = await api(base, "/api/threads", { name: "bench spend" });
  const opening = await openSocket(base, first.thread.id);
  const costly = `[[spend-${Math.random()}]]`;
  await script(upstream, costly, [{ kind: "text", text: "An expensive answer.", usage: { output_tokens: 56_000 } }]);
  await api(base, `/api/threads/${first.thread.id}/messages`, { content: costly });
  await waitForEnds(opening, 1);
  opening.ws.close();
  await new Promise((r) => setTimeout(r, 500)); // its cost reaches the user's object after the run
  const threads = await Promise.all(Array.from({ length: 20 }, (_, i) => api(base, "/api/threads", { name: `bench spend ${i}` })));
  const sockets = await Promise.all(threads.map(({ thread }) => openSocket(base, thread.id)));
  const match = `[[spend-many-${Math.random()}]]`;
  await script(upstream, match, Array.from({ length: 20 }, () => ({ kind: "text", text: "An answer.", usage: { output_tokens: 8_000 } })));
  await Promise.all(threads.map(({ thread }) => api(base, `/api/threads/${thread.id}/messages`, { content: match })));
  await Promise.all(sockets.map((s) => waitForEnds(s, 1)));
  const ran = sockets.filter((s) => s.ends[0].event === "pipeline:complete").length;
  for (const s of sockets) s.ws.close();
  await new Promise((r) => setTimeout(r, 1_000)); // the runs' rows reach D1 after them
  const { limits } = await api(base, "/api/metrics");
  return { pastUsd: Math.max(0, limits.spentTodayUsd - capUsd), ran };
}
