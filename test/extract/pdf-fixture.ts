// A minimal valid PDF built by hand, for the extraction tests: one content stream per page in the
// standard Helvetica font (`BT /F1 12 Tf 72 720 Td (text) Tj ET`), each line of a page below the
// last, and a correct cross-reference table. ASCII only, so a string's length is its byte length.

/** A PDF string literal: backslash, parentheses escaped; only printable ASCII kept. */
const literal = (s: string) => `(${s.replace(/[^\x20-\x7e]/g, "?").replace(/([\\()])/g, "\\$1")})`;

/** A PDF whose page i (0-based) shows `pages[i]`'s lines, top to bottom. */
export function pdfOf(pages: string[][]): Uint8Array {
  const objects: string[] = [];
  const kids: string[] = [];
  // 1: catalog, 2: page tree, 3: font; then a page and its content stream for each page.
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
  pages.forEach((lines, i) => {
    const page = 4 + 2 * i;
    const content = page + 1;
    kids.push(`${page} 0 R`);
    const ops = lines.map((line, j) => `${j === 0 ? "72 720 Td" : "0 -16 Td"} ${literal(line)} Tj`).join("\n");
    const stream = `BT /F1 12 Tf\n${ops}\nET`;
    objects[page] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`;
    objects[content] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  objects[2] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pages.length} >>`;

  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let n = 1; n < objects.length; n++) {
    offsets[n] = out.length;
    out += `${n} 0 obj\n${objects[n]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let n = 1; n < objects.length; n++) out += `${String(offsets[n]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** `n` pages, page p (1-based) saying which page it is and a word of its own. */
export const numberedPdf = (n: number) =>
  pdfOf(Array.from({ length: n }, (_, i) => [`This is page ${i + 1} of ${n}.`, `Its own word is marker${i + 1}x.`, "Some more text (with parentheses) on the page."]));
