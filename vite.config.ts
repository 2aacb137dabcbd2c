import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

/** `@protocol`: the shapes, events and routes the web app shares with the Worker (protocol/). */
export const protocolAlias = { "@protocol": fileURLToPath(new URL("./protocol/index.ts", import.meta.url)) };

// The web app only: the Worker is built and served by wrangler, which serves dist/client as assets.
export default defineConfig({
  root: "web",
  plugins: [react()],
  resolve: { alias: protocolAlias },
  build: { outDir: "../dist/client", emptyOutDir: true },
  server: { proxy: { "/api": { target: "http://localhost:8787", ws: true } } },
});
