import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The web app only: the Worker is built and served by wrangler, which serves dist/client as assets.
export default defineConfig({
  root: "web",
  plugins: [react()],
  build: { outDir: "../dist/client", emptyOutDir: true },
  server: { proxy: { "/api": { target: "http://localhost:8787", ws: true } } },
});
