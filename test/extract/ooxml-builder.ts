// Office documents built in the test, not kept as binary fixtures: DOCX, XLSX and PPTX as the parts
// their readers need (and Word and Excel open), zipped with fflate. Each builder has a `…Parts` form
// giving the parts by path, so a test can drop, damage or add one before zipping. Reusable for bigger
// fixtures (a project of many documents for a retrieval test): all builders are plain functions of their content.
import { zipSync, type Zippable } from "fflate";

const encoder = new TextEncoder();
export const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

export type Parts = Record<string, string | Uint8Array>;

/** The parts as a ZIP archive (deflated, as Office writes them). */
export function zipParts(parts: Parts, level: 0 | 1 | 6 | 9 = 6): Uint8Array {
  const files: Zippable = {};
  for (const [path, content] of Object.entries(parts)) files[path] = [typeof content === "string" ? encoder.encode(content) : content, { level }];
  return zipSync(files);
}

function contentTypes(overrides: [string, string][]): string {
  return (
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    overrides.map(([part, type]) => `<Override PartName="/${part}" ContentType="${type}"/>`).join("") +
    "</Types>"
  );
}

const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
function rels(list: [id: string, type: string, target: string][]): string {
  return (
    `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
    list.map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${esc(target)}"/>`).join("") +
    "</Relationships>"
  );
}

// ---- DOCX

export type DocBlock = { heading: string; level?: number } | { p: string } | { list: string } | { table: string[][] };

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const run = (text: string) => `<w:r><w:t xml:space="preserve">${esc(text)}</w:t></w:r>`;
const para = (text: string, props = "") => `<w:p>${props ? `<w:pPr>${props}</w:pPr>` : ""}${run(text)}</w:p>`;

function docBlock(b: DocBlock): string {
  if ("heading" in b) return para(b.heading, `<w:pStyle w:val="Heading${b.level ?? 1}"/>`);
  if ("p" in b) return para(b.p);
  if ("list" in b) return para(b.list, '<w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>');
  const rows = b.table
    .map((cells) => `<w:tr>${cells.map((c) => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${para(c)}</w:tc>`).join("")}</w:tr>`)
    .join("");
  return `<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr>${rows}</w:tbl>`;
}

function docStyles(): string {
  const heading = (n: number) =>
    `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>` +
    `<w:pPr><w:keepNext/><w:outlineLvl w:val="${n - 1}"/></w:pPr><w:rPr><w:b/><w:sz w:val="${36 - 2 * n}"/></w:rPr></w:style>`;
  return (
    `${XML_HEAD}<w:styles ${W}>` +
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>' +
    [1, 2, 3, 4, 5, 6].map(heading).join("") +
    '<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/></w:style>' +
    '<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style>' +
    "</w:styles>"
  );
}

/** A Word document's parts: its blocks in order, Heading 1-6 styles defined in word/styles.xml. */
export function docxParts(blocks: DocBlock[], { bodyXml }: { bodyXml?: string } = {}): Parts {
  return {
    "[Content_Types].xml": contentTypes([
      ["word/document.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"],
      ["word/styles.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"],
    ]),
    "_rels/.rels": rels([["rId1", "officeDocument", "word/document.xml"]]),
    "word/_rels/document.xml.rels": rels([["rId1", "styles", "styles.xml"]]),
    "word/styles.xml": docStyles(),
    "word/document.xml": `${XML_HEAD}<w:document ${W}><w:body>${bodyXml ?? blocks.map(docBlock).join("")}<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>`,
  };
}

export const docx = (blocks: DocBlock[]) => zipParts(docxParts(blocks));

// ---- XLSX

export type CellValue = string | number | boolean | null;
export interface SheetSpec {
  name: string;
  rows: CellValue[][];
}

const colName = (i: number): string => (i < 26 ? String.fromCharCode(65 + i) : colName(Math.floor(i / 26) - 1) + String.fromCharCode(65 + (i % 26)));

/** A workbook's parts: strings go to xl/sharedStrings.xml (or inline, with `inlineStrings`), numbers and booleans in their cells. */
export function xlsxParts(sheets: SheetSpec[], { inlineStrings = false }: { inlineStrings?: boolean } = {}): Parts {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const shared = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  const parts: Parts = {};
  sheets.forEach((sheet, n) => {
    const rows = sheet.rows
      .map((cells, r) => {
        const cs = cells
          .map((v, c) => {
            const ref = `${colName(c)}${r + 1}`;
            if (v === null || v === "") return "";
            if (typeof v === "number") return `<c r="${ref}"><v>${v}</v></c>`;
            if (typeof v === "boolean") return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
            if (inlineStrings) return `<c r="${ref}" t="inlineStr"><is><t>${esc(v)}</t></is></c>`;
            return `<c r="${ref}" t="s"><v>${shared(v)}</v></c>`;
          })
          .join("");
        return `<row r="${r + 1}">${cs}</row>`;
      })
      .join("");
    parts[`xl/worksheets/sheet${n + 1}.xml`] =
      `${XML_HEAD}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheetData>${rows}</sheetData></worksheet>`;
  });
  parts["xl/workbook.xml"] =
    `${XML_HEAD}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets>` +
    sheets.map((s, n) => `<sheet name="${esc(s.name)}" sheetId="${n + 1}" r:id="rId${n + 1}"/>`).join("") +
    "</sheets></workbook>";
  parts["xl/_rels/workbook.xml.rels"] = rels([
    ...sheets.map((_, n) => [`rId${n + 1}`, "worksheet", `worksheets/sheet${n + 1}.xml`] as [string, string, string]),
    [`rId${sheets.length + 1}`, "sharedStrings", "sharedStrings.xml"],
  ]);
  parts["xl/sharedStrings.xml"] =
    `${XML_HEAD}<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">` +
    strings.map((s) => `<si><t xml:space="preserve">${esc(s)}</t></si>`).join("") +
    "</sst>";
  parts["_rels/.rels"] = rels([["rId1", "officeDocument", "xl/workbook.xml"]]);
  parts["[Content_Types].xml"] = contentTypes([
    ["xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"],
    ["xl/sharedStrings.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"],
    ...sheets.map((_, n) => [`xl/worksheets/sheet${n + 1}.xml`, "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"] as [string, string]),
  ]);
  return parts;
}

export const xlsx = (sheets: SheetSpec[], opts?: { inlineStrings?: boolean }) => zipParts(xlsxParts(sheets, opts));

// ---- PPTX

export interface SlideSpec {
  title?: string;
  /** Body paragraphs, one per line. */
  body?: string[];
  table?: string[][];
  notes?: string;
}

const P = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const aPara = (text: string) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${esc(text)}</a:t></a:r></a:p>`;
const shape = (id: number, name: string, ph: string, paragraphs: string[]) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name}"/><p:cNvSpPr/><p:nvPr><p:ph ${ph}/></p:nvPr></p:nvSpPr><p:spPr/>` +
  `<p:txBody><a:bodyPr/><a:lstStyle/>${paragraphs.map(aPara).join("")}</p:txBody></p:sp>`;

function slideXml(s: SlideSpec, n: number): string {
  const shapes: string[] = [];
  if (s.title !== undefined) shapes.push(shape(2, "Title 1", 'type="title"', [s.title]));
  if (s.body) shapes.push(shape(3, "Content 2", 'idx="1"', s.body));
  if (s.table) {
    const rows = s.table.map((cells) => `<a:tr h="370840">${cells.map((c) => `<a:tc><a:txBody><a:bodyPr/>${aPara(c)}</a:txBody></a:tc>`).join("")}</a:tr>`).join("");
    shapes.push(
      `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Table 3"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm/>` +
        `<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl>${rows}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`,
    );
  }
  // The slide number, as a field: not the slide's text.
  shapes.push(`<p:sp><p:nvSpPr><p:cNvPr id="9" name="Slide Number"/><p:cNvSpPr/><p:nvPr><p:ph type="sldNum"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:fld type="slidenum"><a:t>${n}</a:t></a:fld></a:p></p:txBody></p:sp>`);
  return `${XML_HEAD}<p:sld ${P}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes.join("")}</p:spTree></p:cSld></p:sld>`;
}

/**
 * A deck's parts (what a reader of its text needs; PowerPoint itself also wants a slide master and
 * layouts). With `reversedFiles`, slide i is stored as slide(n-i+1).xml: the order is the
 * presentation's sldIdLst, not the file names.
 */
export function pptxParts(slides: SlideSpec[], { reversedFiles = false }: { reversedFiles?: boolean } = {}): Parts {
  const parts: Parts = {};
  const file = (i: number) => (reversedFiles ? slides.length - i : i + 1);
  slides.forEach((s, i) => {
    const f = file(i);
    parts[`ppt/slides/slide${f}.xml`] = slideXml(s, i + 1);
    if (s.notes !== undefined) {
      parts[`ppt/slides/_rels/slide${f}.xml.rels`] = rels([["rId2", "notesSlide", `../notesSlides/notesSlide${f}.xml`]]);
      parts[`ppt/notesSlides/notesSlide${f}.xml`] =
        `${XML_HEAD}<p:notes ${P}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` +
        shape(2, "Slide Image 1", 'type="sldImg"', []) +
        shape(3, "Notes Placeholder 2", 'type="body" idx="1"', [s.notes]) +
        shape(4, "Slide Number 3", 'type="sldNum" idx="5"', [String(i + 1)]) +
        "</p:spTree></p:cSld></p:notes>";
    }
  });
  parts["ppt/presentation.xml"] =
    `${XML_HEAD}<p:presentation ${P}><p:sldIdLst>` +
    slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 2}"/>`).join("") +
    '</p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>';
  parts["ppt/_rels/presentation.xml.rels"] = rels(slides.map((_, i) => [`rId${i + 2}`, "slide", `slides/slide${file(i)}.xml`] as [string, string, string]));
  parts["_rels/.rels"] = rels([["rId1", "officeDocument", "ppt/presentation.xml"]]);
  parts["[Content_Types].xml"] = contentTypes([
    ["ppt/presentation.xml", "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"],
    ...slides.map((_, i) => [`ppt/slides/slide${file(i)}.xml`, "application/vnd.openxmlformats-officedocument.presentationml.slide+xml"] as [string, string]),
  ]);
  return parts;
}

export const pptx = (slides: SlideSpec[], opts?: { reversedFiles?: boolean }) => zipParts(pptxParts(slides, opts));

// ---- Damage

/** The first `fraction` of the bytes: a download cut short. */
export const truncated = (bytes: Uint8Array, fraction = 0.6) => bytes.slice(0, Math.floor(bytes.length * fraction));

/** The parts without `path`. */
export function without(parts: Parts, path: string): Parts {
  const { [path]: _gone, ...rest } = parts;
  return rest;
}

/** Words from a fixed vocabulary, chosen by a seeded generator: text that compresses as prose does, the same each run. */
export function prose(words: number, seed = 1): string {
  const vocabulary =
    "the of and to in is that for it as with was on be by this are from at an or which have not has but they their can more one all were been other its would about into these than some time only new also any may such most over like data system report section value table market result project team cost plan risk customer quarter revenue growth process model design test review policy".split(
      " ",
    );
  let s = seed >>> 0 || 1;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out.push(vocabulary[(s >>> 8) % vocabulary.length]);
  }
  return out.join(" ");
}
