// DOCX: word/document.xml's paragraphs and tables, in sections split at its headings (the Heading 1-6
// styles, or outline levels 1-6, from word/styles.xml or the paragraph itself). Text boxes are read
// once (mc:Fallback skipped); deleted text (w:delText) and field codes (w:instrText) are not text.
// Headers, footers, footnotes and comments are left out.
import type { Budget } from "./budget";
import { FallbackSkipper, OoxmlPackage } from "./ooxml";
import { HeadingSections, tableRows } from "./sections";
import type { Extracted } from "./types";
import { attr, scanXml } from "./xml";

interface StyleInfo {
  name: string;
  basedOn?: string;
  outline?: number;
}

/** Heading level (1-6) of each paragraph style that is a heading, by style id. */
export function headingStyles(stylesXml: string | null): Map<string, number> {
  const styles = new Map<string, StyleInfo>();
  if (stylesXml) {
    let current: (StyleInfo & { id: string }) | null = null;
    let inPPr = 0;
    scanXml(stylesXml, {
      open(tag, attrs, selfClosing) {
        if (tag === "style") {
          current = attr(attrs, "type") === "paragraph" || attr(attrs, "type") === undefined ? { id: attr(attrs, "styleId") ?? "", name: "" } : null;
          inPPr = 0;
        } else if (!current) return;
        else if (tag === "name") current.name = attr(attrs, "val") ?? "";
        else if (tag === "basedOn") current.basedOn = attr(attrs, "val");
        else if (tag === "pPr" && !selfClosing) inPPr++;
        else if (tag === "outlineLvl" && inPPr) current.outline = Number(attr(attrs, "val"));
      },
      close(tag) {
        if (tag === "style" && current) {
          styles.set(current.id, current);
          current = null;
        } else if (tag === "pPr" && inPPr) inPPr--;
      },
    });
  }
  const levels = new Map<string, number>();
  const levelOf = (id: string, depth: number): number => {
    const style = styles.get(id);
    if (!style) return depth === 0 ? namedLevel(id) : 0;
    const named = namedLevel(style.name);
    if (named) return named;
    if (style.outline !== undefined) return outlineLevel(style.outline);
    return style.basedOn && depth < 10 ? levelOf(style.basedOn, depth + 1) : 0;
  };
  for (const id of styles.keys()) {
    const level = levelOf(id, 0);
    if (level) levels.set(id, level);
  }
  return levels;
}

/** "heading 2" (Word's built-in names are English in every language) or the style id "Heading2": 2; Heading 7-9 are not section headings. */
function namedLevel(name: string): number {
  const m = /^heading\s*([1-9])$/i.exec(name.trim());
  const n = m ? Number(m[1]) : 0;
  return n <= 6 ? n : 0;
}

/** w:outlineLvl 0-5 are heading levels 1-6; 6-8 deeper, 9 body text: not section headings. */
const outlineLevel = (v: number) => (Number.isInteger(v) && v >= 0 && v <= 5 ? v + 1 : 0);

interface Paragraph {
  parts: string[];
  style?: string;
  outline?: number;
  list: boolean;
}

interface Table {
  rows: string[][];
  row: string[] | null;
  cell: string[] | null;
}

export async function extractDocx(bytes: Uint8Array, budget: Budget): Promise<Extracted> {
  const pkg = new OoxmlPackage(bytes, budget);
  const main = await pkg.mainPart("word/document.xml");
  if (!pkg.has(main)) throw pkg.broken("it has no word/document.xml, so it is not a Word document");
  const rels = await pkg.relationships(main);
  const stylesPart = [...rels.values()].find((r) => r.type === "styles")?.target ?? "word/styles.xml";
  const levels = headingStyles(await pkg.optionalText(stylesPart));
  await budget.checkpoint();
  const xml = await pkg.text(main);
  await budget.checkpoint();

  const out = new HeadingSections(budget);
  const paragraphs: Paragraph[] = [];
  const tables: Table[] = [];
  const fallback = new FallbackSkipper();
  let inText = false;
  let inRun = 0;
  let inPPr = 0;

  const levelOf = (p: Paragraph) => {
    if (p.outline !== undefined) return outlineLevel(p.outline);
    if (!p.style) return 0;
    return levels.get(p.style) ?? (levels.size ? 0 : namedLevel(p.style));
  };

  scanXml(xml, {
    open(tag, attrs, selfClosing) {
      fallback.open(tag);
      if (fallback.skipping) return;
      const p = paragraphs[paragraphs.length - 1];
      switch (tag) {
        case "p":
          if (!selfClosing) paragraphs.push({ parts: [], list: false });
          break;
        case "pPr":
          if (!selfClosing) inPPr++;
          break;
        case "pStyle":
          if (p && inPPr) p.style = attr(attrs, "val");
          break;
        case "outlineLvl":
          if (p && inPPr) p.outline = Number(attr(attrs, "val"));
          break;
        case "numPr":
          if (p && inPPr) p.list = true;
          break;
        case "r":
          if (!selfClosing) inRun++;
          break;
        case "t":
          inText = !selfClosing;
          break;
        case "tab":
          if (p && inRun) p.parts.push("\t");
          break;
        case "br":
        case "cr":
          if (p && inRun) p.parts.push("\n");
          break;
        case "noBreakHyphen":
          if (p && inRun) p.parts.push("-");
          break;
        case "tbl":
          if (!selfClosing) tables.push({ rows: [], row: null, cell: null });
          break;
        case "tr":
          if (tables.length) tables[tables.length - 1].row = [];
          break;
        case "tc":
          if (tables.length) tables[tables.length - 1].cell = [];
          break;
      }
    },
    close(tag) {
      const skipped = fallback.skipping;
      fallback.close(tag);
      if (skipped) return;
      switch (tag) {
        case "t":
          inText = false;
          break;
        case "r":
          if (inRun) inRun--;
          break;
        case "pPr":
          if (inPPr) inPPr--;
          break;
        case "p": {
          const p = paragraphs.pop();
          if (!p) break;
          const text = p.parts.join("").replace(/[ \t\u00a0]+/g, " ").trim();
          const table = tables[tables.length - 1];
          if (table?.cell) {
            if (text) table.cell.push(text);
          } else if (paragraphs.length) {
            // A text box's paragraph, inside another paragraph: its own block.
            out.block(text);
          } else {
            const level = levelOf(p);
            if (level && text) out.startHeading(level, text);
            else out.block(p.list ? `- ${text}` : text);
          }
          break;
        }
        case "tc": {
          const table = tables[tables.length - 1];
          if (table?.cell) {
            (table.row ??= []).push(table.cell.join(" "));
            table.cell = null;
          }
          break;
        }
        case "tr": {
          const table = tables[tables.length - 1];
          if (table?.row) {
            table.rows.push(table.row);
            table.row = null;
          }
          break;
        }
        case "tbl": {
          const table = tables.pop();
          if (!table) break;
          const text = tableRows(table.rows);
          const outer = tables[tables.length - 1];
          if (outer?.cell) outer.cell.push(text.replace(/\n/g, "; "));
          else out.block(text);
          break;
        }
      }
    },
    text(s) {
      if (!inText || fallback.skipping) return;
      paragraphs[paragraphs.length - 1]?.parts.push(s);
    },
  });
  return { sections: out.finish() };
}
