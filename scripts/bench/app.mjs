// The app under `wrangler dev` for the bench, with its log lines collected: each run logs its D1 round
// trips, its mirror flush's among them, as a JSON line ("run finished").
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * wrangler.toml as it is, with its paths made absolute and the per-user rate limits raised: the bench
 * and the soak are one user posting far more than 30 messages a minute, on purpose.
 */
function loadConfig(dir, root) {
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8")
    .replace(/^(main|directory|migrations_dir)(\s*=\s*)"([^"]*)"/gm, (_, key, eq, value) => `${key}${eq}${JSON.stringify(resolve(root, value))}`)
    .replace(/simple = \{ limit = \d+, period = 60 \}/g, "simple = { limit = 1000000, period = 60 }");
  const path = join(dir, "wrangler.toml");
  writeFileSync(path, toml);
  return path;
}

/**
 * Starts the app against `upstreamUrl`; `vars` go into its env file (D1_LATENCY_MS, say). Given the
 * `dir` and `port` of an app stopped with `stop({ keep: true })`, it starts that app again, state and
 * all; given a `root`, it starts the app of another checkout (`npm run bench -- --compare`).
 */
export async function startApp(upstreamUrl, vars = {}, again = {}) {
  const root = again.root ?? ".";
  const port = again.port ?? (await freePort());
  const dir = again.dir ?? mkdtempSync(join(tmpdir(), "bench-"));
  const state = join(dir, "state");
  const envFile = join(dir, "bench.env");
  const all = { ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: upstreamUrl, ...vars };
  writeFileSync(envFile, Object.entries(all).map(([k, v]) => `${k}="${v}"`).join("\n") + "\n");
  const wrangler = "node_modules/.bin/wrangler";
  const config = loadConfig(dir, root);
  const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--config", config, "--persist-to", state], {
    env: { ...process.env, CI: "true" },
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`migrations failed:\n${migrate.stdout}${migrate.stderr}`);
  const child = spawn(wrangler, ["dev", "--config", config, "--port", String(port), "--persist-to", state, "--env-file", envFile], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // wrangler dev's own trace capture is off: the bench measures the app, not the local explorer.
    env: { ...process.env, CI: "true", X_LOCAL_OBSERVABILITY: "false" },
  });
  const logs = [];
  const collect = (stream) => {
    let buffered = "";
    stream.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const line of lines) {
        const at = line.indexOf('{"level"');
        if (at >= 0) {
          try {
            logs.push(JSON.parse(line.slice(at)));
          } catch {}
        }
      }
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    if (i > 300) throw new Error("wrangler dev did not start");
    await sleep(100);
  }
  const stop = ({ keep = false } = {}) => {
    try {
      process.kill(-child.pid, keep ? "SIGKILL" : "SIGTERM");
    } catch {}
    if (!keep) rmSync(dir, { recursive: true, force: true });
  };
  return { base, logs, stop, dir, port };
}

/** Per run: D1 round trips before the model request, and in all (its run plus its mirror flush). */
export function d1PerRun(logs, runIds) {
  const finished = new Map(logs.filter((l) => l.message === "run finished").map((l) => [l.runId, l]));
  return runIds
    .filter((id) => finished.has(id))
    .map((id) => ({ beforeModel: finished.get(id).d1BeforeModel ?? 0, total: finished.get(id).d1RoundTrips + (finished.get(id).mirror?.d1RoundTrips ?? 0) }));
}
