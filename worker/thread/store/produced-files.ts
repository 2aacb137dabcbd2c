import type { ProducedFile } from "../../../protocol";

/** A file the model's code wrote, as the object keeps it: the public shape and where its bytes are. */
export interface ProducedRecord extends ProducedFile {
  r2Key: string;
}

type Row = { id: string; run_id: string; name: string; media_type: string; bytes: number; r2_key: string; created_at: number };

/** The files the thread's code runs produced (their bytes are in R2, under the user's quota). */
export class ProducedFileStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly threadId: () => string,
  ) {}

  add(f: ProducedRecord): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO produced_files (id, run_id, name, media_type, bytes, r2_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      f.id, f.runId, f.name, f.mediaType, f.bytes, f.r2Key, f.createdAt,
    );
  }

  get(id: string): ProducedRecord | null {
    const row = this.sql.exec<Row>("SELECT * FROM produced_files WHERE id = ?", id).toArray()[0];
    return row ? this.fromRow(row) : null;
  }

  /** Newest first. */
  all(): ProducedRecord[] {
    return this.sql.exec<Row>("SELECT * FROM produced_files ORDER BY created_at DESC, id DESC").toArray().map((r) => this.fromRow(r));
  }

  private fromRow(r: Row): ProducedRecord {
    return { id: r.id, threadId: this.threadId(), runId: r.run_id, name: r.name, mediaType: r.media_type, bytes: r.bytes, r2Key: r.r2_key, createdAt: r.created_at };
  }
}

export const publicProduced = ({ r2Key: _key, ...f }: ProducedRecord): ProducedFile => f;
