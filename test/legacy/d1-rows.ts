// Rows as a deployment from before the objects left them in D1, for the legacy import's tests.
import { env } from "../helpers";

/** A thread row in D1, as the app wrote it before the objects were the primary store. */
export async function insertThread(row: {
  id?: string;
  ownerId: string;
  name?: string;
  status?: string;
  kind?: string;
  parentThreadId?: string | null;
  lastActivity?: number;
}): Promise<string> {
  const now = Date.now();
  const id = row.id ?? `thr_${now.toString(36).padStart(9, "0")}${crypto.randomUUID().replace(/-/g, "").slice(0, 10)}`;
  await env.DB.prepare(
    `INSERT INTO threads (id, owner_id, name, kind, status, model, parent_thread_id, last_activity, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      id,
      row.ownerId,
      row.name ?? "inserted",
      row.kind ?? "general",
      row.status ?? "open",
      "claude-sonnet-4-6",
      row.parentThreadId ?? null,
      row.lastActivity ?? now,
      now,
      now,
    )
    .run();
  return id;
}

/** Inserts a message row directly into D1, as if stored long ago. */
export async function insertMessage(row: { threadId: string; role: string; kind?: string; content: string; createdAt: number; id?: string }) {
  const id = row.id ?? `msg_${row.createdAt.toString(36).padStart(9, "0")}${crypto.randomUUID().replace(/-/g, "").slice(0, 10)}`;
  await env.DB.prepare(
    "INSERT INTO messages (id, thread_id, role, kind, source, content, model, metadata, client_message_id, created_at) VALUES (?, ?, ?, ?, 'web', ?, NULL, '{}', NULL, ?)",
  )
    .bind(id, row.threadId, row.role, row.kind ?? "text", row.content, row.createdAt)
    .run();
  return id;
}
