#!/usr/bin/env node
// npm run test:browser: the web app in a real Chromium against `wrangler dev`, with the fake
// Messages API (test/fake-upstream) in this process.
//
//   1. no Chromium: skip (exit 0), or fail when REQUIRE_BROWSER=1
//   2. vite build
//   3. fake upstream, D1 migrations into a fresh temp dir, the Worker bundled into it, `wrangler dev`
//      serving that bundle on a free port
//   4. one Chromium (playwright-core's launchServer), shared by every test file through
//      BROWSER_WS_ENDPOINT; `node --test --test-concurrency=1` on test/browser/*.test.mjs with
//      APP_URL and UPSTREAM_URL set
//   5. clean up everything, exit non-zero when a test failed
//
// The test runner reports in TAP, so the last lines printed are its summary (`# pass N`, `# fail N`).
// wrangler's output goes to test-results/browser-wrangler.log, screenshots to
// test-results/screenshots/, and a failed test's evidence (a screenshot of each of its pages, their
// last socket frames and console errors) to test-results/browser-failures/.
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium), REQUIRE_BROWSER=1, BROWSER_TEST_FILTER
// (a substring: only test files whose name holds it).
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const log = (msg) => console.log(`[browser-test ${elapsed()}] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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

function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
    srv.once("error", reject);
  });
}

/** Kills a detached child's whole process group: TERM, then KILL if it is still there after 5 s. */
async function killGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return;
  }
  const timedOut = await Promise.race([exited.then(() => false), sleep(5000).then(() => true)]);
  if (timedOut) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    await Promise.race([exited, sleep(2000)]);
  }
}

/**
 * Bundles the Worker into `dir` and writes a copy of wrangler.toml next to it that serves the bundle
 * as is (`no_bundle`), with the project's paths made absolute. Returns the copy's path, or null (and
 * `wrangler dev` then serves worker/ itself, reloading on edits) when wrangler.toml has an unexpected
 * shape.
 */
function snapshotConfig(dir, env) {
  const bundleDir = join(dir, "bundle");
  const bundle = spawnSync("node_modules/.bin/wrangler", ["deploy", "--dry-run", "--outdir", bundleDir], { env, encoding: "utf8" });
  if (bundle.status !== 0) throw new Error(`bundling the Worker failed:\n${bundle.stdout}${bundle.stderr}`);
  let toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const absolute = (key) => {
    const re = new RegExp(`^(${key}\\s*=\\s*)"([^"]*)"`, "m");
    if (!re.test(toml)) return false;
    toml = toml.replace(re, (_, lhs, value) => `${lhs}${JSON.stringify(resolve(root, value))}`);
    return true;
  };
  const mainLine = /^main\s*=\s*"[^"]*"\s*$/m;
  if (!mainLine.test(toml) || !absolute("directory") || !absolute("migrations_dir")) {
    log("wrangler.toml has an unexpected shape: serving worker/ directly (edits during the run reload it)");
    return null;
  }
  toml = toml.replace(mainLine, `main = ${JSON.stringify(join(bundleDir, "index.js"))}\nno_bundle = true`);
  const path = join(dir, "wrangler.toml");
  writeFileSync(path, toml);
  return path;
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

  const dir = mkdtempSync(join(tmpdir(), "browser-test-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const state = join(dir, "state");
  const envFile = join(dir, "browser-test.env");
  writeFileSync(envFile, `ANTHROPIC_API_KEY="test-key"\nANTHROPIC_BASE_URL="${upstream.url}"\n`, { mode: 0o600 });

  const wrangler = "node_modules/.bin/wrangler";
  const childEnv = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
  log("applying D1 migrations");
  const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", state], {
    env: childEnv,
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`migrations failed:\n${migrate.stdout}${migrate.stderr}`);

  // The Worker as it is now, bundled once: `wrangler dev` then serves this snapshot and does not
  // reload when someone edits worker/ while the tests run (a reload would restart the objects).
  log("bundling the Worker");
  const devConfig = snapshotConfig(dir, childEnv);

  const port = await freePort();
  const inspectorPort = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const results = join(root, "test-results");
  mkdirSync(join(results, "screenshots"), { recursive: true });
  rmSync(join(results, "browser-failures"), { recursive: true, force: true });
  const logPath = join(results, "browser-wrangler.log");
  const logFile = createWriteStream(logPath);
  cleanups.push(() => new Promise((r) => logFile.end(r)));
  const wranglerLog = [];
  const dev = spawn(
    wrangler,
    [
      "dev",
      ...(devConfig ? ["--config", devConfig] : []),
      "--port", String(port),
      "--ip", "127.0.0.1",
      "--inspector-port", String(inspectorPort),
      "--persist-to", state,
      "--env-file", envFile,
      "--show-interactive-dev-session=false",
    ],
    { detached: true, stdio: ["ignore", "pipe", "pipe"], env: childEnv },
  );
  const keep = (chunk) => {
    logFile.write(chunk);
    wranglerLog.push(chunk.toString());
    if (wranglerLog.length > 4000) wranglerLog.splice(0, wranglerLog.length - 4000);
  };
  dev.stdout.on("data", keep);
  dev.stderr.on("data", keep);
  cleanups.push(() => killGroup(dev));
  const printWranglerLog = (why) => {
    console.log(`\n----- wrangler dev output (${why}) -----\n${wranglerLog.join("").trimEnd()}\n----- end of wrangler dev output -----\n`);
  };

  log(`starting wrangler dev on ${appUrl}`);
  for (let i = 0; ; i++) {
    if (dev.exitCode !== null) {
      printWranglerLog("it exited");
      throw new Error(`wrangler dev exited with ${dev.exitCode}`);
    }
    try {
      const res = await fetch(`${appUrl}/api/health`);
      if (res.ok) break;
    } catch {}
    if (i > 600) {
      printWranglerLog("it did not start");
      throw new Error("wrangler dev did not answer /api/health within 60 s");
    }
    await sleep(100);
  }
  log("app is up");

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
      APP_URL: appUrl,
      UPSTREAM_URL: upstream.url,
      BROWSER_WS_ENDPOINT: server.wsEndpoint(),
      SCREENSHOT_DIR: join(results, "screenshots"),
    },
  });
  cleanups.push(() => stopChild(tests));
  // A last resort against a hung run: the suite normally takes well under a minute.
  const watchdog = setTimeout(() => {
    console.error("[browser-test] the tests ran for 6 minutes: stopping them");
    tests.kill("SIGTERM");
  }, 6 * 60_000);
  const code = await new Promise((r) => tests.once("exit", (c, s) => r(c ?? (s ? 1 : 0))));
  clearTimeout(watchdog);
  if (code !== 0) console.error(`[browser-test] wrangler dev's output: ${logPath}`);
  return code;
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
