// The bytes behind attachment references, read from R2 just before a request and kept in memory for
// the next ones (a thread's files are sent again with every turn that still sees them). A reference
// is to a file of the thread, or of its project (whose images and PDFs open every request). Only the
// references that fit a request, by their stored sizes, are read (file-fit.ts): a run reads no more
// than it sends. Where the request runs code, each file goes in the code's container too (a file only
// code reads goes there alone); where it does not, such a file is a note saying why it is not read.
import { expandRefs } from "../../invoker/attachment-refs";
import { fitRefs } from "../../invoker/file-fit";
import type { ApiContent, ApiMessage } from "../../invoker/types";
import type { RunProject } from "../../lib/run-project";
import type { FileStore } from "../store/files";
import type { CodeFiles, ContainerFile } from "./container-uploads";
import { formatBytes, OFFICE_TYPES, placeOf, XLSX_TYPE, type PassageOwner } from "../../../protocol";
import { searchResult } from "./project-knowledge";
import { cutPassages, rankPassages, type Passage } from "../../lib/passages";
import { extract } from "../../lib/extract";
import { base64 } from "../../lib/base64";

const CACHE_BYTES = 32 * 1024 * 1024;


export class FileBlocks {
  private readonly cache = new Map<string, { block: ApiContent; size: number }>();
  private cached = 0;

  /** Long documents' passages, by file id (the newest few: each is re-read after it leaves). */
  private readonly passages = new Map<string, Passage[]>();

  constructor(
    private readonly bucket: R2Bucket,
    private readonly files: FileStore,
    /** The thread's project, as step 0 last read it. */
    private readonly project: () => RunProject | null,
  ) {}

  /**
   * The conversation with each reference replaced by the file's bytes, as the API takes them, and by
   * its container_upload where `code` puts the request's files in the code's container; a long
   * document by the passages of it that best match `question` (search results, cited by place).
   */
  readonly prepare = (messages: ApiMessage[], code?: CodeFiles | null, question = ""): Promise<ApiMessage[]> =>
    expandRefs(fitRefs(messages), async (ref) => {
      const project = this.project();
      const file = this.files.get(ref.id) ?? project?.files.find((f) => f.id === ref.id);
      if (!file) return gone(ref.mediaType);
      if (ref.forCode) return code ? [forCode(file), await code(file)] : noCode(file);
      if (ref.long) {
        const owner: PassageOwner = "threadId" in file ? { threadId: file.threadId } : { projectId: project?.id ?? "" };
        const found = await this.retrieve(file, owner, question);
        return code ? [...found, await code(file)] : found;
      }
      const read = await this.load(file);
      if (!read) return gone(ref.mediaType);
      return code ? [read, await code(file)] : read;
    });

  private async load(file: ContainerFile): Promise<ApiContent | null> {
    const hit = this.cache.get(file.id);
    if (hit) return hit.block;
    const object = await this.bucket.get(file.r2Key);
    if (!object) return null;
    const bytes = new Uint8Array(await object.arrayBuffer());
    const block: ApiContent = file.mediaType.startsWith("image/")
      ? { type: "image", source: { type: "base64", media_type: file.mediaType as "image/png", data: base64(bytes) } }
      : file.mediaType === "application/pdf"
        ? { type: "document", source: { type: "base64", media_type: "application/pdf", data: base64(bytes) }, title: file.name }
        : await textDocument(file, bytes);
    this.remember(file.id, block, bytes.byteLength);
    return block;
  }

  /** A long document's passages that best match `question`, after a note that says what they are. */
  private async retrieve(file: ContainerFile, owner: PassageOwner, question: string): Promise<ApiContent[]> {
    let passages = this.passages.get(file.id);
    if (!passages) {
      const object = await this.bucket.get(file.r2Key);
      if (!object) return [gone(file.mediaType)];
      try {
        const { sections } = await extract(file.mediaType, new Uint8Array(await object.arrayBuffer()), { maxChars: LONG_MAX_CHARS });
        passages = cutPassages(sections);
      } catch (err) {
        return [{ type: "text", text: `[${file.name} could not be read: ${err instanceof Error ? err.message : String(err)}]` }];
      }
      this.passages.set(file.id, passages);
      for (const key of this.passages.keys()) if (this.passages.size > LONG_FILES_HELD) this.passages.delete(key);
    }
    const best = rankPassages(passages, question, RETRIEVED_PASSAGES);
    const note: ApiContent = {
      type: "text",
      text: best.length
        ? `[${file.name} is too long to read whole (${passages.length} passages): the ${best.length} that best match the question follow; cite them.]`
        : `[${file.name} is too long to read whole (${passages.length} passages), and none of them matches the question's words.]`,
    };
    return [note, ...best.map((p) => searchResult(owner, file.id, file.name, p.location, p.text))];
  }

  /** Least recently added first out, past CACHE_BYTES. */
  private remember(id: string, block: ApiContent, size: number): void {
    this.cache.set(id, { block, size });
    this.cached += size;
    for (const [key, entry] of this.cache) {
      if (this.cached <= CACHE_BYTES) break;
      this.cache.delete(key);
      this.cached -= entry.size;
    }
  }
}

const gone = (mediaType: string): ApiContent => ({ type: "text", text: `[An attachment (${mediaType}) is no longer available.]` });

/** What the model is told of a file only its code reads. */
const forCode = (file: ContainerFile): ApiContent => ({
  type: "text",
  text: `[${file.name} (${formatBytes(file.bytes)}) is in the code's container: read it with code.]`,
});

const noCode = (file: ContainerFile): ApiContent => ({
  type: "text",
  text: `[${file.name} (${formatBytes(file.bytes)}) was left out: only code can read it, and code execution is off here.]`,
});

/**
 * A document the model reads as text: its bytes where they are text, its extracted text where they
 * are not (a Word document, a workbook, a deck, a page), or a note when they cannot be read.
 */
async function textDocument(file: ContainerFile, bytes: Uint8Array): Promise<ApiContent> {
  if (!EXTRACTED.has(file.mediaType)) return { type: "document", source: { type: "text", media_type: "text/plain", data: new TextDecoder().decode(bytes) }, title: file.name };
  try {
    const { sections } = await extract(file.mediaType, bytes, { maxChars: EXTRACTED_MAX_CHARS });
    const text = sections.map((s) => ("heading" in s.location && s.location.heading ? `## ${s.location.heading}\n\n${s.text}` : `[${placeOf(s.location)}]\n${s.text}`)).join("\n\n");
    return { type: "document", source: { type: "text", media_type: "text/plain", data: text || "(no text)" }, title: file.name };
  } catch (err) {
    return { type: "text", text: `[${file.name} could not be read: ${err instanceof Error ? err.message : String(err)}]` };
  }
}

/** Attachments whose text is extracted before the model reads them. */
const EXTRACTED = new Set<string>([...OFFICE_TYPES, XLSX_TYPE]);
/** About 500,000 tokens: past the largest window, so a longer one is cut by the window's fit anyway. */
const EXTRACTED_MAX_CHARS = 2_000_000;

/** Passages of a long document a request carries; the documents whose passages the object holds; the text it reads of one. */
const RETRIEVED_PASSAGES = 5;
const LONG_FILES_HELD = 4;
const LONG_MAX_CHARS = 20_000_000;
