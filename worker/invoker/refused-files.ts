// Files the Messages API refused. An image or document it cannot take (a broken image, a PDF past its
// pages) fails the whole request, and would fail every later request of the thread, which sends it
// again. The refused block is remembered by its content and goes as a note from then on; the request
// goes again at once without it. A refusal names the block's path, or ("Could not process image")
// none: then the files of that kind no request was ever taken with are the suspects, and go.
import { APIError } from "@anthropic-ai/sdk";
import { fileName, filesOf, isFile, withNotes, type FileBlock } from "./file-notes";
import type { ApiMessage } from "./types";

/** A refusal that names no file leaves out one suspect at a time this often, then all that remain. */
const ONE_AT_A_TIME = 3;

const PATH = /messages\.(\d+)\.content\.(\d+)(?:\.content\.(\d+))?\.(image|document)\b/;

export class RefusedFiles {
  /** A refused file's note, by what identifies its content. */
  private readonly notes = new Map<string, string>();
  /** The files of requests the API took (so not the cause of a later refusal that names none). */
  private readonly taken = new Set<string>();

  /** The API took a request with these messages. */
  accepted(sent: ApiMessage[]): void {
    for (const b of filesOf(sent)) this.taken.add(identity(b));
  }

  /** The messages with every file refused before replaced by its note. */
  apply(messages: ApiMessage[]): ApiMessage[] {
    return this.notes.size === 0 ? messages : withNotes(messages, (f) => this.notes.get(identity(f)));
  }

  /**
   * Learns from a refusal of a file of `sent` (the messages as the request carried them), the
   * request's `leftOut`th. False when it is not about a file, or names none not already known: the
   * refusal is then the run's error.
   */
  learn(err: unknown, sent: ApiMessage[], leftOut: number): boolean {
    if (!(err instanceof APIError) || (err.status !== 400 && err.status !== 413)) return false;
    const detail = String((err as { apiMessage?: string }).apiMessage ?? err.message);
    const path = PATH.exec(detail);
    const why = detail.replace(/^[\w.]*:\s*/, "").slice(0, 200);
    let suspects: FileBlock[];
    if (path) {
      const [, i, j, k] = path;
      const content = sent[Number(i)]?.content;
      let block = Array.isArray(content) ? (content[Number(j)] as unknown as { content?: unknown }) : undefined;
      if (k !== undefined) block = Array.isArray(block?.content) ? block.content[Number(k)] : undefined;
      suspects = block && isFile(block as { type: string }) ? [block as FileBlock] : [];
    } else if (/\b(image|pdf|document)s?\b/i.test(detail) && !/prompt is too long/i.test(detail)) {
      // The newest first, one at a time at first: it is most likely the one just added.
      const kind = /\bimages?\b/i.test(detail) ? "image" : "document";
      const unknown = filesOf(sent).filter((b) => b.type === kind && !this.taken.has(identity(b)) && !this.notes.has(identity(b)));
      suspects = leftOut < ONE_AT_A_TIME ? unknown.slice(-1) : unknown;
    } else return false;
    const fresh = suspects.filter((b) => !this.notes.has(identity(b)));
    for (const b of fresh) this.notes.set(identity(b), `[${fileName(b)} was left out: the model could not take it (${why}).]`);
    return fresh.length > 0;
  }
}

/** A file's content, cheaply: its type, its data's length and ends. */
function identity(b: FileBlock): string {
  const data = b.source.data ?? b.source.url ?? "";
  return `${b.type}|${b.source.type}|${b.source.media_type ?? ""}|${data.length}|${data.slice(0, 96)}|${data.slice(-96)}`;
}
