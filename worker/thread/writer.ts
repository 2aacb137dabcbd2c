// The one place that writes the thread's own rows: into the object's store first (the primary copy),
// then what others keep of it. D1 gets the thread's metadata (its outbox, flushed after the run); the
// owner's object gets, through the report, what it keeps of a thread: the thread row (its directory),
// text messages (its search), runs' usage, waiting calls. Nothing that grows with messages goes to D1.
import type { Message, Thread } from "../../protocol";
import { DIRECTORY_ACTIVITY_GRAIN_MS, type agentRuns, type DirectoryRow, type messages, type threads } from "../db/schema";
import type { MonotonicClock } from "../lib/ids";
import type { RoomStore } from "./store";
import { publicMessage, type MessageRecord } from "./store/messages";
import { publicThread, type ThreadPatch, type ThreadRecord } from "./store/thread-row";

export class ThreadWriter {
  /** The directory row this instance last sent to D1's outbox. */
  private directorySent: DirectoryRow | null = null;

  constructor(
    private readonly store: RoomStore,
    readonly clock: MonotonicClock,
  ) {}

  createThread(t: ThreadRecord): Thread {
    this.store.thread.create(t);
    this.thread(t);
    return publicThread(t);
  }

  updateThread(patch: ThreadPatch): ThreadRecord {
    const t = this.store.thread.update(patch, Date.now());
    this.thread(t);
    return t;
  }

  addMessage(m: MessageRecord): Message {
    this.store.messages.insert(m);
    if (m.kind === "text") this.store.report.put("messages", m.id, reportedMessage(m));
    return publicMessage(m);
  }

  /** The calls waiting for the user's approval, for the owner's list (its badge); false without a thread. */
  reportApprovals(): boolean {
    const t = this.store.thread.get();
    if (!t) return false;
    this.store.report.put("approvals", t.id, { id: t.id, ownerId: t.ownerId, pending: t.pendingApprovals ?? [] });
    return true;
  }

  /** A run's usage, for the owner's object (their usage, today's spend, D1's day totals). */
  usage(row: typeof agentRuns.$inferInsert): void {
    this.store.report.put("agent_runs", row.id, row);
  }

  private thread(t: ThreadRecord): void {
    const row = directoryRow(t);
    if (directoryMoved(this.directorySent, row)) {
      this.store.outbox.put("thread_directory", t.id, row);
      this.directorySent = row;
    }
    this.store.report.put("threads", t.id, reportedThread(t));
  }
}

/** Whether D1's directory row is due: a field changed, or its last activity is a grain behind. */
function directoryMoved(sent: DirectoryRow | null, row: DirectoryRow): boolean {
  if (!sent) return true;
  const changed = (Object.keys(row) as (keyof DirectoryRow)[]).some((k) => k !== "lastActivity" && k !== "updatedAt" && row[k] !== sent[k]);
  return changed || row.lastActivity - sent.lastActivity >= DIRECTORY_ACTIVITY_GRAIN_MS;
}

/** What D1 keeps of a thread: its metadata, no content. */
function directoryRow(t: ThreadRecord): DirectoryRow {
  const { id, ownerId, kind, name, status, parentThreadId, lastActivity, createdAt, updatedAt } = t;
  return { id, ownerId, kind, name, status, parentThreadId, lastActivity, createdAt, updatedAt };
}

/** The thread row the owner's directory keeps. */
function reportedThread(t: ThreadRecord): typeof threads.$inferInsert {
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

/** A text message as the owner's search keeps it. */
function reportedMessage(m: MessageRecord): typeof messages.$inferInsert {
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
