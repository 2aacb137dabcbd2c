// The first leg of a bare Durable Object (bare-object/index.ts): the same client, scenario and fake
// upstream as first-leg.mjs, with nothing between the socket frame and the model request. What the
// app's first leg costs beyond it is the orchestration's.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import WebSocket from "ws";
import { freePort, sleep } from "./app.mjs";
import { now, script, upstreamRequest } from "./clients.mjs";

/** 22 messages in sequence, each sent once the answer before it is read: { felt, floor } in ms. */
export async function bareObjectLeg(upstream, messages) {
  const dir = mkdtempSync(join(tmpdir(), "bench-bare-"));
  const port = await freePort();
  writeFileSync(join(dir, "bench.env"), `ANTHROPIC_API_KEY="bench-key"\nANTHROPIC_BASE_URL="${upstream.url}"\n`);
  const child = spawn(
    "node_modules/.bin/wrangler",
    ["dev", "--config", resolve("scripts/bench/bare-object/wrangler.jsonc"), "--port", String(port), "--persist-to", join(dir, "state"), "--env-file", join(dir, "bench.env")],
    { detached: true, stdio: "ignore", env: { ...process.env, CI: "true", X_LOCAL_OBSERVABILITY: "false" } },
  );
  try {
    const ws = await connect(`ws://127.0.0.1:${port}/`);
    const next = () => new Promise((r) => ws.once("message", (m) => r(m.toString())));
    const out = { felt: [], floor: [] };
    for (let i = 0; i < messages; i++) {
      const t = now();
      ws.send(JSON.stringify({ content: "ping" }));
      await next();
      out.floor.push(now() - t);
    }
    const matches = Array.from({ length: messages }, (_, i) => `[[bare-object-${i}-${Math.random()}]]`);
    for (const match of matches) await script(upstream, match, [{ kind: "clock", count: 50, delayMs: 0 }]);
    const sent = [];
    for (const match of matches) {
      sent.push(now());
      ws.send(JSON.stringify({ content: match }));
      await next();
    }
    for (const [i, match] of matches.entries()) out.felt.push((await upstreamRequest(upstream, match))[0].receivedAt - sent[i]);
    ws.close();
    return out;
  } finally {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bare object's socket, once wrangler dev answers. */
async function connect(url) {
  for (let i = 0; ; i++) {
    try {
      return await new Promise((resolve, reject) => {
        const ws = new WebSocket(url);
        ws.once("open", () => resolve(ws));
        ws.once("error", reject);
      });
    } catch (err) {
      if (i > 300) throw err;
      await sleep(100);
    }
  }
}
