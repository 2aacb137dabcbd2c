// Text gathered into sections split at headings: DOCX, HTML and Markdown put their paragraphs, lines
// and table rows here, and a heading closes the section before it and names the next.
import type { Budget } from "./budget";
import type { Section } from "./types";

export class HeadingSections {
  private readonly sections: Section[] = [];
  private heading = "";
  private blocks: string[] = [];

  constructor(private readonly budget: Budget) {}

  /** A paragraph (or a table's rows as one block): blocks stand apart by a blank line. Empty ones are dropped. */
  block(text: string): void {
    // Blank lines around it go, a first line's indent stays (preformatted text).
    const t = text.replace(/^(?:[ \t]*\n)+/, "").trimEnd();
    if (!t.trim()) return;
    this.budget.addChars(t.length + 2);
    this.blocks.push(t);
  }

  /** A heading of `level` (1-6): the section so far ends, the next is under `text`, which begins it as `## text`. */
  startHeading(level: number, text: string): void {
    const t = text.replace(/\s+/g, " ").trim();
    if (!t) return;
    this.flush();
    this.heading = t;
    this.block(`${"#".repeat(Math.min(Math.max(level, 1), 6))} ${t}`);
  }

  finish(): Section[] {
    this.flush();
    return this.sections;
  }

  private flush(): void {
    if (this.blocks.length) this.sections.push({ location: { heading: this.heading }, text: this.blocks.join("\n\n") });
    this.blocks = [];
  }
}

/** Table rows as lines `a | b | c`, each cell's whitespace collapsed; rows with no text are dropped. */
export function tableRows(rows: string[][]): string {
  return rows
    .map((cells) => cells.map((c) => c.replace(/\s+/g, " ").trim()))
    .filter((cells) => cells.some(Boolean))
    .map((cells) => cells.join(" | "))
    .join("\n");
}
