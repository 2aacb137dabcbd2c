import type { Logger } from "../plugins/contract";

/** One JSON line per entry (what Workers Logs indexes). Callers pass ids and codes, never secrets. */
export function consoleLogger(scope: string): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>) =>
    console.log(JSON.stringify({ level, scope, message, ...fields }));
  return {
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}
