// The bench's clients: the HTTP API, sockets that stamp what arrives, and the fake upstream's controls.
import WebSocket from "ws";

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

export async function upstreamRequest(upstream, match) {
  const res = await fetch(`${upstream.url}/_control/requests?match=${encodeURIComponent(match)}`);
  return (await res.json()).requests;
}

export async function script(upstream, match, responses) {
  await fetch(`${upstream.url}/_control/scripts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ match, responses }),
  });
}
