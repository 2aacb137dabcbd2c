import { ApprovalStore } from "./approvals";
import { CacheStore } from "./cache";
import { FileStore } from "./files";
import { ProducedFileStore } from "./produced-files";
import { Tickets } from "./tickets";
import { ScheduleBook } from "./schedules";
import { ArtifactStore } from "./artifacts";
import { ResearchStore } from "../research/store";
import { MessageStore } from "./messages";
import { Outbox } from "../../lib/outbox";
import { ReplayBuffer } from "./replay";
import { LongText } from "./long-text";
import { RunLog } from "./run-log";
import { migrate } from "./schema";
import { ThreadRow } from "./thread-row";
import { TurnStore } from "./turns";

/** The thread's primary store, in its object's SQLite: one part per table group, and transactions. */
export class RoomStore {
  readonly thread: ThreadRow;
  readonly messages: MessageStore;
  readonly runs: RunLog;
  readonly replay: ReplayBuffer;
  readonly turns: TurnStore;
  /** Text longer than a row holds, in parts (a turn with a tool's images, a waiting run's point). */
  readonly long: LongText;
  /** Rows for D1. */
  readonly outbox: Outbox;
  /** Rows for the owner's object: the thread row, text messages, runs' usage. */
  readonly report: Outbox;
  readonly cache: CacheStore;
  readonly files: FileStore;
  readonly produced: ProducedFileStore;
  readonly tickets: Tickets;
  readonly schedules: ScheduleBook;
  readonly artifacts: ArtifactStore;
  readonly research: ResearchStore;
  readonly approvals: ApprovalStore;

  constructor(private readonly storage: DurableObjectStorage) {
    const sql = storage.sql;
    migrate(sql);
    this.long = new LongText(sql);
    this.approvals = new ApprovalStore(sql, this.long);
    this.thread = new ThreadRow(sql, () => this.approvals.pending());
    this.messages = new MessageStore(sql, () => this.thread.get()?.id ?? "");
    this.runs = new RunLog(sql);
    this.replay = new ReplayBuffer(sql);
    this.turns = new TurnStore(sql, this.long);
    this.outbox = new Outbox(sql, "outbox");
    this.report = new Outbox(sql, "report");
    this.cache = new CacheStore(sql, this.long);
    this.files = new FileStore(sql, () => this.thread.get()?.id ?? "");
    this.produced = new ProducedFileStore(sql, () => this.thread.get()?.id ?? "");
    this.tickets = new Tickets(sql);
    this.schedules = new ScheduleBook(sql, () => this.thread.get()?.id ?? "");
    this.artifacts = new ArtifactStore(sql);
    this.research = new ResearchStore(sql);
  }

  /** The replay's frames, and the ended runs' rows, that no client may still ask for (RunLog.prune). */
  prune(now: number): void {
    const keepFrom = this.runs.prune(now);
    if (keepFrom !== undefined) this.replay.pruneBefore(keepFrom);
  }

  /** All of `fn`'s writes, or none of them. */
  transaction<T>(fn: () => T): T {
    return this.storage.transactionSync(fn);
  }

  /** Deleted: nothing may bring this thread back, not even a copy of it left in D1. */
  get deleted(): boolean {
    return this.storage.sql.exec("SELECT 1 FROM meta WHERE key = 'deleted'").toArray().length > 0;
  }

  /** Empties the store for good and leaves a tombstone. */
  async destroy(): Promise<void> {
    this.replay.forget();
    await this.storage.deleteAlarm();
    await this.storage.deleteAll();
    migrate(this.storage.sql);
    this.outbox.create();
    this.report.create();
    this.storage.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('deleted', '1')");
    this.thread.forget();
  }
}

export type { ThreadRecord, ThreadPatch } from "./thread-row";
export type { MessageRecord, ListQuery } from "./messages";
export type { InboxItem, RunRecord, RunEnd } from "./run-log";
export type { MirrorTable, OutboxEntry } from "../../lib/outbox";
export type { FileRecord } from "./files";
