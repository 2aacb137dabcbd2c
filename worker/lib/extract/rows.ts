// Rows of a sheet (XLSX) or a CSV gathered into sections of a few rows each, every section at its first
// row, so a citation names a row within a handful of the passage's text.
import type { Budget } from "./budget";
import type { Section } from "./types";

/** A section holds at most this many rows... */
export const ROWS_PER_SECTION = 20;
/** ...and ends at the row that takes it to this many characters (about one passage). */
export const CHARS_PER_SECTION = 1_000;

export class RowSections {
  private startRow = 0;
  private lines: string[] = [];
  private chars = 0;

  constructor(
    private readonly sheet: string,
    private readonly out: Section[],
    private readonly budget: Budget,
  ) {}

  /** Row `row` (1-based) as its cells (empty ones at its end dropped); a row without text is skipped. */
  row(row: number, cells: string[]): void {
    const clean = cells.map((c) => c.replace(/\s+/g, " ").trim());
    while (clean.length && !clean[clean.length - 1]) clean.pop();
    if (!clean.length) return;
    const line = clean.join(" | ");
    this.budget.addChars(line.length + 1);
    if (!this.lines.length) this.startRow = row;
    this.lines.push(line);
    this.chars += line.length + 1;
    if (this.lines.length >= ROWS_PER_SECTION || this.chars >= CHARS_PER_SECTION) this.flush();
  }

  flush(): void {
    if (this.lines.length) this.out.push({ location: { sheet: this.sheet, row: this.startRow }, text: this.lines.join("\n") });
    this.lines = [];
    this.chars = 0;
  }
}
