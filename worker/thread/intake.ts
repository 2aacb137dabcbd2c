// What comes into a thread: posted messages, edits and regenerations (new branches of the exchange
// tree), and switches between branches. Every input is stored, queued and broadcast in one
// transaction, with nothing awaited on the way, so concurrent requests see each other exactly.
import { MAX_ATTACHMENT_BYTES_PER_MESSAGE, MAX_ATTACHMENTS_PER_MESSAGE, MESSAGE_PAGE, type Attachment, type Message, type MessageMetadata, type Thread } from "../../protocol";
import type { Config } from "../env";
import type { Broadcaster } from "./broadcaster";
import type { Outflow } from "./outflow";
import type { PostInput } from "./post-input";
import { ok, refuse, type RoomReply } from "./room-reply";
import { Phases } from "./run/phases";
import type { RunQueue } from "./run/queue";
import type { SpendGuard } from "./spend";
import type { RoomStore, ThreadRecord } from "./store";
import { publicAttachment } from "./store/files";
import { messageRecord } from "./store/messages";
import { publicThread } from "./store/thread-row";
import type { ThreadWriter } from "./writer";

export interface AcceptInput {
  content: string;
  clientMessageId?: string;
  role?: "user" | "system";
  source?: string;
  metadata?: MessageMetadata;
  taskId?: string;
  /** false: store and broadcast only (a notification), no pipeline run. */
  run?: boolean;
  /** Ids of files uploaded to this thread, sent to the model before the text. */
  attachments?: string[];
  /** The request that brought it, for the log lines of its run. */
  requestId?: string;
  /** Its way to the model request, timed from its arrival (a person's post). */
  phases?: Phases;
}

export type Accepted = RoomReply<{ message: Message; duplicate: boolean }>;

interface IntakeDeps {
  store: RoomStore;
  writer: ThreadWriter;
  events: Broadcaster;
  queue: RunQueue;
  spend: SpendGuard;
  outflow: Outflow;
  config: Config;
  /** The per-user limit on a person's posts (the binding POST_LIMITER; tests swap in a tight one). */
  limits: { posts?: RateLimit };
  waitUntil(p: Promise<unknown>): void;
}

/** Sources that write as the thread's person (the app, or a program with their key): an archived thread refuses them. */
const PEOPLE = new Set(["web", "api", "mcp"]);

/** The rate limit's window: a refused person may post again once it has passed. */
const LIMIT_PERIOD_SEC = 60;

export class Intake {
  constructor(private readonly deps: IntakeDeps) {}

  /**
   * A person's message, from POST messages (and /api/chat) or the socket's `send` frame, or a program's
   * on their behalf (`source` "api", "mcp"): one path, so they cannot drift. The person's checks, then
   * stored and queued.
   */
  async post(t: ThreadRecord, userId: string, input: PostInput, requestId?: string, source = "web"): Promise<Accepted> {
    const phases = new Phases();
    const refused = await this.personChecks(t, userId, input);
    phases.mark("checked");
    return refused || this.accept(t, { ...input, role: "user", source, requestId, phases });
  }

  /**
   * What a person's input passes before it is stored, in order: the attachments' count and total
   * size, the per-user rate limit, the spend cap. A clientMessageId seen before passes: its answer is
   * the first message.
   */
  async personChecks(t: ThreadRecord, userId: string, input: Pick<PostInput, "clientMessageId" | "attachments">): Promise<RoomReply<never> | null> {
    if (input.clientMessageId && this.deps.store.messages.byClientId(input.clientMessageId)) return null;
    const count = input.attachments?.length ?? 0;
    if (count > MAX_ATTACHMENTS_PER_MESSAGE) return refuse("too_large", `A message takes at most ${MAX_ATTACHMENTS_PER_MESSAGE} attachments; this one has ${count}`);
    // An unknown id weighs nothing here: admit() refuses it as a 400.
    const total = (input.attachments ?? []).reduce((sum, id) => sum + (this.deps.store.files.get(id)?.bytes ?? 0), 0);
    if (total > MAX_ATTACHMENT_BYTES_PER_MESSAGE) {
      const mib = (n: number) => `${Math.ceil((n / (1024 * 1024)) * 10) / 10} MiB`;
      return refuse("too_large", `A message's attachments total at most ${mib(MAX_ATTACHMENT_BYTES_PER_MESSAGE)}; these come to ${mib(total)}`);
    }
    // Both asked at once (the limiter's round trip, and the owner's object's while a cap is set): a
    // post waits on the slower, not on both. The rate limit's refusal comes first, as when they were in turn.
    const limiter = this.deps.limits.posts;
    const [limited, overCap] = await Promise.all([limiter ? limiter.limit({ key: userId }).then((r) => !r.success) : false, this.overCap(t)]);
    if (limited) return refuse("rate_limited", "Too many messages in a minute; try again shortly", LIMIT_PERIOD_SEC);
    return overCap;
  }

  /** The owner's daily spend cap, for an input that would start a run (a repeated one is answered as before). */
  async overCap(t: ThreadRecord, clientMessageId?: string): Promise<RoomReply<never> | null> {
    if (clientMessageId && this.deps.store.messages.byClientId(clientMessageId)) return null;
    const refusal = await this.deps.spend.check(t.ownerId);
    return refusal && refuse(refusal.code, refusal.message, refusal.retryAfterSec);
  }

  /** A message after the thread's head (a post, a notification, a task's iteration). */
  accept(t: ThreadRecord, input: AcceptInput): Accepted {
    // The head as stored now: `t` may have been read before an await, and another post moved it since.
    const head = () => this.deps.store.thread.get()?.headId ?? t.headId;
    return this.admit(t, this.reactsToNews(input, head()) ? input : { ...input, run: false }, head);
  }

  /**
   * Whether news (a system message that would run: a task's result) may still start a run: a thread
   * reacts to news at most MAX_AUTO_RUNS times in a row without a message from its user, so tasks
   * that delegate again on each result cannot loop for ever. Past it the news is kept, without a run.
   */
  private reactsToNews(input: AcceptInput, head: string | null): boolean {
    if (input.role !== "system" || input.run === false) return true;
    const max = this.deps.config.maxAutoRuns;
    return this.deps.store.messages.systemInputsInARow(head, max) < max;
  }

  /** A new version of user message `messageId`: same parent, so a sibling; it becomes the head. */
  edit(t: ThreadRecord, messageId: string, input: AcceptInput): Accepted {
    const target = this.deps.store.messages.get(messageId);
    if (!target) return refuse("not_found", "No such message in this thread");
    if (target.role !== "user" || !target.input) return refuse("invalid_request", "Only a user message can be edited");
    return this.admit(t, { ...input, role: "user", source: input.source ?? "web" }, () => target.parentId, true);
  }

  /**
   * The same question asked again: user message `messageId` (or the one an assistant message answers)
   * edited to its own content, marked with `metadata.regenerates`.
   */
  regenerate(t: ThreadRecord, messageId: string, clientMessageId?: string, requestId?: string): Accepted {
    const target = this.deps.store.messages.get(messageId);
    if (!target) return refuse("not_found", "No such message in this thread");
    const question = target.input ? target : target.parentId ? this.deps.store.messages.get(target.parentId) : null;
    if (!question || question.role !== "user") return refuse("invalid_request", "This message answers no user message");
    const attachments = question.attachments?.map((a) => a.id);
    return this.edit(t, question.id, { content: question.content, attachments, clientMessageId, requestId, metadata: { regenerates: messageId } });
  }

  /** Makes the branch that holds user message `messageId` current; its head is its newest leaf. */
  setHead(t: ThreadRecord, messageId: string): RoomReply<Thread> {
    const { store } = this.deps;
    const target = store.messages.get(messageId);
    if (!target) return refuse("not_found", "No such message in this thread");
    if (!target.input || target.role !== "user") return refuse("invalid_request", "Give the id of a user message");
    if (store.runs.queued() > 0) return refuse("conflict", "A run is in progress; switch branches once it has ended");
    const headId = store.messages.newestLeaf(target.id);
    const updated = store.transaction(() => {
      const thread = this.deps.writer.updateThread({ headId });
      this.announceBranch(thread);
      return thread;
    });
    this.deps.waitUntil(this.deps.outflow.flush());
    return ok(publicThread(updated));
  }

  /** Stores an input (deduplicated by clientMessageId, bounded by the queue) and queues its run. */
  private admit(t: ThreadRecord, input: AcceptInput, parentOf: () => string | null, branches = false): Accepted {
    const { store, config } = this.deps;
    const known = input.clientMessageId ? store.messages.byClientId(input.clientMessageId) : null;
    if (known) return ok({ message: store.messages.present(known), duplicate: true });
    if ((store.thread.get() ?? t).status === "archived" && PEOPLE.has(input.source ?? "")) return refuse("conflict", "This thread is archived; unarchive it to write");
    const files = input.attachments?.length ? store.files.resolve(input.attachments) : [];
    if (!files) return refuse("invalid_request", "An attachment is unknown, or belongs to another thread: upload it to this thread first");
    const runs = input.run !== false;
    const queued = store.runs.queued();
    if (runs && queued >= config.maxQueuedMessages) {
      return refuse("rate_limited", `This thread already has ${queued} messages waiting; send this one when they are answered`, 5);
    }
    const message = store.transaction(() => this.store(t, input, files.map(publicAttachment), parentOf(), runs, branches));
    if (runs && input.phases) {
      input.phases.mark("stored");
      this.deps.queue.arrived(message.id, input.phases);
    }
    if (runs) this.deps.queue.wake();
    else this.deps.waitUntil(this.deps.outflow.flush());
    return ok({ message, duplicate: false });
  }

  private store(t: ThreadRecord, input: AcceptInput, attachments: Attachment[], parentId: string | null, runs: boolean, branches: boolean): Message {
    const { store, writer, events } = this.deps;
    const now = writer.clock.now();
    const record = messageRecord({
      threadId: t.id,
      role: input.role ?? "user",
      source: input.source ?? "web",
      content: input.content,
      metadata: input.metadata,
      clientMessageId: input.clientMessageId,
      parentId: runs ? parentId : t.headId,
      input: runs,
      attachments,
      createdAt: now,
    });
    writer.addMessage(record);
    const message = store.messages.present(record);
    const thread = writer.updateThread(runs ? { headId: message.id, lastActivity: now } : { lastActivity: now });
    // The chat:message just below is the run's first frame as replay keeps it.
    if (runs) store.runs.enqueue(message.id, input.taskId ?? null, input.requestId ?? null, events.lastSeq + 1);
    // A schedule's fire is announced before its message (PROTOCOL.md, "Schedules").
    const scheduleId = input.source === "schedule" ? input.metadata?.scheduleId : undefined;
    if (scheduleId) events.emit("schedule:fired", { threadId: t.id, scheduleId, messageId: message.id });
    events.emit("chat:message", { threadId: t.id, message });
    if (branches) this.announceBranch(thread);
    return message;
  }

  /** Other tabs follow a branch change: the thread with its new head, and the branch's messages. */
  private announceBranch(t: ThreadRecord): void {
    const messages = this.deps.store.messages.listBranch(t.headId, { limit: MESSAGE_PAGE }) ?? [];
    this.deps.events.threadUpdated(t, messages);
  }
}
