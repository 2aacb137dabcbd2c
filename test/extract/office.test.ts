// DOCX, XLSX and PPTX built in the test (ooxml-builder.ts) and read inside workerd.
import { describe, expect, it } from "vitest";
import { extract, looksLike, UnprocessableError } from "../../worker/lib/extract";
import { docx, docxParts, pptx, pptxParts, truncated, without, xlsx, xlsxParts, zipParts } from "./ooxml-builder";

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

const refusal = (type: string, bytes: Uint8Array, opts?: Parameters<typeof extract>[2]) =>
  extract(type, bytes, opts).then(
    () => expect.unreachable("extract should have refused"),
    (err) => {
      expect(err).toBeInstanceOf(UnprocessableError);
      return (err as Error).message;
    },
  );

describe("DOCX", () => {
  const doc = docx([
    { p: "A preface before any heading." },
    { heading: "Revenue & costs", level: 1 },
    { p: "Revenue grew in the third quarter." },
    { list: "An item of a list" },
    { table: [["Region", "Q3", "Q4"], ["North", "12", "15"], ["South", "9", "<11>"]] },
    { heading: "Risks", level: 2 },
    { p: "Supply is the main risk." },
  ]);

  it("splits at the headings, with tables as rows", async () => {
    expect(looksLike(DOCX, doc)).toBe(true);
    const out = await extract(DOCX, doc);
    expect(out.sections.map((s) => s.location)).toEqual([{ heading: "" }, { heading: "Revenue & costs" }, { heading: "Risks" }]);
    expect(out.sections[0].text).toBe("A preface before any heading.");
    expect(out.sections[1].text).toBe(
      "# Revenue & costs\n\nRevenue grew in the third quarter.\n\n- An item of a list\n\nRegion | Q3 | Q4\nNorth | 12 | 15\nSouth | 9 | <11>",
    );
    expect(out.sections[2].text).toBe("## Risks\n\nSupply is the main risk.");
  });

  it("takes headings by outline level too, and reads a text box once", async () => {
    const body =
      '<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>By outline</w:t></w:r></w:p>' +
      "<w:p><w:r><w:t xml:space=\"preserve\">Before </w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires=\"wps\"><w:drawing><wps:txbx><w:txbxContent><w:p><w:r><w:t>In the box</w:t></w:r></w:p></w:txbxContent></wps:txbx></w:drawing></mc:Choice>" +
      "<mc:Fallback><w:pict><v:textbox><w:txbxContent><w:p><w:r><w:t>In the box</w:t></w:r></w:p></w:txbxContent></v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r>" +
      '<w:r><w:t>after</w:t><w:tab/><w:t>tabbed</w:t></w:r><w:del><w:r><w:delText>deleted</w:delText></w:r></w:del><w:r><w:instrText>PAGE</w:instrText></w:r></w:p>';
    const out = await extract(DOCX, zipParts(docxParts([], { bodyXml: body })));
    expect(out.sections).toEqual([{ location: { heading: "By outline" }, text: "### By outline\n\nIn the box\n\nBefore after tabbed" }]);
  });

  it("knows Heading styles by their ids when the document has no styles part", async () => {
    const out = await extract(DOCX, zipParts(without(docxParts([{ heading: "Only", level: 2 }, { p: "text" }]), "word/styles.xml")));
    expect(out.sections).toEqual([{ location: { heading: "Only" }, text: "## Only\n\ntext" }]);
  });

  it("refuses a truncated archive, an archive without word/document.xml, and a file that is no archive", async () => {
    expect(await refusal(DOCX, truncated(doc))).toMatch(/^This DOCX could not be read: the archive is truncated/);
    const noBody = zipParts(without(docxParts([{ p: "x" }]), "word/document.xml"));
    expect(looksLike(DOCX, noBody)).toBe(false);
    expect(await refusal(DOCX, noBody)).toBe("This DOCX could not be read: it has no word/document.xml, so it is not a Word document");
    const text = new TextEncoder().encode("just text");
    expect(looksLike(DOCX, text)).toBe(false);
    expect(await refusal(DOCX, text)).toBe("This DOCX could not be read: it is not a ZIP archive");
    // An XLSX is no DOCX.
    expect(looksLike(DOCX, xlsx([{ name: "S", rows: [["a"]] }]))).toBe(false);
  });

  it("refuses a damaged part", async () => {
    const bytes = doc.slice();
    // The deflated data of word/document.xml overwritten (its local header kept).
    const at = findLocalHeader(bytes, "word/document.xml");
    bytes.fill(0xff, at + 30 + "word/document.xml".length, at + 30 + "word/document.xml".length + 40);
    expect(await refusal(DOCX, bytes)).toMatch(/^This DOCX could not be read: its part word\/document.xml is damaged/);
  });
});

describe("XLSX", () => {
  const book = xlsx([
    {
      name: "Sales",
      rows: [
        ["Region", "Units", "Price"],
        ["North", 120, 9.5],
        ["South", 80, 10.25],
        [],
        ["Total", 200, null, true],
      ],
    },
    { name: "Notes & more", rows: [["Prepared by", "Finance"], [], [], ["Reviewed", 45678]] },
  ]);

  it("gives rows in blocks at { sheet, row }, shared strings and numbers", async () => {
    expect(looksLike(XLSX, book)).toBe(true);
    const out = await extract(XLSX, book);
    expect(out.sheets).toBe(2);
    expect(out.sections).toEqual([
      { location: { sheet: "Sales", row: 1 }, text: "Region | Units | Price\nNorth | 120 | 9.5\nSouth | 80 | 10.25\nTotal | 200 |  | TRUE" },
      { location: { sheet: "Notes & more", row: 1 }, text: "Prepared by | Finance\nReviewed | 45678" },
    ]);
  });

  it("reads inline strings, and starts a new section every 20 rows", async () => {
    const rows = Array.from({ length: 45 }, (_, i) => [`row ${i + 1}`, i + 1]);
    const out = await extract(XLSX, xlsx([{ name: "Long", rows }], { inlineStrings: true }));
    expect(out.sections.map((s) => s.location)).toEqual([
      { sheet: "Long", row: 1 },
      { sheet: "Long", row: 21 },
      { sheet: "Long", row: 41 },
    ]);
    expect(out.sections[1].text.split("\n")[0]).toBe("row 21 | 21");
  });

  it("reads cells as Excel writes them: from the stated first column, without references, formulas' values, errors", async () => {
    const parts = xlsxParts([{ name: "Calc", rows: [] }]);
    parts["xl/worksheets/sheet1.xml"] =
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="B2:D3"/><sheetData>' +
      '<row r="2" spans="2:4"><c r="B2" t="s"><v>0</v></c><c r="D2" t="str"><f>UPPER("x")</f><v>X</v></c></row>' +
      '<row><c r="B3"><v>1.5</v></c><c t="e"><f>1/0</f><v>#DIV/0!</v></c><c t="inlineStr"><is><r><t>rich </t></r><r><t>text</t></r><rPh><t>phonetic</t></rPh></is></c></row>' +
      "</sheetData></worksheet>";
    parts["xl/sharedStrings.xml"] = '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><r><t>Total</t></r><r><t xml:space="preserve"> due</t></r></si></sst>';
    const out = await extract(XLSX, zipParts(parts));
    expect(out.sections).toEqual([{ location: { sheet: "Calc", row: 2 }, text: "Total due |  | X\n1.5 | #DIV/0! | rich text" }]);
  });

  it("refuses a truncated workbook and one without xl/workbook.xml", async () => {
    expect(await refusal(XLSX, truncated(book, 0.5))).toMatch(/^This XLSX could not be read: the archive is truncated/);
    const noBook = zipParts(without(xlsxParts([{ name: "S", rows: [["a"]] }]), "xl/workbook.xml"));
    expect(looksLike(XLSX, noBook)).toBe(false);
    expect(await refusal(XLSX, noBook)).toBe("This XLSX could not be read: it has no xl/workbook.xml, so it is not a workbook");
  });
});

describe("PPTX", () => {
  const deck = pptx(
    [
      { title: "Quarterly review", body: ["Prepared for the board"] },
      { title: "Numbers", table: [["Metric", "Value"], ["Revenue", "1.2M"]], notes: "Mention the one-off sale." },
      { title: "Next steps", body: ["Hire two engineers", "Ship the beta"] },
    ],
    { reversedFiles: true },
  );

  it("gives one section per slide in the presentation's order, paragraphs on lines, notes after", async () => {
    expect(looksLike(PPTX, deck)).toBe(true);
    const out = await extract(PPTX, deck);
    expect(out.slides).toBe(3);
    expect(out.sections).toEqual([
      { location: { slide: 1 }, text: "Quarterly review\n\nPrepared for the board" },
      { location: { slide: 2 }, text: "Numbers\n\nMetric | Value\nRevenue | 1.2M\n\nNotes: Mention the one-off sale." },
      { location: { slide: 3 }, text: "Next steps\n\nHire two engineers\nShip the beta" },
    ]);
  });

  it("refuses a truncated deck and one without ppt/presentation.xml", async () => {
    expect(await refusal(PPTX, truncated(deck, 0.9))).toMatch(/^This PPTX could not be read: /);
    const noDeck = zipParts(without(pptxParts([{ title: "x" }]), "ppt/presentation.xml"));
    expect(looksLike(PPTX, noDeck)).toBe(false);
    expect(await refusal(PPTX, noDeck)).toBe("This PPTX could not be read: it has no ppt/presentation.xml, so it is not a presentation");
  });
});

describe("bounds", () => {
  it("refuses past maxChars", async () => {
    const big = docx(Array.from({ length: 50 }, (_, i) => ({ p: `Paragraph ${i} `.repeat(20) })));
    expect(await refusal(DOCX, big, { maxChars: 5_000 })).toBe("This DOCX has more than 5,000 characters of text, more than a document may have");
    expect((await extract(DOCX, big, { maxChars: 50_000 })).sections).toHaveLength(1);
  });

  it("refuses an archive that unpacks past the bound", async () => {
    const big = docx([{ p: "x".repeat(2 * 1024 * 1024) }]);
    expect(big.length).toBeLessThan(10_000);
    expect(await refusal(DOCX, big, { maxInflatedBytes: 1024 * 1024 })).toBe("This DOCX unpacks to more than 1 MiB, more than a document may");
  });

  it("refuses a part that inflates past the size its directory declares (a zip bomb's lie)", async () => {
    const bytes = docx([{ p: "y".repeat(4 * 1024 * 1024) }]);
    setDeclaredSize(bytes, "word/document.xml", 1000);
    expect(await refusal(DOCX, bytes)).toBe(
      "This DOCX could not be read: its part word/document.xml unpacks to more than its directory says (a damaged archive or a zip bomb)",
    );
  });
});

/** The offset of `name`'s local file header. */
function findLocalHeader(bytes: Uint8Array, name: string): number {
  const want = new TextEncoder().encode(name);
  for (let at = 0; at + 30 < bytes.length; at++) {
    if (bytes[at] === 0x50 && bytes[at + 1] === 0x4b && bytes[at + 2] === 3 && bytes[at + 3] === 4 && want.every((b, i) => bytes[at + 30 + i] === b)) return at;
  }
  throw new Error(`no local header for ${name}`);
}

/** Rewrites the uncompressed size of `name` in the central directory (and its local header). */
function setDeclaredSize(bytes: Uint8Array, name: string, size: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const want = new TextEncoder().encode(name);
  view.setUint32(findLocalHeader(bytes, name) + 22, size, true);
  for (let at = 0; at + 46 < bytes.length; at++) {
    if (view.getUint32(at, true) === 0x02014b50 && want.every((b, i) => bytes[at + 46 + i] === b)) {
      view.setUint32(at + 24, size, true);
      return;
    }
  }
  throw new Error(`no directory entry for ${name}`);
}
