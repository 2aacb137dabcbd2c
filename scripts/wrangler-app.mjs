// The app under `wrangler dev` for the browser suite: the Worker bundled once into a snapshot, and
// any number of instances of it, each with its own D1 state, variables and port.
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const wrangler = "node_modules/.bin/wrangler";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
    srv.once("error", reject);
  });
}

/** Kills a detached child's whole process group: TERM, then KILL if it is still there after 5 s. */
export async function killGroup(child) {
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
 * as is (`no_bundle`), with the project's paths made absolute: `wrangler dev` then serves this
 * snapshot and does not reload when someone edits worker/ while the tests run (a reload would
 * restart the objects). Returns the copy's path, or null (and `wrangler dev` then serves worker/
 * itself) when wrangler.toml has an unexpected shape.
 */
export function bundleWorker(root, dir, env, log) {
  const bundleDir = join(dir, "bundle");
  const bundle = spawnSync(wrangler, ["deploy", "--dry-run", "--outdir", bundleDir], { env, encoding: "utf8" });
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

/**
 * One instance: D1 migrations into `dir/<name>/state`, then `wrangler dev` with `vars` (written to an
 * env file, so secrets are never on a command line) on a free port. Resolves when /api/health
 * answers (any status: a token-mode app answers 401); `stop()` ends it, `printLog(why)` shows its output.
 * Started again with the same `name` and `dir` (and `port`), it is the same app after a restart: its
 * state is kept on disk.
 */
export async function startApp({ name, dir, config, env, vars, logPath, port: fixedPort }) {
  const own = join(dir, name);
  const state = join(own, "state");
  mkdirSync(own, { recursive: true });
  const envFile = join(own, "app.env");
  writeFileSync(envFile, Object.entries(vars).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join("\n") + "\n", { mode: 0o600 });

  const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", state], { env, encoding: "utf8" });
  if (migrate.status !== 0) throw new Error(`${name}: migrations failed:\n${migrate.stdout}${migrate.stderr}`);

  const [port, inspectorPort] = [fixedPort ?? (await freePort()), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const logFile = createWriteStream(logPath);
  const recent = [];
  const dev = spawn(
    wrangler,
    [
      "dev",
      ...(config ? ["--config", config] : []),
      "--port", String(port),
      "--ip", "127.0.0.1",
      "--inspector-port", String(inspectorPort),
      "--persist-to", state,
      "--env-file", envFile,
      "--show-interactive-dev-session=false",
    ],
    { detached: true, stdio: ["ignore", "pipe", "pipe"], env },
  );
  const keep = (chunk) => {
    logFile.write(chunk);
    recent.push(chunk.toString());
    if (recent.length > 4000) recent.splice(0, recent.length - 4000);
  };
  dev.stdout.on("data", keep);
  dev.stderr.on("data", keep);
  const app = {
    name,
    url,
    logPath,
    printLog: (why) => console.log(`\n----- ${name}: wrangler dev output (${why}) -----\n${recent.join("").trimEnd()}\n----- end -----\n`),
    stop: async () => {
      await killGroup(dev);
      await new Promise((r) => logFile.end(r));
    },
  };

  for (let i = 0; ; i++) {
    if (dev.exitCode !== null) {
      app.printLog("it exited");
      throw new Error(`${name}: wrangler dev exited with ${dev.exitCode}`);
    }
    try {
      if ((await fetch(`${url}/api/health`)).status < 500) return app;
    } catch {}
    if (i > 600) {
      app.printLog("it did not start");
      await app.stop();
      throw new Error(`${name}: wrangler dev did not answer /api/health within 60 s`);
    }
    await sleep(100);
  }
}
