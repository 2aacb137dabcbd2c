#!/usr/bin/env node
// Runs the fake upstream standalone:
//   node test/fake-upstream/cli.mjs [--port N] [--host H] [--tokens N] [--token-delay-ms D]
// Prints one "fake-upstream listening on <url>" line, then serves until SIGTERM/SIGINT.

import { parseArgs } from "node:util";
import { startFakeUpstream } from "./server.mjs";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    tokens: { type: "string" },
    "token-delay-ms": { type: "string", default: "0" },
  },
});

const fake = await startFakeUpstream({
  port: toNumber("--port", values.port),
  host: values.host,
  defaultTokens: values.tokens === undefined ? undefined : toNumber("--tokens", values.tokens),
  tokenDelayMs: toNumber("--token-delay-ms", values["token-delay-ms"]),
});
console.log(`fake-upstream listening on ${fake.url}`);

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, async () => {
    await fake.close();
    process.exit(0);
  });
}

function toNumber(flag, text) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`fake-upstream: ${flag} expects a non-negative integer, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
}
