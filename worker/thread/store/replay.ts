import type { EventFrame } from "../../../protocol";

/** The replay buffer: every broadcast frame by seq, kept for at least the last two runs. */
export class ReplayBuffer {
  constructor(private readonly sql: SqlStorage) {}

  lastSeq(): number {
    return this.sql.exec<{ seq: number | null }>("SELECT max(seq) AS seq FROM events").one().seq ?? 0;
  }

  oldestSeq(): number | null {
    return this.sql.exec<{ seq: number | null }>("SELECT min(seq) AS seq FROM events").one().seq;
  }

  append(seq: number, json: string): void {
    this.sql.exec("INSERT INTO events (seq, frame) VALUES (?, ?)", seq, json);
  }

  /** The frames after `seq`, as sent. */
  since(seq: number): string[] {
    return this.sql.exec<{ frame: string }>("SELECT frame FROM events WHERE seq > ? ORDER BY seq", seq).toArray().map((r) => r.frame);
  }

  /** The text a run had streamed to its clients (what a restart must not lose). */
  streamedText(runId: string, fromSeq: number): string {
    let text = "";
    for (const json of this.since(fromSeq - 1)) {
      const f = JSON.parse(json) as EventFrame;
      if (f.event === "pipeline:stream" && f.data.runId === runId && f.data.type === "text") text += f.data.delta;
    }
    return text;
  }
}
