// `npm run dev` as README has a new user run it: with nothing set (no MCP_ALLOW_LOCAL), a server on
// localhost can be connected. The app's local state goes to a temporary folder (`-- --persist-to`),
// so a developer's own (.wrangler/state) is not touched; .dev.vars, if there is one, is only read.
// Run by `npm run test:dev` (part of `npm test`); wrangler and its children are stopped whatever happens.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, it } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort, killGroup } from "../../scripts/wrangler-app.mjs";
import { startMcpServers } from "../mcp/server.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const STARTUP_MS = 90_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let dev = null;
let mcp = null;
let state = null;
let output = "";
let appUrl = "";

// A test that is killed still stops wrangler dev (its own process group).
const stopDev = () => {
  if (dev && dev.exitCode === null && dev.signalCode === null) {
    try {
      process.kill(-dev.pid, "SIGTERM");
    } catch {}
  }
};
process.once("exit", stopDev);

before(async () => {
  mcp = await startMcpServers({ port: 0 });
  state = mkdtempSync(join(tmpdir(), "npm-run-dev-"));
  const [port, inspector] = [await freePort(), await freePort()];
  appUrl = `http://localhost:${port}`;
  const env = { ...process.env, PORT: String(port), CI: "true", WRANGLER_SEND_METRICS: "false" };
  // What a new user has: none of the settings the suites set for themselves.
  delete env.MCP_ALLOW_LOCAL;
  // The local default; a developer's environment or .dev.vars may say otherwise, which is not what this checks.
  env.AUTH_MODE = "none";
  dev = spawn("npm", ["run", "dev", "--", "--persist-to", state, "--inspector-port", String(inspector), "--show-interactive-dev-session=false"], {
    cwd: root,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  dev.stdout.on("data", keep);
  dev.stderr.on("data", keep);
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    if (dev.exitCode !== null) throw new Error(`npm run dev exited with ${dev.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${appUrl}/api/health`)).ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`npm run dev did not answer within ${STARTUP_MS / 1000} s:\n${output}`);
    await sleep(250);
  }
});

after(async () => {
  if (dev) await killGroup(dev);
  await mcp?.close();
  if (state) rmSync(state, { recursive: true, force: true });
});

it("connects an MCP server on localhost, as README says npm run dev lets a user", async () => {
  const url = `${mcp.url.replace("127.0.0.1", "localhost")}/tools/mcp`;
  const res = await fetch(`${appUrl}/api/mcp/servers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "local", url }),
  });
  const body = await res.json();
  assert.equal(res.status, 201, `${JSON.stringify(body)}\n${output}`);
  assert.equal(body.server.status, "connected");
  assert.ok(body.server.tools.some((t) => t.name === "echo"), `tools: ${body.server.tools.map((t) => t.name)}`);
});
