// PDF: pdf.js (unpdf's build for serverless runtimes, which runs in workerd without a worker thread,
// canvas or eval; it compiles no code) reads each page's text: one section per page at `{ page }` (1-based). A page without
// text (a scan) has no section, but counts in `pages`.
import { getDocumentProxy } from "unpdf";
import { UnprocessableError, type Budget } from "./budget";
import type { Extracted, Section } from "./types";

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

export async function extractPdf(bytes: Uint8Array, budget: Budget): Promise<Extracted> {
  const broken = (why: string) => new UnprocessableError(`This PDF could not be read: ${why}`);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: pdf.js takes its input's buffer for its own (it is transferred to its fake worker).
    pdf = await getDocumentProxy(bytes.slice(), {
      verbosity: 0,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      // No font or CMap files to fetch (unpdf points these at node_modules when it thinks it runs in Node,
      // as it does under nodejs_compat): text in a font whose CMap is not embedded is lost, not fetched.
      standardFontDataUrl: undefined,
      cMapUrl: undefined,
    });
  } catch (err) {
    const e = err as { name?: string; message?: string };
    if (e?.name === "PasswordException") throw broken("it is password-protected");
    throw broken(e?.message || String(err));
  }
  try {
    const sections: Section[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      await budget.checkpoint();
      let items: TextItem[];
      try {
        const page = await pdf.getPage(n);
        items = (await page.getTextContent()).items as TextItem[];
        page.cleanup();
      } catch (err) {
        throw broken(`its page ${n} is damaged (${err instanceof Error ? err.message : String(err)})`);
      }
      const text = pageText(items);
      if (!text) continue;
      budget.addChars(text.length);
      sections.push({ location: { page: n }, text });
    }
    return { sections, pages: pdf.numPages };
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}

/** A page's text items as lines (pdf.js marks each line's end), spaces collapsed. */
function pageText(items: TextItem[]): string {
  const parts: string[] = [];
  for (const item of items) {
    if (item.str) parts.push(item.str);
    if (item.hasEOL) parts.push("\n");
  }
  return parts
    .join("")
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
