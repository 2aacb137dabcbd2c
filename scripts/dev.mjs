#!/usr/bin/env node
// npm run dev: local D1 migrations, the web build, then `wrangler dev` on http://localhost:8787
// (or $PORT). ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL from the environment reach the Worker as
// secrets through a generated env file, so their values are never printed.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const PASSED_THROUGH = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "AUTH_MODE",
  "AUTH_TOKENS",
  "ADMIN_USERS",
  "ALLOW_ANONYMOUS",
  "ACCESS_TEAM_DOMAIN",
  "ACCESS_AUD",
  "USER_DAILY_COST_USD",
  "USER_STORAGE_QUOTA_BYTES",
  "SHARES_PER_THREAD",
  "SHARES_PER_USER",
  "USER_TASKS_PER_DAY",
  "USER_CONTEXT_FILES_MAX",
  "USER_CONTEXT_BYTES_MAX",
  "MAX_AUTO_RUNS",
  "MODELS",
  "DEFAULT_MODEL",
  "THINKING",
  "DEV_FAULTS",
  "SCHEDULE_MIN_INTERVAL_S",
  "MAX_SCHEDULES_PER_USER",
  "USER_UNATTENDED_RUNS_PER_DAY",
  "MCP_TOOL_TIMEOUT_MS",
  "MCP_ALLOW_LOCAL",
  "CODE_EXECUTION",
  "CODE_RUNS_PER_RUN",
  "PROJECT_FILES_MAX",
  "PROJECT_WHOLE_SHARE",
  "DOCUMENT_MAX_CHARS",
  "DOCUMENT_PARSE_MS",
  "PROJECT_MAX_CHARS",
  "APPROVAL_TIMEOUT_S",
  "RESEARCH_REVIEW",
  "RESEARCH_MIN_TASKS",
  "RESEARCH_MAX_TASKS",
  "RESEARCH_BUDGET_USD",
  "RESEARCH_TIME_LIMIT_S",
  "RESEARCH_SEARCHES_PER_TASK",
];
const port = process.env.PORT || "8787";
const wrangler = "node_modules/.bin/wrangler";

/** `npm run dev -- --persist-to <dir>` keeps all local state there: the migrations' D1 too, not only wrangler dev's. */
function persistArgs(args) {
  const i = args.findIndex((a) => a === "--persist-to" || a.startsWith("--persist-to="));
  if (i < 0) return [];
  return args[i].includes("=") ? [args[i]] : args.slice(i, i + 2);
}

function step(label, cmd, args) {
  console.log(`\n▶ ${label}`);
  const res = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, CI: "true" } });
  if (res.status !== 0) process.exit(res.status ?? 1);
}

/** .dev.vars (if any) with the environment's values on top; only the names listed above are taken. */
function writeEnvFile() {
  const lines = existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8").split("\n").filter((l) => l.trim()) : [];
  for (const name of PASSED_THROUGH) {
    const value = process.env[name];
    if (!value) continue;
    const i = lines.findIndex((l) => l.startsWith(`${name}=`));
    const line = `${name}=${JSON.stringify(value)}`;
    if (i >= 0) lines[i] = line;
    else lines.push(line);
  }
  // npm run dev is this machine: MCP servers on localhost may be connected (never on a deployment),
  // unless .dev.vars or the environment says otherwise (MCP_ALLOW_LOCAL=0).
  if (!lines.some((l) => l.startsWith("MCP_ALLOW_LOCAL="))) lines.push("MCP_ALLOW_LOCAL=1");
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(".wrangler/dev.env", lines.join("\n") + "\n", { mode: 0o600 });
  const keyed = lines.some((l) => l.startsWith("ANTHROPIC_API_KEY="));
  console.log(keyed ? "Model: Anthropic (ANTHROPIC_API_KEY is set)" : "Model: offline (no ANTHROPIC_API_KEY): the app answers with a local stand-in model");
}

step("Applying D1 migrations (local)", wrangler, ["d1", "migrations", "apply", "DB", "--local", ...persistArgs(process.argv.slice(2))]);
step("Building the web app", "node_modules/.bin/vite", ["build", "--logLevel", "warn"]);
writeEnvFile();
console.log(`\n▶ Serving on http://localhost:${port}\n`);
const dev = spawn(wrangler, ["dev", "--port", port, "--env-file", ".wrangler/dev.env", ...process.argv.slice(2)], { stdio: "inherit" });
const stop = (signal) => dev.kill(signal);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
dev.on("exit", (code) => process.exit(code ?? 0));
