// Whose object this is, and whether its rows came from D1 yet. The first call names the user; the
// user's rows are imported then, once (a call meanwhile waits for the same import; a failed one throws
// and the next call tries again). After that, a call for another user is a caller's mistake, refused.
export class FirstTouch {
  private userId: string | null;
  private imported: boolean;
  private importing: Promise<void> | null = null;

  constructor(
    private readonly sql: SqlStorage,
    /** Reads the user's rows from D1 into the object; how many it read. */
    private readonly importRows: (userId: string) => Promise<number>,
  ) {
    this.userId = this.meta("user");
    this.imported = this.meta("imported") !== null;
  }

  /** The user this object belongs to, once known. */
  get owner(): string | null {
    return this.userId;
  }

  open(userId: string): Promise<void> {
    if (this.userId !== null && this.userId !== userId) throw new Error("This object belongs to another user");
    if (this.imported) return Promise.resolve();
    this.importing ??= this.importOnce(userId).finally(() => (this.importing = null));
    return this.importing;
  }

  private async importOnce(userId: string): Promise<void> {
    const rows = await this.importRows(userId);
    this.setMeta("user", userId);
    this.setMeta("imported", String(rows));
    this.userId = userId;
    this.imported = true;
  }

  private meta(key: string): string | null {
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value ?? null;
  }

  private setMeta(key: string, value: string): void {
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", key, value);
  }
}
