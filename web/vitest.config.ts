import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { protocolAlias } from "../vite.config.ts";

// The web app's unit tests: plain Node, no workerd and no browser (the root vitest.config.ts runs
// the Worker's suite inside workerd; test/browser/ drives the built app in Chromium).
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  resolve: { alias: protocolAlias },
  test: {
    environment: "node",
    include: ["web/**/*.test.ts"],
  },
});
