import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../worker/env";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      TIGHT_LIMITER: RateLimit;
      MCP_TEST_URL: string;
      MCP_CONTROL_URL: string;
      MCP_PROXY_URL: string;
    }
  }
}
