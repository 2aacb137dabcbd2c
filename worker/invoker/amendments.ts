// The refusals a request can do without: the request is amended and goes again at once. Its container
// expired (a new one); the server lacks the compaction beta (without it, from now on); a file the API
// cannot take, or an upload it no longer has (a note in its place). What a refusal teaches is kept for
// the object's later requests (the object holds one invoker).
import type { InvokeRequest } from "./invoke";
import { missingUpload } from "./files-api";
import type { StreamProgress } from "./read-stream";
import { RefusedFiles } from "./refused-files";
import { containerGone, refusesCompaction, type RequestSpec } from "./request";
import type { ApiContent, ApiMessage, Container } from "./types";

/** An upstream that refused the compaction beta is asked again after this long: it may have gained it. */
const COMPACTION_REFUSAL_MS = 24 * 60 * 60_000;

/** The container a run asked for, the one its requests ran in, and whether the one asked for was gone. */
export interface ContainerUse {
  asked: string | null;
  ran: Container | null;
  replaced: boolean;
}

/** One failed attempt of a request, as the invoker holds it. */
export interface Attempt {
  req: InvokeRequest;
  /** The request, which an amendment changes for the next attempt. */
  spec: RequestSpec;
  /** The messages the attempt sent. */
  sent: ApiMessage[];
  progress: StreamProgress;
  container: ContainerUse;
  /** How many times a refused file was looked for (the first ones leave out one file at a time). */
  leftOut: { files: number };
}

export class Amendments {
  /**
   * When the upstream last refused the compaction beta. Each thread's object has its own invoker, so
   * each learns it once, from its first request that asks for compaction.
   */
  private compactionRefusedAt = -Infinity;
  /** The thread's files the API refused: notes from then on. */
  private readonly refusedFiles = new RefusedFiles();

  /** The conversation with the files the API refused before as notes. */
  known(messages: ApiMessage[]): ApiMessage[] {
    return this.refusedFiles.apply(messages);
  }

  /** The compaction trigger a request asks for, unless the upstream refused the beta lately. */
  compactAt(asked: number | null | undefined): number | null {
    return Date.now() - this.compactionRefusedAt < COMPACTION_REFUSAL_MS ? null : (asked ?? null);
  }

  /** The API took these messages: their files are fine. */
  accepted(sent: ApiMessage[]): void {
    this.refusedFiles.accepted(sent);
  }

  /** Whether `err` is a refusal the request can do without: then `attempt.spec` is amended to go again. */
  amend(err: unknown, { req, spec, sent, progress, container, leftOut }: Attempt): boolean {
    if (spec.container && !progress.started && containerGone(err)) {
      spec.container = null;
      Object.assign(container, { asked: null, ran: null, replaced: true });
      return true;
    }
    if (spec.compactAt !== null && refusesCompaction(err)) {
      this.compactionRefusedAt = Date.now();
      spec.compactAt = null;
      req.onCompactionRefused?.();
      return true;
    }
    const gone = progress.started ? null : missingUpload(err);
    if (gone && hasUpload(spec.messages, gone)) {
      req.onUploadGone?.(gone);
      spec.messages = withoutUpload(spec.messages, gone);
      return true;
    }
    if (!progress.started && this.refusedFiles.learn(err, sent, leftOut.files++)) {
      spec.messages = this.refusedFiles.apply(spec.messages);
      return true;
    }
    return false;
  }
}

const isUpload = (b: ApiContent, id: string) => b.type === "container_upload" && b.file_id === id;
const hasUpload = (messages: ApiMessage[], id: string) => messages.some((m) => typeof m.content !== "string" && m.content.some((b) => isUpload(b, id)));

/** The conversation with the container_upload of `id` replaced by a note. */
function withoutUpload(messages: ApiMessage[], id: string): ApiMessage[] {
  const note: ApiContent = { type: "text", text: "[A file could not be put in the code's container this time: the Files API no longer had it.]" };
  return messages.map((m) => (typeof m.content === "string" ? m : { ...m, content: m.content.map((b) => (isUpload(b, id) ? note : b)) }));
}
