export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** The same logger with these fields on every line (a request id, a thread id). */
  with(fields: Record<string, unknown>): Logger;
}

/** One JSON line per entry (what Workers Logs indexes). Callers pass ids and codes, never secrets. */
export function consoleLogger(scope: string, base: Record<string, unknown> = {}): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>) =>
    console.log(JSON.stringify({ level, scope, message, ...base, ...fields }));
  return {
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    with: (fields) => consoleLogger(scope, { ...base, ...fields }),
  };
}
