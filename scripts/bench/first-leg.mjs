// The first leg as a person feels it (issue: the first token sooner): the peer bench's scenario, one
// thread and 22 messages in sequence with a 50-token answer each, sent over the thread's socket and by
// POST, timed from the client's send to the model's request, next to the floor (a request that does
// nothing, by the same client). Each run's log line holds its phases inside the thread's object
// (thread/run/phases.ts); with the client's send and the upstream's arrival on this process's clock,
// they add up to the whole: client → object, the object's phases, fetch and network → upstream.
import { api, now, openSocket, script, sendMessage, upstreamRequest, waitForEnds } from "./clients.mjs";

export const MESSAGES = 22;
const TOKENS = 50;

/** A ping over an open socket, answered by its pong: the socket's floor. */
function ping(ws) {
  return new Promise((resolve) => {
    const t = now();
    const onMessage = (raw) => {
      if (JSON.parse(raw.toString()).event !== "pong") return;
      ws.off("message", onMessage);
      resolve(now() - t);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ type: "ping" }));
  });
}

/** One transport's 22 messages: each send's user-felt figure, and its run's id and phases, with the floor. */
export async function firstLeg(base, upstream, logs, via) {
  const { thread } = await api(base, "/api/threads", { name: `bench first leg (${via})` });
  const socket = await openSocket(base, thread.id);
  const out = { felt: [], floor: [], phases: [] };
  for (let i = 0; i < MESSAGES; i++) out.floor.push(via === "post" ? await timed(() => api(base, "/api/health")) : await ping(socket.ws));
  const matches = Array.from({ length: MESSAGES }, (_, i) => `[[first-leg-${via}-${i}-${Math.random()}]]`);
  for (const match of matches) await script(upstream, match, [{ kind: "clock", count: TOKENS, delayMs: 0 }]);
  // As the peer bench's client does: each message goes as soon as the answer before it is complete.
  const sent = [];
  for (const [i, match] of matches.entries()) {
    sent.push(await sendMessage(base, socket, thread.id, match, via));
    await waitForEnds(socket, i + 1);
  }
  for (const [i, match] of matches.entries()) {
    const [req] = await upstreamRequest(upstream, match);
    out.felt.push(req.receivedAt - sent[i]);
    out.phases.push({ runId: socket.runIds[i], sentAt: sent[i], receivedAt: req.receivedAt });
  }
  socket.ws.close();
  // The run's line comes a moment after its end.
  await new Promise((r) => setTimeout(r, 500));
  const lines = new Map(logs.filter((l) => l.message === "run finished" && l.phases).map((l) => [l.runId, l.phases]));
  out.phases = out.phases.map(({ runId, sentAt, receivedAt }) => breakdown(lines.get(runId), sentAt, receivedAt)).filter(Boolean);
  return out;
}

async function timed(fn) {
  const t = now();
  await fn();
  return now() - t;
}

/** The run's phases, with the client's side and the upstream's: they add up to the whole. */
function breakdown(phases, sentAt, receivedAt) {
  if (!phases?.requestAt) return null;
  return {
    "client → object (Worker, auth, RPC or socket)": phases.arrivedAt - sentAt,
    ...Object.fromEntries(Object.entries(phases.ms).map(([k, v]) => [`object: ${k}`, v])),
    "fetch and network → upstream": receivedAt - phases.requestAt,
    whole: receivedAt - sentAt,
  };
}
