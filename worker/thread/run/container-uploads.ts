// The thread's files in the code's container. Each file a run's code may read (an attachment, a
// project's file) goes up to the Files API once, and its id is kept by the owner's object (a project's
// files serve all its threads) and here in memory, so a file already uploaded is only named again
// (container_upload). A file the API refuses, or that cannot be read, becomes a note in the request:
// it never fails the run.
import { formatBytes } from "../../../protocol";
import type { ApiContent } from "../../invoker/types";
import type { RunParts } from "./parts";

/** A stored file as the container needs it: its name and type, and where its bytes are. */
export interface ContainerFile {
  id: string;
  name: string;
  mediaType: string;
  bytes: number;
  r2Key: string;
}

/** What a run uses: the container_upload that puts `file` in its container, or a note saying why not. */
export type CodeFiles = (file: ContainerFile) => Promise<ApiContent>;

export class ContainerUploads {
  /** Our file id → its Files API id, for the files this object has seen uploaded. */
  private readonly known = new Map<string, string>();
  /** Files the Files API refused (a 4xx): not tried again while the object lives. */
  private readonly refused = new Map<string, string>();

  constructor(private readonly deps: Pick<RunParts, "invoker" | "user" | "bucket" | "logger">) {}

  /** The uploads of one run, by the thread's owner. */
  forRun(ownerId: string, signal: AbortSignal): CodeFiles {
    return (file) => this.block(file, ownerId, signal);
  }

  /** The Files API no longer has this upload: the next request uploads the file again. */
  gone(upstreamId: string, ownerId: string): void {
    for (const [fileId, id] of this.known) {
      if (id !== upstreamId) continue;
      this.known.delete(fileId);
      void this.deps.user(ownerId).forgetUpstream(fileId).catch(() => {});
    }
  }

  private async block(file: ContainerFile, ownerId: string, signal: AbortSignal): Promise<ApiContent> {
    const reason = this.refused.get(file.id);
    if (reason) return note(file, reason);
    try {
      const id = await this.upstreamId(file, ownerId, signal);
      return { type: "container_upload", file_id: id };
    } catch (err) {
      if (signal.aborted) throw err;
      const status = (err as { status?: number }).status;
      const why = status === 413 ? "it is larger than the Files API takes" : status && status < 500 ? "the Files API refused it" : "the Files API did not answer";
      if (status && status < 500) this.refused.set(file.id, why);
      this.deps.logger.warn("a file could not be put in the code's container", { fileId: file.id, status, error: String(err) });
      return note(file, why);
    }
  }

  private async upstreamId(file: ContainerFile, ownerId: string, signal: AbortSignal): Promise<string> {
    const known = this.known.get(file.id) ?? (await this.deps.user(ownerId).upstreamFiles([file.id]))[file.id];
    if (known) {
      this.known.set(file.id, known);
      return known;
    }
    const object = await this.deps.bucket.get(file.r2Key);
    if (!object) throw Object.assign(new Error("the file is no longer stored"), { status: 404 });
    const bytes = new Uint8Array(await object.arrayBuffer());
    const id = await this.deps.invoker.uploadForCode({ name: file.name, mediaType: file.mediaType, bytes }, signal);
    this.known.set(file.id, id);
    await this.deps.user(ownerId).rememberUpstream(file.id, id);
    return id;
  }
}

const note = (file: ContainerFile, why: string): ApiContent => ({
  type: "text",
  text: `[${file.name} (${formatBytes(file.bytes)}) could not be put in the code's container: ${why}.]`,
});
