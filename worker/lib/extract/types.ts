// What an extraction gives: the document's text as sections, each at a place a citation can name.

import type { PassageLocation } from "../../../protocol";

/** Where a section stands: a PDF's page, a sheet's row (CSV's sheet is ""), a deck's slide, or the heading it is under ("" before the first). */
export type Location = PassageLocation;

/** Text as plain text, Markdown-ish: headings as `# …`, table rows as `a | b | c`, paragraphs apart by a blank line. */
export interface Section {
  location: Location;
  text: string;
}

export interface Extracted {
  sections: Section[];
  pages?: number;
  sheets?: number;
  slides?: number;
}
