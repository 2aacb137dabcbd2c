// The bench's clients: the HTTP API, sockets that stamp what arrives, a message sent by POST or over
// the socket, and the fake upstream's controls. The soak sends over its sockets with sendOverSocket too.
import WebSocket from "ws";
import { fakeControl } from "../../test/fake-upstream/control.mjs";

export const now = () => performance.timeOrigin + performance.now();

export async function api(base, path, body) {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

/** A socket that records when each stamped token, each run start and each run end arrived. */
export function openSocket(base, threadId) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace("http", "ws")}/api/threads/${threadId}/ws`);
    const s = { ws, stamps: [], ends: [], runIds: [], waiters: new Set() };
    ws.on("message", (raw) => {
      const at = now();
      const frame = JSON.parse(raw.toString());
      if (frame.event === "pipeline:stream" && frame.data.type === "text") {
        for (const m of frame.data.delta.matchAll(/⟨([\d.]+)⟩/g)) s.stamps.push({ sent: Number(m[1]), at });
      } else if (frame.event === "pipeline:start") {
        s.runIds.push(frame.data.runId);
      } else if (frame.event === "pipeline:complete" || frame.event === "pipeline:error") {
        s.ends.push({ event: frame.event, at });
      }
      for (const w of s.waiters) w();
    });
    ws.once("open", () => resolve(s));
    ws.once("error", reject);
  });
}

/**
 * A `send` frame on an open (or opening) socket, answered by what the thread says of it: the data of
 * its `accepted` or `error` frame, with `event`; `closed` when the socket closed before that answer
 * (whether the message was stored is then unknown: the client sends the same clientMessageId again
 * by POST, as the web app does), `timeout` when no answer came. `onSent` runs as the frame leaves.
 * A revision without send frames answers `invalid_frame`, naming no message.
 */
export function sendOverSocket(ws, { content, clientMessageId }, { onSent = () => {}, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve) => {
    const onMessage = (raw) => {
      const { event, data } = JSON.parse(raw.toString());
      const mine = data?.clientMessageId === clientMessageId || (event === "error" && data.code === "invalid_frame" && !data.clientMessageId);
      if ((event === "accepted" || event === "error") && mine) settle({ event, ...data });
    };
    const onClose = () => settle({ event: "closed" });
    const send = () => {
      ws.send(JSON.stringify({ type: "send", content, clientMessageId }));
      onSent();
    };
    const settle = (answer) => {
      clearTimeout(timer);
      ws.off("message", onMessage).off("close", onClose).off("open", send);
      resolve(answer);
    };
    const timer = setTimeout(() => settle({ event: "timeout" }), timeoutMs);
    ws.on("message", onMessage).once("close", onClose);
    if (ws.readyState === WebSocket.OPEN) send();
    else if (ws.readyState === WebSocket.CONNECTING) ws.once("open", send);
    else onClose();
  });
}

/**
 * `content` sent to the thread by POST or over `socket`; answers the client's clock as it went out,
 * or null when the app takes no send frames (an older revision under --compare).
 */
export async function sendMessage(base, socket, threadId, content, via) {
  const clientMessageId = `bench-${Math.random()}`;
  const sentAt = now(); // the bench's sockets are open: the frame leaves within this call, as the POST does
  if (via === "post") {
    await api(base, `/api/threads/${threadId}/messages`, { content, clientMessageId });
    return sentAt;
  }
  const answer = await sendOverSocket(socket.ws, { content, clientMessageId });
  if (answer.event === "accepted") return sentAt;
  if (answer.code === "invalid_frame") return null;
  throw new Error(`send frame: ${answer.event} ${answer.code ?? ""} ${answer.message ?? ""}`);
}

export function waitForEnds(socket, count, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (socket.ends.length >= count) {
        socket.waiters.delete(check);
        resolve();
      }
    };
    socket.waiters.add(check);
    check();
    setTimeout(() => reject(new Error(`run did not end in ${timeoutMs / 1000} s`)), timeoutMs).unref();
  });
}

export const upstreamRequest = (upstream, match) => fakeControl(upstream.url).requests(match);

export const script = (upstream, match, responses) => fakeControl(upstream.url).script(match, responses);
