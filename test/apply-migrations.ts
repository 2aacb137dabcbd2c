import { applyD1Migrations, env } from "cloudflare:test";

// Migrations applied from empty, as `wrangler d1 migrations apply` does in production.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
