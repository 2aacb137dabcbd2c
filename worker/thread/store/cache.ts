/** Values read from D1 for step 0, kept with the time they were read, so a cold object has them too. */
export class CacheStore {
  constructor(private readonly sql: SqlStorage) {}

  get<T>(key: string): { value: T; fetchedAt: number } | null {
    const row = this.sql.exec<{ value: string; fetched_at: number }>("SELECT value, fetched_at FROM cache WHERE key = ?", key).toArray()[0];
    return row ? { value: JSON.parse(row.value) as T, fetchedAt: row.fetched_at } : null;
  }

  put(key: string, value: unknown, fetchedAt: number): void {
    this.sql.exec("INSERT OR REPLACE INTO cache (key, value, fetched_at) VALUES (?, ?, ?)", key, JSON.stringify(value), fetchedAt);
  }
}
