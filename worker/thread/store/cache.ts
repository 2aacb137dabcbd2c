import type { LongText } from "./long-text";

/**
 * Values read from D1 for step 0, kept with the time they were read, so a cold object has them too.
 * Step 0's inputs can pass what a row holds (a project's text files, MCP servers' tool schemas).
 */
export class CacheStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly long: LongText,
  ) {}

  get<T>(key: string): { value: T; fetchedAt: number } | null {
    const row = this.sql.exec<{ value: string; fetched_at: number }>("SELECT value, fetched_at FROM cache WHERE key = ?", key).toArray()[0];
    return row ? { value: JSON.parse(this.long.get(row.value)) as T, fetchedAt: row.fetched_at } : null;
  }

  put(key: string, value: unknown, fetchedAt: number): void {
    this.sql.exec("INSERT OR REPLACE INTO cache (key, value, fetched_at) VALUES (?, ?, ?)", key, this.long.put(`cache/${key}`, JSON.stringify(value)), fetchedAt);
  }
}
