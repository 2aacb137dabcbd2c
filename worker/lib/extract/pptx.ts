// PPTX: one section per slide at `{ slide }` (1-based, in the presentation's order, ppt/presentation.xml's
// sldIdLst), the text of its shapes (a:t runs) with each paragraph on a line, tables as `a | b` rows,
// then the slide's speaker notes after "Notes:". Slide-number fields are left out.
import type { Budget } from "./budget";
import { FallbackSkipper, OoxmlPackage } from "./ooxml";
import { tableRows } from "./sections";
import type { Extracted, Section } from "./types";
import { attr, scanXml } from "./xml";

export async function extractPptx(bytes: Uint8Array, budget: Budget): Promise<Extracted> {
  const pkg = new OoxmlPackage(bytes, budget);
  const presentation = await pkg.mainPart("ppt/presentation.xml");
  if (!pkg.has(presentation)) throw pkg.broken("it has no ppt/presentation.xml, so it is not a presentation");
  const rels = await pkg.relationships(presentation);
  const slides: string[] = [];
  scanXml(await pkg.text(presentation), {
    open(tag, attrs) {
      if (tag !== "sldId") return;
      const rel = rels.get(attr(attrs, "r:id") ?? "");
      if (rel) slides.push(rel.target);
    },
  });
  const sections: Section[] = [];
  for (let i = 0; i < slides.length; i++) {
    await budget.checkpoint();
    if (!pkg.has(slides[i])) continue;
    let text = shapesText(await pkg.text(slides[i]));
    const notesPart = [...(await pkg.relationships(slides[i])).values()].find((r) => r.type === "notesSlide")?.target;
    const notes = notesPart && pkg.has(notesPart) ? shapesText(await pkg.text(notesPart), true) : "";
    if (notes) text = text ? `${text}\n\nNotes: ${notes}` : `Notes: ${notes}`;
    if (!text) continue;
    budget.addChars(text.length);
    sections.push({ location: { slide: i + 1 }, text });
  }
  return { sections, slides: slides.length };
}

/** A slide's (or notes page's) text: paragraphs on lines, shapes apart by a blank line. */
export function shapesText(xml: string, notes = false): string {
  const blocks: string[] = [];
  let lines: string[] = [];
  let paragraph: string[] | null = null;
  const tables: { rows: string[][]; row: string[] | null; cell: string[] | null }[] = [];
  const fallback = new FallbackSkipper();
  let inText = false;
  let skipField = 0;
  let placeholder = "";
  scanXml(xml, {
    open(tag, attrs, selfClosing) {
      fallback.open(tag);
      if (fallback.skipping) return;
      switch (tag) {
        case "ph":
          placeholder = attr(attrs, "type") ?? "";
          break;
        case "p":
          if (!selfClosing) paragraph = [];
          break;
        case "t":
          inText = !selfClosing;
          break;
        case "br":
          paragraph?.push("\n");
          break;
        case "fld":
          if (attr(attrs, "type") === "slidenum" && !selfClosing) skipField++;
          break;
        case "tbl":
          tables.push({ rows: [], row: null, cell: null });
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
        case "fld":
          if (skipField) skipField--;
          break;
        case "p": {
          const text = (paragraph ?? []).join("").replace(/[ \t\u00a0]+/g, " ").trim();
          paragraph = null;
          const table = tables[tables.length - 1];
          if (!text) break;
          if (table?.cell) table.cell.push(text);
          else lines.push(text);
          break;
        }
        case "tc": {
          const table = tables[tables.length - 1];
          if (table?.cell) (table.row ??= []).push(table.cell.join(" "));
          if (table) table.cell = null;
          break;
        }
        case "tr": {
          const table = tables[tables.length - 1];
          if (table?.row) table.rows.push(table.row);
          if (table) table.row = null;
          break;
        }
        case "tbl": {
          const table = tables.pop();
          if (table) lines.push(tableRows(table.rows));
          break;
        }
        case "sp":
        case "graphicFrame": {
          // A shape ends: its lines are one block. A notes page's slide-number and header placeholders are not notes.
          const keep = placeholder !== "sldNum" && !(notes && ["hdr", "ftr", "dt", "sldImg"].includes(placeholder));
          if (keep && lines.length) blocks.push(lines.join("\n"));
          lines = [];
          placeholder = "";
          break;
        }
      }
    },
    text(s) {
      if (inText && !skipField && !fallback.skipping) paragraph?.push(s);
    },
  });
  if (lines.length) blocks.push(lines.join("\n"));
  return blocks.join("\n\n").trim();
}
