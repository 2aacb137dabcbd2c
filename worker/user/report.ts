// What a thread's object reports after each run (and after a change outside runs), routed to the
// subsystem that keeps it: its row to the directory, its text messages to search, its calls waiting
// for approval to the list's badge, its runs' usage to spend (and the day's roll-up to D1), its
// schedules to the user's list. Rows in
// D1's shape, each idempotent by id: a report retried, or one that crossed a newer one, leaves the
// newest state. A thread reports only its own rows, for its owner: anything else is not this user's.
import type { PendingApproval } from "../../protocol";
import type { agentRuns, messages, threads } from "../db/schema";
import { isRemoval, type OutboxEntry } from "../lib/outbox";
import { utcDayStart } from "../lib/time";
import type { Directory } from "./directory";
import type { UserSchedules } from "./schedules";
import type { Spend } from "./spend";

export type ReportEntry = Pick<OutboxEntry, "table" | "row">;

/** The subsystems a report reaches. */
export interface ReportTargets {
  directory: Directory;
  spend: Spend;
  schedules: UserSchedules;
}

/** Applies an entry; a run's usage answers the UTC day it counts in (whose roll-up changed). */
export function applyReport(to: ReportTargets, userId: string, { table, row }: ReportEntry): number | null {
  const mine = row.ownerId === userId;
  if (table === "threads" && mine) to.directory.upsert(row as typeof threads.$inferInsert);
  else if (table === "messages") to.directory.index(row as typeof messages.$inferInsert);
  else if (table === "approvals" && mine) to.directory.waits(String(row.id), row.pending as PendingApproval[]);
  else if (table === "agent_runs" && mine) {
    const run = row as typeof agentRuns.$inferInsert;
    to.spend.record(run);
    return utcDayStart(run.startedAt);
  }
  else if (table === "schedules") {
    if (isRemoval(row)) to.schedules.remove(String(row.id));
    else to.schedules.put(row);
  }
  return null;
}
