// What one extraction may take: characters of text, bytes inflated from an archive and time. Past any
// of them the document is refused with an UnprocessableError that says which bound and why.

/** The bytes cannot be read as their type, or reading them would cost too much: the route answers 422 `unprocessable`. */
export class UnprocessableError extends Error {
  override name = "UnprocessableError";
}

export const DEFAULT_MAX_CHARS = 20_000_000;
/** Uncompressed bytes an archive (DOCX, XLSX, PPTX) may inflate to, all its parts together. */
export const DEFAULT_MAX_INFLATED_BYTES = 200 * 1024 * 1024;
export const DEFAULT_DEADLINE_MS = 60_000;

const count = (n: number) => n.toLocaleString("en-US");

export class Budget {
  private chars = 0;
  private inflated = 0;
  private readonly startedAt = Date.now();

  constructor(
    /** The document's kind in words ("DOCX", "PDF"), for the messages. */
    readonly kind: string,
    readonly maxChars: number,
    readonly deadlineMs: number,
    readonly maxInflatedBytes: number,
  ) {}

  /** Text kept: past maxChars the document is refused. */
  addChars(n: number): void {
    this.chars += n;
    if (this.chars > this.maxChars) {
      throw new UnprocessableError(`This ${this.kind} has more than ${count(this.maxChars)} characters of text, more than a document may have`);
    }
  }

  /** Bytes inflated from the archive: past maxInflatedBytes it is refused (a zip bomb, or simply too much). */
  addInflated(n: number): void {
    this.inflated += n;
    if (this.inflated > this.maxInflatedBytes) {
      throw new UnprocessableError(`This ${this.kind} unpacks to more than ${count(Math.round(this.maxInflatedBytes / (1024 * 1024)))} MiB, more than a document may`);
    }
  }

  /**
   * Between pages, sheets and parts: past the deadline the document is refused. workerd advances its
   * clock only at I/O and timer events (not during a stretch of computation), so this yields to the
   * event loop first, once a macrotask: the clock read after it is the real one.
   */
  async checkpoint(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.checkClock();
  }

  /** The deadline by the clock as it stands (no yield): cheap, for inner loops between checkpoints. */
  checkClock(): void {
    if (Date.now() - this.startedAt > this.deadlineMs) {
      throw new UnprocessableError(`This ${this.kind} took longer than ${this.deadlineMs >= 1000 ? `${count(Math.round(this.deadlineMs / 1000))} s` : `${this.deadlineMs} ms`} to read, longer than a document may take`);
    }
  }

  get charsUsed(): number {
    return this.chars;
  }
}
