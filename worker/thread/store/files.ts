import type { Attachment } from "../../../protocol";

/** An attachment as the object keeps it: the public shape and where its bytes are in R2. */
export interface FileRecord extends Attachment {
  r2Key: string;
}

type Row = { id: string; name: string; media_type: string; bytes: number; r2_key: string; created_at: number };

/** The thread's attachments, so a post resolves its attachment ids without leaving the object. */
export class FileStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly threadId: () => string,
  ) {}

  add(f: FileRecord): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO files (id, name, media_type, bytes, r2_key, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      f.id, f.name, f.mediaType, f.bytes, f.r2Key, f.createdAt,
    );
  }

  get(id: string): FileRecord | null {
    const row = this.sql.exec<Row>("SELECT * FROM files WHERE id = ?", id).toArray()[0];
    return row ? this.fromRow(row) : null;
  }

  /** These ids' files, in the order given; null when any of them is not this thread's. */
  resolve(ids: string[]): FileRecord[] | null {
    const found = ids.map((id) => this.get(id));
    return found.every((f): f is FileRecord => f !== null) ? found : null;
  }

  all(): FileRecord[] {
    return this.sql.exec<Row>("SELECT * FROM files ORDER BY created_at").toArray().map((r) => this.fromRow(r));
  }

  private fromRow(r: Row): FileRecord {
    return { id: r.id, threadId: this.threadId(), name: r.name, mediaType: r.media_type, bytes: r.bytes, r2Key: r.r2_key, createdAt: r.created_at };
  }
}

export const publicAttachment = ({ r2Key: _key, ...a }: FileRecord): Attachment => a;
