// How long a message waits on each step of its way, from its arrival in the thread's object to its model
// request leaving: marks on the object's clock, on the run's log line (and so in `npm run bench`). The
// clock is workerd's Date.now(), which moves at I/O only: a step of pure computation reads 0, and the
// I/O that ends the next step carries its time.

/** The marks, in the order a message passes them. */
export const PHASES = [
  /** The person's checks: the attachments' size, the rate limit (a binding's round trip), the spend cap. */
  "checked",
  /** Stored, queued and broadcast, in one transaction. */
  "stored",
  /** The queue took it: its run announced (pipeline:start). */
  "started",
  /** Step 0: the model's facts, the owner's inputs (context files, project, MCP tools) if not held. */
  "stepZero",
  /** onPipelineStart, the spend cap again, onMessage. */
  "hooks",
  /** onBeforeInvoke: the prompt, each plugin's part of it. */
  "prompt",
  /** The request built (history, files, tools, the window's estimate) and handed to the fetch. */
  "request",
] as const;

export type PhaseName = (typeof PHASES)[number];

export class Phases {
  private readonly marks = new Map<PhaseName, number>();

  constructor(readonly arrivedAt = Date.now()) {}

  /** A phase ended now (the first time only: a tool round's request is not the first). */
  mark(name: PhaseName): void {
    if (!this.marks.has(name)) this.marks.set(name, Date.now());
  }

  /** Each phase's ms from the mark before it (the first from the arrival), with the arrival's time. */
  summary(): { arrivedAt: number; requestAt: number | null; ms: Partial<Record<PhaseName, number>> } {
    const ms: Partial<Record<PhaseName, number>> = {};
    let before = this.arrivedAt;
    for (const name of PHASES) {
      const at = this.marks.get(name);
      if (at === undefined) continue;
      ms[name] = at - before;
      before = at;
    }
    return { arrivedAt: this.arrivedAt, requestAt: this.marks.get("request") ?? null, ms };
  }
}
