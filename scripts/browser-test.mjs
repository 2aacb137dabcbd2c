#!/usr/bin/env node
// npm run test:browser: the web app in a real Chromium against `wrangler dev`, with the fake
// Messages API (test/fake-upstream) in this process.
//
//   1. no Chromium: skip (exit 0), or fail when REQUIRE_BROWSER=1
//   2. vite build
//   3. fake upstream; the test MCP servers (test/mcp/server.mjs) with a small control API (what they
//      were called with); the Worker bundled once into a temp dir; two `wrangler dev` instances of that
//      bundle, each with its own D1 state and port (scripts/wrangler-app.mjs), both with
//      MCP_ALLOW_LOCAL=1 (the MCP servers are on this machine):
//      - the app (APP_URL): the fake upstream as its model, AUTH_MODE=none;
//      - the offline app (OFFLINE_APP_URL): no API key, so the offline model, and AUTH_MODE=token
//        with the users of test/browser/offline-app.mjs
//   4. one Chromium (playwright-core's launchServer), shared by every test file through
//      BROWSER_WS_ENDPOINT; `node --test --test-concurrency=1` on test/browser/*.test.mjs with
//      APP_URL, OFFLINE_APP_URL, UPSTREAM_URL, MCP_URL and MCP_CONTROL_URL set (and
//      APP_BUNDLE_DIR/APP_BUNDLE_CONFIG, for a test that starts and restarts an app of its own:
//      test/browser/restart.test.mjs)
//   5. clean up everything, exit non-zero when a test failed
//
// The test runner reports in TAP, so the last lines printed are its summary (`# pass N`, `# fail N`).
// wrangler's output goes to test-results/browser-wrangler*.log, screenshots to
// test-results/screenshots/, and a failed test's evidence (a screenshot of each of its pages, their
// last socket frames and console errors) to test-results/browser-failures/.
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium), REQUIRE_BROWSER=1, BROWSER_TEST_FILTER
// (a substring: only test files whose name holds it).
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { offlineAppVars } from "../test/browser/offline-app.mjs";
import { bundleWorker, startApp } from "./wrangler-app.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const log = (msg) => console.log(`[browser-test ${elapsed()}] ${msg}`);

// --- 1. Chromium -------------------------------------------------------------------------------

const executablePath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  if (process.env.REQUIRE_BROWSER === "1") {
    console.error(`browser tests: no Chromium at ${executablePath} (set CHROMIUM_PATH), and REQUIRE_BROWSER=1`);
    process.exit(1);
  }
  console.log("browser tests skipped: no Chromium");
  process.exit(0);
}

const testDir = join(root, "test", "browser");
const filter = process.env.BROWSER_TEST_FILTER;
const testFiles = readdirSync(testDir)
  .filter((f) => f.endsWith(".test.mjs") && (!filter || f.includes(filter)))
  .sort()
  .map((f) => join("test", "browser", f));
if (testFiles.length === 0) {
  console.error(`browser tests: no test files in test/browser${filter ? ` matching ${filter}` : ""}`);
  process.exit(1);
}

// --- cleanup, whatever happens -----------------------------------------------------------------

const cleanups = [];
let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`[browser-test] cleanup step failed: ${err?.message ?? err}`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    console.error(`[browser-test] ${signal}: cleaning up`);
    await cleanup();
    process.exit(130);
  });
}

async function main() {
  // --- 2. the web build ------------------------------------------------------------------------
  log("building the web app");
  const build = spawnSync("node_modules/.bin/vite", ["build", "--logLevel", "warn"], { stdio: "inherit" });
  if (build.status !== 0) throw new Error(`vite build failed (exit ${build.status})`);

  // --- 3. fake upstream, D1, wrangler dev ------------------------------------------------------
  const { startFakeUpstream } = await import("../test/fake-upstream/server.mjs");
  const upstream = await startFakeUpstream({ port: 0 });
  cleanups.push(() => upstream.close());
  log(`fake upstream at ${upstream.url}`);

  const { startMcpServers } = await import("../test/mcp/server.mjs");
  const mcp = await startMcpServers({ port: 0 });
  cleanups.push(() => mcp.close());
  const mcpControl = await startMcpControl(mcp);
  cleanups.push(() => new Promise((r) => mcpControl.close(r)));
  log(`MCP servers at ${mcp.url}, their control API at ${mcpControl.url}`);

  const dir = mkdtempSync(join(tmpdir(), "browser-test-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const childEnv = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
  const results = join(root, "test-results");
  mkdirSync(join(results, "screenshots"), { recursive: true });
  rmSync(join(results, "browser-failures"), { recursive: true, force: true });

  log("bundling the Worker");
  const config = bundleWorker(root, dir, childEnv, log);
  log("starting the app and the offline app (wrangler dev)");
  const instances = [
    // Schedules may repeat every 2 s here (test/browser/schedules.test.mjs), not only every 300 s.
    {
      name: "app",
      vars: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: upstream.url, SCHEDULE_MIN_INTERVAL_S: "2", MCP_ALLOW_LOCAL: "1" },
      logPath: join(results, "browser-wrangler.log"),
    },
    { name: "offline-app", vars: { ...offlineAppVars(), MCP_ALLOW_LOCAL: "1" }, logPath: join(results, "browser-wrangler-offline.log") },
  ];
  const launched = await Promise.allSettled(instances.map((i) => startApp({ ...i, dir, config, env: childEnv })));
  for (const result of launched) if (result.status === "fulfilled") cleanups.push(() => result.value.stop());
  const failed = launched.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  const [app, offlineApp] = launched.map((r) => r.value);
  log(`app at ${app.url}, offline app at ${offlineApp.url}`);

  // --- 4. the browser and the tests ------------------------------------------------------------
  const { chromium } = await import("playwright-core");
  const server = await chromium.launchServer({
    executablePath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
  cleanups.push(() => server.close());
  log(`Chromium launched; running ${testFiles.length} test file(s)\n`);

  const tests = spawn(process.execPath, ["--test", "--test-concurrency=1", "--test-timeout=120000", "--test-reporter=tap", ...testFiles], {
    stdio: "inherit",
    env: {
      ...process.env,
      APP_URL: app.url,
      OFFLINE_APP_URL: offlineApp.url,
      UPSTREAM_URL: upstream.url,
      MCP_URL: mcp.url,
      MCP_CONTROL_URL: mcpControl.url,
      // For a test that starts (and restarts) an app of its own from the same bundle.
      APP_BUNDLE_DIR: dir,
      ...(config ? { APP_BUNDLE_CONFIG: config } : {}),
      BROWSER_WS_ENDPOINT: server.wsEndpoint(),
      SCREENSHOT_DIR: join(results, "screenshots"),
    },
  });
  cleanups.push(() => stopChild(tests));
  // A last resort against a hung run (each test has its own 2-minute limit): the whole suite takes
  // about 6 minutes on 2 cores.
  const watchdog = setTimeout(() => {
    console.error("[browser-test] the tests ran for 15 minutes: stopping them");
    tests.kill("SIGTERM");
  }, 15 * 60_000);
  const code = await new Promise((r) => tests.once("exit", (c, s) => r(c ?? (s ? 1 : 0))));
  clearTimeout(watchdog);
  if (code !== 0) console.error(`[browser-test] wrangler dev's output: ${app.logPath}, ${offlineApp.logPath}`);
  return code;
}

/**
 * The MCP servers' control API, for the tests in their own process (as test/global-setup.ts has it
 * for vitest): GET /calls answers every real tool execution so far (McpCall[], oldest first), /reset
 * forgets them.
 */
async function startMcpControl(mcp) {
  const server = createServer((req, res) => {
    const answer = (body) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    const path = new URL(req.url ?? "/", "http://control").pathname;
    if (path === "/calls") return answer(mcp.calls);
    if (path === "/reset") {
      mcp.reset();
      return answer({ ok: true });
    }
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: (cb) => server.close(cb) };
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  console.error(`[browser-test] ${err?.stack ?? err}`);
  exitCode = 1;
} finally {
  await cleanup();
}
if (exitCode !== 0) console.error(`[browser-test] FAILED after ${elapsed()}`);
process.exit(exitCode);
