// The replay buffer: every broadcast frame, kept by seq for at least the last two runs. Frames are kept
// in batches, a row each (`replay`: the first and last seq, and the frames between, in order), so an
// answer's hundreds of coalesced deltas cost a few rows. The first delta after a durable frame is
// written at once (what a stream cut short right after it began said is kept). The next ones wait in
// memory for their batch: written with the next frame that must be durable before it is sent (a run's
// start and end, a step, a tool call, a message), or once PENDING_FRAMES wait, or a second after the
// first. A crash can lose what waits; the broadcaster numbers past it (UNCONFIRMED_DELTAS), so no seq
// is ever given to two frames.
import type { EventFrame } from "../../../protocol";

/** Deltas that may wait in memory for their batch. */
export const PENDING_FRAMES = 32;
/** The longest a delta waits for its batch. */
const PENDING_MS = 1_000;

type Batch = { first_seq: number; frames: string };

export class ReplayBuffer {
  private pending: { seq: number; json: string }[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** A delta came since the last durable frame. */
  private streaming = false;

  constructor(private readonly sql: SqlStorage) {}

  /** The last seq kept (a crash may have lost deltas after it). */
  lastSeq(): number {
    return this.pending.at(-1)?.seq ?? this.sql.exec<{ seq: number | null }>("SELECT max(last_seq) AS seq FROM replay").one().seq ?? 0;
  }

  oldestSeq(): number | null {
    return this.sql.exec<{ seq: number | null }>("SELECT min(first_seq) AS seq FROM replay").one().seq ?? this.pending[0]?.seq ?? null;
  }

  /** A frame that is durable before it is sent, written now with the deltas that wait before it. */
  append(seq: number, json: string): void {
    this.pending.push({ seq, json });
    this.write();
    this.streaming = false;
  }

  /** A delta, sent before it is written: it waits for its batch. */
  appendDelta(seq: number, json: string): void {
    this.pending.push({ seq, json });
    if (!this.streaming || this.pending.length >= PENDING_FRAMES) this.write();
    else this.timer ??= setTimeout(() => this.write(), PENDING_MS);
    this.streaming = true;
  }

  /** The frames after `seq`, as sent. */
  since(seq: number): string[] {
    const out: string[] = [];
    for (const b of this.sql.exec<Batch>("SELECT first_seq, frames FROM replay WHERE last_seq > ? ORDER BY first_seq", seq)) {
      (JSON.parse(b.frames) as string[]).forEach((json, i) => b.first_seq + i > seq && out.push(json));
    }
    for (const p of this.pending) if (p.seq > seq) out.push(p.json);
    return out;
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

  /** Forgets the batches wholly before `seq` (one that holds it is kept). */
  pruneBefore(seq: number): void {
    this.sql.exec("DELETE FROM replay WHERE last_seq < ?", seq);
  }

  /** What waits in memory is gone with the object's storage. */
  forget(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
  }

  private write(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending.length) return;
    const frames = this.pending;
    this.pending = [];
    this.sql.exec("INSERT INTO replay (first_seq, last_seq, frames) VALUES (?, ?, ?)", frames[0].seq, frames.at(-1)!.seq, JSON.stringify(frames.map((f) => f.json)));
  }
}
