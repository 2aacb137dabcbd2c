// Tool calls that wait for the user's decision, in the thread object's SQLite (`approvals`), and the
// point each waiting run kept to go on from (`run_points`: its turns so far and its prompt, in
// long_text past what a row holds). The questions stay once decided: a late answer is told so.
import type { PendingApproval } from "../../../protocol";
import type { LongText } from "./long-text";
import { marked } from "./long-text";

export type ApprovalRow = { run_id: string; tool_use_id: string; decision: number | null; reason: string | null; expires_at: number };

/** What a run keeps to go on from: JSON of its resume point and of its prompt. */
export type KeptPoint = { point: string; prompt: string };

export class ApprovalStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly long: LongText,
  ) {}

  get(toolUseId: string): ApprovalRow | null {
    return this.sql.exec<ApprovalRow>("SELECT run_id, tool_use_id, decision, reason, expires_at FROM approvals WHERE tool_use_id = ?", toolUseId).toArray()[0] ?? null;
  }

  /** A new question, with the point its run goes on from. */
  ask(call: Omit<PendingApproval, "expiresAt">, expiresAt: number, kept: KeptPoint): void {
    this.sql.exec(
      "INSERT INTO approvals (tool_use_id, run_id, tool_name, input, expires_at) VALUES (?, ?, ?, ?, ?)",
      call.toolUseId, call.runId, call.toolName, JSON.stringify(call.input), expiresAt,
    );
    this.sql.exec(
      "INSERT OR REPLACE INTO run_points (run_id, point, prompt) VALUES (?, ?, ?)",
      call.runId, this.long.put(`point/${call.runId}`, kept.point), this.long.put(`prompt/${call.runId}`, kept.prompt),
    );
  }

  /** Records a decision on a question still open. */
  decide(toolUseId: string, approve: boolean, reason: string): void {
    this.sql.exec("UPDATE approvals SET decision = ?, reason = ? WHERE tool_use_id = ? AND decision IS NULL", approve ? 1 : 0, reason, toolUseId);
  }

  /** The open questions past their time. */
  expired(now: number): ApprovalRow[] {
    return this.sql.exec<ApprovalRow>("SELECT * FROM approvals WHERE decision IS NULL AND expires_at <= ?", now).toArray();
  }

  /** When the next open question declines by itself, or null. */
  nextExpiry(): number | null {
    return this.sql.exec<{ at: number | null }>("SELECT min(expires_at) AS at FROM approvals WHERE decision IS NULL").one().at;
  }

  /** The point a run kept when it began to wait; null for a run that never waited. */
  pointOf(runId: string): KeptPoint | null {
    const [r] = this.sql.exec<KeptPoint>("SELECT point, prompt FROM run_points WHERE run_id = ?", runId).toArray();
    return r ? { point: this.long.get(r.point), prompt: this.long.get(r.prompt) } : null;
  }

  /** The run ended: its point goes, and a question still open is closed as stopped. True if one was. */
  forgetRun(runId: string): boolean {
    const open = this.sql.exec("UPDATE approvals SET decision = 0, reason = 'stopped' WHERE run_id = ? AND decision IS NULL", runId).rowsWritten > 0;
    const long = `SELECT point, prompt FROM run_points WHERE run_id = ? AND (${marked("point")} OR ${marked("prompt")})`;
    for (const r of this.sql.exec<KeptPoint>(long, runId).toArray()) {
      this.long.forget(r.point);
      this.long.forget(r.prompt);
    }
    this.sql.exec("DELETE FROM run_points WHERE run_id = ?", runId);
    return open;
  }

  /** The calls waiting for a decision, oldest first. */
  pending(): PendingApproval[] {
    return this.sql
      .exec<{ run_id: string; tool_use_id: string; tool_name: string; input: string; expires_at: number }>(
        "SELECT run_id, tool_use_id, tool_name, input, expires_at FROM approvals WHERE decision IS NULL ORDER BY expires_at, tool_use_id",
      )
      .toArray()
      .map((r) => ({ runId: r.run_id, toolUseId: r.tool_use_id, toolName: r.tool_name, input: JSON.parse(r.input), expiresAt: r.expires_at }));
  }
}
