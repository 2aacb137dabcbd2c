// The run queue (inbox) and each run's progress (runs). A run is `started` once pipeline:start is out,
// `stored` once its answer (or its failure) is stored and it has left the queue, in one transaction,
// and `ended` once its last event is out. Recovery reads these to finish what a restart cut short.
import type { RunErrorCode } from "../../../protocol";

export interface InboxItem {
  pos: number;
  messageId: string;
  taskId: string | null;
  runId: string | null;
  state: "queued" | "running";
  /** How often a restart cut this message's run short and it ran again. */
  restarts: number;
  requestId: string | null;
  /** The seq of the chat:message that announced the message (its run's replay keeps it). */
  queuedSeq: number | null;
}

export type RunState = "started" | "stored" | "ended";

/** Frames of runs younger than this stay in the replay buffer, however many runs there were. */
const REPLAY_MIN_AGE_MS = 60_000;

/** How a stored run ended, for the end event that recovery may have to send. */
export type RunEnd =
  | { status: "completed"; commandsHandled: string[]; commandsUnhandled: string[]; durationMs: number }
  | { status: "failed"; code: RunErrorCode; message: string; retryable: boolean };

export interface RunRecord {
  runId: string;
  messageId: string;
  firstSeq: number;
  state: RunState;
  end: RunEnd | null;
  toolRan: boolean;
}

type InboxRow = {
  pos: number;
  message_id: string;
  task_id: string | null;
  run_id: string | null;
  state: string;
  restarts: number;
  request_id: string | null;
  queued_seq: number | null;
};

type RunRow = {
  run_id: string;
  message_id: string;
  first_seq: number;
  state: string;
  outcome: string | null;
  tool_ran: number;
};

export class RunLog {
  constructor(private readonly sql: SqlStorage) {}

  // --- the queue -----------------------------------------------------------------------------

  /** Queues a message; `queuedSeq`: the seq of the chat:message that announces it. */
  enqueue(messageId: string, taskId: string | null, requestId: string | null = null, queuedSeq: number | null = null): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO inbox (message_id, task_id, request_id, queued_seq) VALUES (?, ?, ?, ?)",
      messageId, taskId, requestId, queuedSeq,
    );
  }

  /** The run in progress if there is one, else the oldest waiting message. */
  head(): InboxItem | null {
    const row = this.sql
      .exec<InboxRow>("SELECT * FROM inbox ORDER BY (state = 'running') DESC, pos LIMIT 1")
      .toArray()[0];
    return row ? fromInbox(row) : null;
  }

  queued(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM inbox").one().n;
  }

  markRunning(pos: number, runId: string): void {
    this.sql.exec("UPDATE inbox SET state = 'running', run_id = ? WHERE pos = ?", runId, pos);
  }

  /** A run cut short by a restart goes back to waiting, at the front, to run again. */
  requeue(pos: number): void {
    this.sql.exec("UPDATE inbox SET state = 'queued', run_id = NULL, restarts = restarts + 1 WHERE pos = ?", pos);
  }

  dequeue(pos: number): void {
    this.sql.exec("DELETE FROM inbox WHERE pos = ?", pos);
  }

  /** Removes a task's iterations that have not started yet; answers how many. */
  dropQueuedForTask(taskId: string): number {
    return this.sql.exec("DELETE FROM inbox WHERE task_id = ? AND state = 'queued'", taskId).rowsWritten;
  }

  // --- runs ----------------------------------------------------------------------------------

  /**
   * Records a run as announced, and prunes the replay buffer: it keeps the frames of the run before
   * this one (PROTOCOL.md's promise: the last two runs) and of every run started in the last minute,
   * so a client cut off by a restart, while the object caught up on its queue, still resumes where it
   * was. A run's frames begin at `keepSeq`, its message's chat:message (else at `firstSeq`).
   */
  started(runId: string, messageId: string, firstSeq: number, now: number, keepSeq: number | null = null): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO runs (run_id, message_id, first_seq, state, at, keep_seq) VALUES (?, ?, ?, 'started', ?, ?)",
      runId, messageId, firstSeq, now, keepSeq === null ? firstSeq : Math.min(keepSeq, firstSeq),
    );
  }

  /**
   * The seq from which the replay keeps frames: those of the newest run but one, and of every run that
   * started within REPLAY_MIN_AGE_MS. The rows of the runs before it go, once ended. Called after a
   * run, off its way; undefined while there is nothing to prune.
   */
  prune(now: number): number | undefined {
    const from = "coalesce(keep_seq, first_seq)";
    const previous = this.sql
      .exec<{ first_seq: number }>(`SELECT ${from} AS first_seq FROM runs ORDER BY first_seq DESC LIMIT 1 OFFSET 1`)
      .toArray()[0]?.first_seq;
    const recent = this.sql
      .exec<{ first_seq: number | null }>(`SELECT min(${from}) AS first_seq FROM runs WHERE at >= ?`, now - REPLAY_MIN_AGE_MS)
      .one().first_seq;
    const keepFrom = previous === undefined ? undefined : Math.min(previous, recent ?? previous);
    if (keepFrom !== undefined) this.sql.exec("DELETE FROM runs WHERE first_seq < ? AND state = 'ended'", keepFrom);
    return keepFrom;
  }

  toolRan(runId: string): void {
    this.sql.exec("UPDATE runs SET tool_ran = 1 WHERE run_id = ?", runId);
  }

  stored(runId: string, end: RunEnd): void {
    this.sql.exec("UPDATE runs SET state = 'stored', outcome = ? WHERE run_id = ?", JSON.stringify(end), runId);
  }

  ended(runId: string): void {
    this.sql.exec("UPDATE runs SET state = 'ended' WHERE run_id = ?", runId);
  }

  get(runId: string): RunRecord | null {
    const row = this.sql.exec<RunRow>("SELECT * FROM runs WHERE run_id = ?", runId).toArray()[0];
    return row ? fromRun(row) : null;
  }

  /** Runs whose answer is stored but whose end event never went out (a restart came between). */
  unended(): RunRecord[] {
    return this.sql.exec<RunRow>("SELECT * FROM runs WHERE state = 'stored' ORDER BY first_seq").toArray().map(fromRun);
  }

  firstSeqOf(runId: string): number | null {
    return this.get(runId)?.firstSeq ?? null;
  }
}

function fromInbox(r: InboxRow): InboxItem {
  return {
    pos: r.pos,
    messageId: r.message_id,
    taskId: r.task_id,
    runId: r.run_id,
    state: r.state as InboxItem["state"],
    restarts: r.restarts,
    requestId: r.request_id,
    queuedSeq: r.queued_seq,
  };
}

function fromRun(r: RunRow): RunRecord {
  return {
    runId: r.run_id,
    messageId: r.message_id,
    firstSeq: r.first_seq,
    state: r.state as RunState,
    end: r.outcome ? (JSON.parse(r.outcome) as RunEnd) : null,
    toolRan: r.tool_ran === 1,
  };
}
