// What a thread's object reports after each run (and after a change outside runs): its row for the
// directory, its text messages for search, its runs' usage, its schedules, its calls waiting for approval. Rows in D1's shape, each idempotent by id:
// a report retried, or one that crossed a newer one, leaves the newest state.
import type { agentRuns, messages, threads } from "../db/schema";
import type { PendingApproval, Schedule } from "../../protocol";
import { isRemoval, type OutboxEntry } from "../lib/outbox";
import type { Directory } from "./directory";
import type { UserDb } from "./db";
import { indexMessage } from "./search";
import type { UserSchedules } from "./schedules";
import type { Usage } from "./usage";
import type { WaitingCalls } from "./waiting-calls";

export type ReportEntry = Pick<OutboxEntry, "table" | "row">;

export function applyReport(db: UserDb, parts: { directory: Directory; usage: Usage; schedules: UserSchedules; waiting: WaitingCalls }, userId: string, entries: ReportEntry[]): void {
  db.transaction(() => {
    for (const { table, row } of entries) {
      // A thread reports only its own rows, for its owner: anything else is not this user's to keep.
      if (table === "threads") {
        const thread = row as typeof threads.$inferInsert;
        if (thread.ownerId === userId) parts.directory.upsert(thread);
      } else if (table === "messages") indexMessage(db, row as typeof messages.$inferInsert);
      else if (table === "schedules") {
        if (isRemoval(row)) parts.schedules.remove(String(row.id));
        else parts.schedules.put(row as unknown as Schedule);
      } else if (table === "approvals") {
        const entry = row as { id: string; ownerId: string; pending: PendingApproval[] };
        if (entry.ownerId === userId) parts.waiting.put(entry.id, entry.pending);
      } else if (table === "agent_runs") {
        const run = row as typeof agentRuns.$inferInsert;
        if (run.ownerId === userId) parts.usage.upsert(run);
      }
    }
  });
}
