// The one place that writes the thread's own rows: into the object's store first (the primary copy),
// then, in D1's shape, into the outbox for the next mirror flush, and into the report for the owner's
// object what it keeps of a thread: the thread row (its directory), text messages (its search), runs.
import type { Message, Thread } from "../../protocol";
import type { messages, threads } from "../db/schema";
import type { MonotonicClock } from "../lib/ids";
import type { MirrorTable } from "../lib/outbox";
import type { UsageRows } from "../plugins/contract";
import type { RoomStore } from "./store";
import { publicMessage, type MessageRecord } from "./store/messages";
import { publicThread, type ThreadPatch, type ThreadRecord } from "./store/thread-row";

export class ThreadWriter {
  constructor(
    private readonly store: RoomStore,
    readonly clock: MonotonicClock,
  ) {}

  createThread(t: ThreadRecord): Thread {
    this.store.thread.create(t);
    this.both("threads", t.id, d1Thread(t));
    return publicThread(t);
  }

  updateThread(patch: ThreadPatch): ThreadRecord {
    const t = this.store.thread.update(patch, Date.now());
    this.both("threads", t.id, d1Thread(t));
    return t;
  }

  addMessage(m: MessageRecord): Message {
    this.store.messages.insert(m);
    if (m.kind === "text") this.both("messages", m.id, d1Message(m));
    else this.store.outbox.put("messages", m.id, d1Message(m));
    return publicMessage(m);
  }

  /** The calls waiting for the user's approval, for the owner's list (its badge); false without a thread. */
  reportApprovals(): boolean {
    const t = this.store.thread.get();
    if (!t) return false;
    this.store.report.put("approvals", t.id, { id: t.id, ownerId: t.ownerId, pending: t.pendingApprovals ?? [] });
    return true;
  }

  /** Usage rows live in D1 and, a run's, in the owner's ledger; they travel with the next flushes. */
  mirror<T extends keyof UsageRows>(table: T, row: UsageRows[T]): void {
    if (table === "metrics") {
      const metric = row as UsageRows["metrics"];
      this.store.outbox.put(table, `${metric.runId}:${metric.name}`, metric);
    } else this.both(table, String(row.id), row as Record<string, unknown>);
  }

  private both(table: MirrorTable, key: string, row: Record<string, unknown>): void {
    this.store.outbox.put(table, key, row);
    this.store.report.put(table, key, row);
  }
}

function d1Thread(t: ThreadRecord): typeof threads.$inferInsert {
  return {
    id: t.id,
    ownerId: t.ownerId,
    source: t.source,
    name: t.name,
    kind: t.kind,
    status: t.status,
    sessionId: t.sessionId,
    model: t.model,
    instructions: t.instructions,
    headId: t.headId,
    parentThreadId: t.parentThreadId,
    projectId: t.projectId ?? null,
    lastActivity: t.lastActivity,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

function d1Message(m: MessageRecord): typeof messages.$inferInsert {
  return {
    id: m.id,
    threadId: m.threadId,
    role: m.role,
    kind: m.kind,
    source: m.source,
    content: m.content,
    model: m.model,
    metadata: m.metadata,
    clientMessageId: m.clientMessageId,
    parentId: m.parentId,
    createdAt: m.createdAt,
  };
}
