import type { Attachment, Message, MessageKind, MessageMetadata, Role } from "../../../protocol";
import { newId } from "../../lib/ids";

/** A message as stored: `input` marks the messages a run answers, the nodes of the branch tree. */
export interface MessageRecord extends Omit<Message, "siblings"> {
  input: boolean;
}

/** What a new message must say; the rest has its default (a text, no model, no metadata, not an input). */
export type NewRecord = Pick<MessageRecord, "threadId" | "role" | "source" | "content" | "parentId" | "createdAt"> &
  Partial<Pick<MessageRecord, "id" | "kind" | "model" | "metadata" | "clientMessageId" | "input" | "attachments">>;

/** A message record, its id made from its time unless it has one (an imported message). */
export function messageRecord(m: NewRecord): MessageRecord {
  return {
    id: m.id ?? newId("msg", m.createdAt),
    threadId: m.threadId,
    role: m.role,
    kind: m.kind ?? "text",
    source: m.source,
    content: m.content,
    model: m.model ?? null,
    metadata: m.metadata ?? {},
    clientMessageId: m.clientMessageId ?? null,
    parentId: m.parentId,
    input: m.input ?? false,
    ...(m.attachments?.length ? { attachments: m.attachments } : {}),
    createdAt: m.createdAt,
  };
}

type Row = {
  id: string;
  role: string;
  kind: string;
  source: string;
  content: string;
  model: string | null;
  metadata: string;
  client_message_id: string | null;
  parent_id: string | null;
  input: number;
  attachments: string | null;
  created_at: number;
};

export interface ListQuery {
  limit: number;
  before?: string;
  kinds?: readonly MessageKind[];
}

// The current branch: the input messages from `head` up to the root (a recursive walk over parent_id),
// and every message that hangs off them, plus what came before the first exchange.
const BRANCH = `
WITH RECURSIVE path(id) AS (
  SELECT id FROM messages WHERE id = ?
  UNION ALL SELECT m.parent_id FROM messages m JOIN path p ON m.id = p.id WHERE m.parent_id IS NOT NULL
)`;
const ON_BRANCH = "(id IN (SELECT id FROM path) OR (input = 0 AND (parent_id IN (SELECT id FROM path) OR parent_id IS NULL)))";

export class MessageStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly threadId: () => string,
  ) {}

  insert(m: MessageRecord): void {
    this.sql.exec(
      `INSERT INTO messages (id, role, kind, source, content, model, metadata, client_message_id, parent_id, input,
        attachments, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      m.id, m.role, m.kind, m.source, m.content, m.model, JSON.stringify(m.metadata ?? {}), m.clientMessageId,
      m.parentId, m.input ? 1 : 0, m.attachments?.length ? JSON.stringify(m.attachments) : null, m.createdAt,
    );
  }

  get(id: string): MessageRecord | null {
    const row = this.sql.exec<Row>("SELECT * FROM messages WHERE id = ?", id).toArray()[0];
    return row ? this.fromRow(row) : null;
  }

  byClientId(clientMessageId: string): MessageRecord | null {
    const row = this.sql.exec<Row>("SELECT * FROM messages WHERE client_message_id = ?", clientMessageId).toArray()[0];
    return row ? this.fromRow(row) : null;
  }

  /**
   * How many of the input messages that end at `id` (itself included) are system messages in a row
   * (news a run reacts to, not a person's or a task's prompt); counted up to `limit`.
   */
  systemInputsInARow(id: string | null, limit: number): number {
    if (!id) return 0;
    const rows = this.sql
      .exec<{ role: string }>(
        `WITH RECURSIVE up(id, depth) AS (
          SELECT id, 0 FROM messages WHERE id = ?
          UNION ALL SELECT m.parent_id, up.depth + 1 FROM messages m JOIN up ON m.id = up.id WHERE m.parent_id IS NOT NULL AND up.depth < ?
        ) SELECT m.role FROM messages m JOIN up ON m.id = up.id ORDER BY up.depth`,
        id, limit,
      )
      .toArray();
    const run = rows.findIndex((r) => r.role !== "system");
    return run < 0 ? rows.length : run;
  }

  /** The input messages from the root to `id` (itself included), oldest first. */
  path(id: string | null): MessageRecord[] {
    if (!id) return [];
    const rows = this.sql.exec<Row>(`${BRANCH} SELECT m.* FROM messages m JOIN path p ON m.id = p.id`, id).toArray();
    return rows.reverse().map((r) => this.fromRow(r));
  }

  /** A page of the branch that ends at `head`, oldest first; null when `before` is not on it. */
  listBranch(head: string | null, q: ListQuery): Message[] | null {
    const where = [ON_BRANCH];
    const args: unknown[] = [head ?? ""];
    if (q.kinds?.length) {
      where.push(`kind IN (${q.kinds.map(() => "?").join(",")})`);
      args.push(...q.kinds);
    }
    if (q.before) {
      const anchor = this.sql
        .exec<{ created_at: number }>(`${BRANCH} SELECT created_at FROM messages WHERE id = ? AND ${ON_BRANCH}`, head ?? "", q.before)
        .toArray()[0];
      if (!anchor) return null;
      where.push("(created_at < ? OR (created_at = ? AND id < ?))");
      args.push(anchor.created_at, anchor.created_at, q.before);
    }
    const rows = this.sql
      .exec<Row>(`${BRANCH} SELECT * FROM messages WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?`, ...args, q.limit)
      .toArray()
      .reverse();
    return this.withSiblings(rows.map((r) => this.fromRow(r)));
  }

  /** The input messages that share `parentId`, oldest first. */
  siblings(parentId: string | null): string[] {
    const rows = parentId
      ? this.sql.exec<{ id: string }>("SELECT id FROM messages WHERE parent_id = ? AND input = 1 ORDER BY created_at, id", parentId)
      : this.sql.exec<{ id: string }>("SELECT id FROM messages WHERE parent_id IS NULL AND input = 1 ORDER BY created_at, id");
    return rows.toArray().map((r) => r.id);
  }

  /** The newest input message below `id` along the newest child at every fork: a branch's head. */
  newestLeaf(id: string): string {
    let at = id;
    for (;;) {
      const child = this.sql
        .exec<{ id: string }>("SELECT id FROM messages WHERE parent_id = ? AND input = 1 ORDER BY created_at DESC, id DESC LIMIT 1", at)
        .toArray()[0];
      if (!child) return at;
      at = child.id;
    }
  }

  /** How many input messages follow `id` directly (more than one: the branch forks there). */
  childCount(id: string): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages WHERE parent_id = ? AND input = 1", id).one().n;
  }

  /** Every message an exchange holds besides its input (the run's answer, activity, notices). */
  ofExchange(inputId: string): MessageRecord[] {
    return this.sql
      .exec<Row>("SELECT * FROM messages WHERE parent_id = ? AND input = 0 ORDER BY created_at, id", inputId)
      .toArray()
      .map((r) => this.fromRow(r));
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n;
  }

  /** A message as clients see it: an input message with its siblings (the branch switcher's versions). */
  present(m: MessageRecord): Message {
    return this.withSiblings([m])[0];
  }

  private withSiblings(messages: MessageRecord[]): Message[] {
    const byParent = new Map<string | null, string[]>();
    return messages.map(({ input, ...m }) => {
      if (!input) return m;
      let siblings = byParent.get(m.parentId);
      if (!siblings) byParent.set(m.parentId, (siblings = this.siblings(m.parentId)));
      return { ...m, siblings };
    });
  }

  private fromRow(r: Row): MessageRecord {
    return {
      id: r.id,
      threadId: this.threadId(),
      role: r.role as Role,
      kind: r.kind as MessageKind,
      source: r.source,
      content: r.content,
      model: r.model,
      metadata: JSON.parse(r.metadata) as MessageMetadata,
      clientMessageId: r.client_message_id,
      parentId: r.parent_id,
      input: r.input === 1,
      ...(r.attachments ? { attachments: JSON.parse(r.attachments) as Attachment[] } : {}),
      createdAt: r.created_at,
    };
  }
}

/** What leaves the object: the record without its storage flag. */
export function publicMessage({ input: _input, ...m }: MessageRecord): Message {
  return m;
}
