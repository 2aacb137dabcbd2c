// PDF extraction inside workerd with unpdf's pdf.js build: pages as sections, damage and bounds refused.
import { describe, expect, it } from "vitest";
import { extract, looksLike, UnprocessableError } from "../../worker/lib/extract";
import { numberedPdf, pdfOf } from "./pdf-fixture";

const PDF = "application/pdf";

describe("PDF", () => {
  it("gives one section per page, at its 1-based page, with the page count", async () => {
    const bytes = numberedPdf(40);
    expect(looksLike(PDF, bytes)).toBe(true);
    const out = await extract(PDF, bytes);
    expect(out.pages).toBe(40);
    expect(out.sections).toHaveLength(40);
    const page37 = out.sections.find((s) => "page" in s.location && s.location.page === 37);
    expect(page37?.text).toContain("This is page 37 of 40.");
    expect(page37?.text).toContain("marker37x");
    // Each page's own word is on that page only, lines apart, parentheses kept.
    expect(out.sections.filter((s) => s.text.includes("marker37x"))).toHaveLength(1);
    expect(page37?.text.split("\n")).toEqual(["This is page 37 of 40.", "Its own word is marker37x.", "Some more text (with parentheses) on the page."]);
    // The caller's bytes are left as they were (pdf.js is given a copy).
    expect(bytes.byteLength).toBe(numberedPdf(40).byteLength);
  });

  it("counts a page without text but gives it no section", async () => {
    const out = await extract(PDF, pdfOf([["first"], [], ["third"]]));
    expect(out.pages).toBe(3);
    expect(out.sections.map((s) => s.location)).toEqual([{ page: 1 }, { page: 3 }]);
  });

  it("refuses bytes that are not a PDF pdf.js can open", async () => {
    const broken = new TextEncoder().encode("%PDF-1.4\nthis is not a PDF at all\n%%EOF\n");
    expect(looksLike(PDF, broken)).toBe(true); // the header is there: only reading it tells
    const err = await extract(PDF, broken).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.message).toMatch(/^This PDF could not be read: /);
    expect(looksLike(PDF, new TextEncoder().encode("GIF89a"))).toBe(false);
  });

  it("refuses a PDF cut short", async () => {
    const whole = numberedPdf(5);
    const err = await extract(PDF, whole.slice(0, 300)).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.message).toMatch(/^This PDF could not be read/);
  });

  it("refuses a PDF with more text than maxChars, and one that takes past the deadline", async () => {
    const bytes = numberedPdf(40);
    const long = await extract(PDF, bytes, { maxChars: 1_000 }).catch((e) => e);
    expect(long).toBeInstanceOf(UnprocessableError);
    expect(long.message).toBe("This PDF has more than 1,000 characters of text, more than a document may have");
    const slow = await extract(PDF, bytes, { deadlineMs: 1 }).catch((e) => e);
    expect(slow).toBeInstanceOf(UnprocessableError);
    expect(slow.message).toBe("This PDF took longer than 1 ms to read, longer than a document may take");
  });
});
