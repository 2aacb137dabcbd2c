// Which of the user's files the model API already has: the Files API id of each file a thread's run
// put in the code's container (a thread's attachment, a project's file), by our file's id. A file is
// uploaded once, and every thread and run that sends it again names the same upload. Here, in the
// owner's object, because a project's files are shared by its threads. A file deleted (its thread,
// its project) leaves here, and the caller deletes its upload from the Files API (this object calls no
// model API).
const TABLE = `CREATE TABLE IF NOT EXISTS upstream_files (
  file_id TEXT PRIMARY KEY, upstream_id TEXT NOT NULL, created_at INTEGER NOT NULL
)`;

export class UpstreamFiles {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(TABLE);
  }

  /** The Files API ids of those of `fileIds` already uploaded, by our id. */
  of(fileIds: string[]): Record<string, string> {
    if (fileIds.length === 0) return {};
    const rows = this.sql
      .exec<{ file_id: string; upstream_id: string }>("SELECT file_id, upstream_id FROM upstream_files WHERE file_id IN (SELECT value FROM json_each(?))", JSON.stringify(fileIds))
      .toArray();
    return Object.fromEntries(rows.map((r) => [r.file_id, r.upstream_id]));
  }

  remember(fileId: string, upstreamId: string, now = Date.now()): void {
    this.sql.exec("INSERT OR REPLACE INTO upstream_files (file_id, upstream_id, created_at) VALUES (?, ?, ?)", fileId, upstreamId, now);
  }

  /** The API no longer has it (or never will): the next run uploads it again. */
  forget(fileId: string): void {
    this.sql.exec("DELETE FROM upstream_files WHERE file_id = ?", fileId);
  }

  /** Our files are deleted: the Files API ids of their uploads, which the caller deletes there. */
  deleted(fileIds: string[]): string[] {
    const uploads = Object.values(this.of(fileIds));
    if (uploads.length) for (const id of fileIds) this.forget(id);
    return uploads;
  }
}
