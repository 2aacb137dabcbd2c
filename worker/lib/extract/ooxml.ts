// What DOCX, XLSX and PPTX share: a ZIP of XML parts tied together by relationship parts
// (`_rels/*.rels`), read within one budget.
import { UnprocessableError, type Budget } from "./budget";
import { attr, scanXml } from "./xml";
import { entryText, readZip, resolvePart, type ZipDirectory } from "./zip";

export interface Relationship {
  /** The target part's path in the archive, resolved (external targets are left out). */
  target: string;
  /** The relationship type's last segment: "officeDocument", "worksheet", "slide", "notesSlide"… */
  type: string;
}

export class OoxmlPackage {
  readonly zip: ZipDirectory;

  constructor(
    readonly bytes: Uint8Array,
    readonly budget: Budget,
  ) {
    this.zip = readZip(bytes, (why) => this.broken(why));
  }

  /** An error that says the document could not be read, and why. */
  broken(why: string): UnprocessableError {
    return new UnprocessableError(`This ${this.budget.kind} could not be read: ${why}`);
  }

  has(path: string): boolean {
    return this.zip.has(path);
  }

  /** The part's text; a missing part is a damaged document. */
  text(path: string): Promise<string> {
    const entry = this.zip.get(path);
    if (!entry) throw this.broken(`it has no ${path}`);
    return entryText(this.bytes, entry, this.budget, (why) => this.broken(why));
  }

  /** The part's text, or null when the archive has no such part. */
  async optionalText(path: string): Promise<string | null> {
    return this.zip.has(path) ? this.text(path) : null;
  }

  /** The relationships of `part` by their Id (none when it has no .rels part). */
  async relationships(part: string): Promise<Map<string, Relationship>> {
    const slash = part.lastIndexOf("/");
    const folder = slash < 0 ? "" : part.slice(0, slash);
    const name = part.slice(slash + 1);
    const xml = await this.optionalText(`${folder ? `${folder}/` : ""}_rels/${name}.rels`);
    const out = new Map<string, Relationship>();
    if (!xml) return out;
    scanXml(xml, {
      open(tag, attrs) {
        if (tag !== "Relationship") return;
        const id = attr(attrs, "Id");
        const target = attr(attrs, "Target");
        if (!id || !target || attr(attrs, "TargetMode") === "External") return;
        const type = (attr(attrs, "Type") ?? "").split("/").pop() ?? "";
        out.set(id, { target: resolvePart(folder, safeDecodeUri(target)), type });
      },
    });
    return out;
  }

  /** The package's main part (the officeDocument relationship of _rels/.rels), or `fallback`. */
  async mainPart(fallback: string): Promise<string> {
    for (const rel of (await this.relationships("")).values()) if (rel.type === "officeDocument" && this.has(rel.target)) return rel.target;
    return fallback;
  }
}

/** Skips the text inside mc:Fallback (the same content again, in an older form) while counting depth. */
export class FallbackSkipper {
  private depth = 0;
  /** Call for every start tag (scanXml closes an empty-element tag too). */
  open(name: string): void {
    if (name === "Fallback") this.depth++;
  }
  close(name: string): void {
    if (name === "Fallback" && this.depth > 0) this.depth--;
  }
  get skipping(): boolean {
    return this.depth > 0;
  }
}

function safeDecodeUri(s: string): string {
  try {
    return decodeURI(s);
  } catch {
    return s;
  }
}
