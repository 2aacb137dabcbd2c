// A thread created before the object became its primary store has its rows in D1 only. Where the
// deployment has such data (LEGACY_IMPORT), an object that holds no thread looks for its thread in D1
// once: found, its rows are kept (the messages form one branch, each user message following the one
// before, and the model is given the text history on the next run); not found, the object remembers
// it for its life and reads D1 for it no more. Off, D1 is never read for a thread.
import { asc, eq } from "drizzle-orm";
import type { MessageMetadata } from "../../protocol";
import type { Db } from "../db/client";
import { messages, threads } from "../db/schema";
import type { RoomStore } from "./store";
import { messageRecord } from "./store/messages";
import type { ThreadRecord } from "./store/thread-row";
import type { ThreadWriter } from "./writer";

/** Where an imported thread is kept: the object's store, made only once there is a thread to keep. */
export type ImportTarget = () => { store: RoomStore; writer: ThreadWriter };

export class LegacyImport {
  private importing: Promise<ThreadRecord | null> | null = null;
  /** D1 held no such thread when this instance looked. */
  private absent = false;

  constructor(
    private readonly db: Db | null,
    private readonly into: ImportTarget,
  ) {}

  /** The thread, from D1; requests that come together share one read. */
  load(threadId: string): Promise<ThreadRecord | null> {
    if (!this.db || this.absent) return Promise.resolve(null);
    this.importing ??= this.read(this.db, threadId).finally(() => (this.importing = null));
    return this.importing;
  }

  private async read(db: Db, threadId: string): Promise<ThreadRecord | null> {
    const [[row], rows] = await db.batch([
      db.select().from(threads).where(eq(threads.id, threadId)),
      db.select().from(messages).where(eq(messages.threadId, threadId)).orderBy(asc(messages.createdAt), asc(messages.id)),
    ]);
    if (!row) {
      this.absent = true;
      return null;
    }
    const { store, writer } = this.into();
    if (store.thread.get() || store.deleted) return store.thread.get();
    store.transaction(() => {
      let head: string | null = null;
      for (const m of rows) {
        const input = m.role === "user";
        writer.addMessage(messageRecord({ ...m, metadata: (m.metadata ?? {}) as MessageMetadata, threadId, parentId: head, input }));
        if (input) head = m.id;
      }
      writer.createThread({
        id: row.id,
        ownerId: row.ownerId,
        source: row.source,
        name: row.name,
        kind: row.kind,
        status: row.status,
        model: row.model,
        // The old object's conversation is gone: the next run injects the history instead.
        sessionId: null,
        parentThreadId: row.parentThreadId,
        instructions: row.instructions,
        headId: head,
        named: row.name !== "New thread",
        lastActivity: row.lastActivity,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      });
    });
    return store.thread.get();
  }
}
