#!/usr/bin/env node
// node scripts/complete-lock.mjs: run after an `npm install` that moves workerd.
//
// workerd ships its binary as one optional package per platform. The registry these machines use
// carries only the Linux ones for recent workerd releases, so npm writes a lock file without the
// macOS and Windows entries, and `npm ci` then refuses it ("Missing: @cloudflare/workerd-darwin-64@
// from lock file"). This adds those entries by name, version, os and cpu: npm skips them on Linux and
// fetches them by version on the platforms that need them.
import { readFileSync, writeFileSync } from "node:fs";

const PLATFORMS = {
  "darwin-64": ["darwin", "x64"],
  "darwin-arm64": ["darwin", "arm64"],
  "linux-64": ["linux", "x64"],
  "linux-arm64": ["linux", "arm64"],
  "windows-64": ["win32", "x64"],
};

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;
let added = 0;
for (const [key, entry] of Object.entries(packages)) {
  if (!key.endsWith("node_modules/workerd")) continue;
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const hoisted = `node_modules/${dep}`;
    const nested = `${key.slice(0, -"workerd".length)}${dep}`;
    if (packages[hoisted]?.version === version || packages[nested]) continue;
    const [os, cpu] = PLATFORMS[dep.split("workerd-")[1]];
    packages[packages[hoisted] ? nested : hoisted] = { version, cpu: [cpu], license: "Apache-2.0", optional: true, os: [os], engines: { node: ">=16" } };
    added++;
  }
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added ? `package-lock.json: added ${added} platform entries for workerd` : "package-lock.json: complete");
