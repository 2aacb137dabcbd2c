import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/** A port for the fake Messages API; test/global-setup.ts starts it there before any worker runs. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The workerd suites. `legacy`: a deployment with data from before the objects (LEGACY_IMPORT), whose
 * objects import their rows from D1 on first touch; its tests (test/legacy/) run apart, as the rest run
 * as a new deployment does, never reading D1 for a thread or a user.
 */
export function workerdConfig({ legacy }: { legacy: boolean }) {
  return defineConfig(async () => {
    const migrations = await readD1Migrations("migrations");
    const port = Number(process.env.FAKE_UPSTREAM_PORT) || (await freePort());
    process.env.FAKE_UPSTREAM_PORT = String(port);
    // The MCP servers the tests connect to, and their control API (test/global-setup.ts).
    const mcpPort = Number(process.env.MCP_TEST_PORT) || (await freePort());
    const controlPort = Number(process.env.MCP_CONTROL_PORT) || (await freePort());
    process.env.MCP_TEST_PORT = String(mcpPort);
    process.env.MCP_CONTROL_PORT = String(controlPort);
    const proxyPort = Number(process.env.MCP_PROXY_PORT) || (await freePort());
    process.env.MCP_PROXY_PORT = String(proxyPort);
    // wrangler.toml's assets folder must exist; a page stands in for the web build the tests do not need.
    mkdirSync("dist/client", { recursive: true });
    if (!existsSync("dist/client/index.html")) writeFileSync("dist/client/index.html", "<!doctype html><title>test</title>");
    return {
      plugins: [
        cloudflareTest({
          main: "./worker/index.ts",
          wrangler: { configPath: "./wrangler.toml" },
          miniflare: {
            bindings: {
              TEST_MIGRATIONS: migrations,
              ANTHROPIC_API_KEY: "test-key",
              ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
              RETRY_BASE_MS: "5",
              RUN_TIMEOUT_MS: "5000",
              // The tests call the app as https://app.test and the like, not localhost.
              ALLOW_ANONYMOUS: "true",
              // A cap no test reaches by accident (test/http/limits.test.ts spends past it on purpose).
              USER_DAILY_COST_USD: "50",
              // Schedules every 2 s, so a test can wait for a fire (test/thread/schedules.test.ts).
              SCHEDULE_MIN_INTERVAL_S: "2",
              // The tests' MCP servers are on 127.0.0.1 (test/mcp/server.mjs).
              MCP_ALLOW_LOCAL: "1",
              MCP_TEST_URL: `http://127.0.0.1:${mcpPort}`,
              MCP_CONTROL_URL: `http://127.0.0.1:${controlPort}`,
              MCP_PROXY_URL: `http://127.0.0.1:${proxyPort}`,
              // Approvals decline by themselves after 3 s (test/thread/approvals.test.ts waits for one).
              APPROVAL_TIMEOUT_S: "3",
              // A short wait for a tool call (test/user/mcp.test.ts makes one time out).
              MCP_TOOL_TIMEOUT_MS: "1500",
              // An answer runs code at most 3 times (test/thread/code-limits.test.ts runs past it).
              CODE_RUNS_PER_RUN: "3",
              ...(legacy ? { LEGACY_IMPORT: "1" } : {}),
            },
            // Real limiters: wrangler.toml's, loose enough for the suites, and a tight one to hit.
            ratelimits: {
              POST_LIMITER: { namespace_id: "1001", simple: { limit: 100_000, period: 60 } },
              THREAD_LIMITER: { namespace_id: "1002", simple: { limit: 100_000, period: 60 } },
              SHARE_LIMITER: { namespace_id: "1003", simple: { limit: 100_000, period: 60 } },
              TIGHT_LIMITER: { namespace_id: "1999", simple: { limit: 3, period: 60 } },
            },
          },
        }),
      ],
      test: {
        include: legacy ? ["test/legacy/**/*.test.ts"] : ["worker/**/*.test.ts", "test/**/*.test.ts"],
        exclude: ["test/browser/**", "node_modules/**", ...(legacy ? [] : ["test/legacy/**"])],
        globalSetup: ["./test/global-setup.ts"],
        setupFiles: ["./test/apply-migrations.ts"],
        testTimeout: 20_000,
      },
    };
  });
}

export default workerdConfig({ legacy: false });
