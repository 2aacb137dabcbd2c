// The thread's researches, in its own SQLite: each a row (its public shape as JSON) with what drives it
// (its status, when its time ends), so a restart finds every research still to drive.
import type { Research } from "../../../protocol";

/** What a research keeps beyond its public shape: the tasks' parent run of its card, and its bounds. */
export interface ResearchRecord extends Research {
  /** The card's message (the report's artifact hangs off it). */
  messageId: string;
  maxTasks: number;
  budgetUsd: number;
  timeLimitS: number;
  maxSearches: number;
  searches: number;
  /** Planning and writing cost, apart from the tasks' (each task keeps its own). */
  ownCostUsd: number;
  /** When its tasks started (its time limit counts from then, not from a plan's review). */
  runningSince: number | null;
}

const LIVE = ["planning", "running", "writing"];

export class ResearchStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS research (id TEXT PRIMARY KEY, status TEXT NOT NULL, row TEXT NOT NULL)");
  }

  get(id: string): ResearchRecord | null {
    const row = this.sql.exec<{ row: string }>("SELECT row FROM research WHERE id = ?", id).toArray()[0];
    return row ? (JSON.parse(row.row) as ResearchRecord) : null;
  }

  put(r: ResearchRecord): void {
    this.sql.exec("INSERT OR REPLACE INTO research (id, status, row) VALUES (?, ?, ?)", r.id, r.status, JSON.stringify(r));
  }

  /** The researches a driver still has work on (planning, running, writing). */
  live(): ResearchRecord[] {
    return this.sql
      .exec<{ row: string }>(`SELECT row FROM research WHERE status IN (${LIVE.map(() => "?").join(", ")})`, ...LIVE)
      .toArray()
      .map((r) => JSON.parse(r.row) as ResearchRecord);
  }

  /** The research a task belongs to (a live one only, unless `live` is false), if any. */
  ofTask(taskId: string, live = true): ResearchRecord | null {
    const rows = live ? this.live() : this.sql.exec<{ row: string }>("SELECT row FROM research WHERE instr(row, ?) > 0", taskId).toArray().map((r) => JSON.parse(r.row) as ResearchRecord);
    return rows.find((r) => r.subquestions.some((s) => s.taskId === taskId)) ?? null;
  }
}

/** The public shape: what the routes and research:updated carry. */
export function publicResearch(r: ResearchRecord): Research {
  const { messageId: _m, maxTasks: _t, searches: _s, ownCostUsd: _o, runningSince: _r, ...shown } = r;
  return shown;
}
