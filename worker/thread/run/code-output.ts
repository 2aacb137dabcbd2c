// What a code run leaves: its output and the files its code wrote. Each file is fetched from the Files
// API as the run goes (a result block names them), charged against the owner's storage quota by their
// object, kept in R2 as the thread's, and told to the clients with the run's output (code:output). A
// file that cannot be kept (the quota, its size, the Files API) is named in `skipped`, and never fails
// the run. The run's end waits for them, so its files are listed by the time it is complete.
import { MAX_FILE_BYTES, type CodeOutput, type ProducedFile } from "../../../protocol";
import type { CodeResult } from "../../invoker/code-result";
import { safeName } from "../../lib/file-name";
import { newId } from "../../lib/ids";
import type { RunInfo } from "../../plugins/contract";
import { publicProduced, type ProducedRecord } from "../store/produced-files";
import type { RunParts } from "./parts";

/** A produced file larger than this is not kept (the same bound as an uploaded document's). */
export const MAX_PRODUCED_BYTES = MAX_FILE_BYTES;

/** The name the code gave a file, as the thread keeps it. */
const keptName = (name: string) => safeName(name).slice(0, 200) || "file";

export class CodeOutputs {
  private readonly pending: Promise<void>[] = [];

  constructor(
    private readonly deps: Pick<RunParts, "invoker" | "store" | "user" | "config" | "logger" | "bucket">,
    private readonly run: RunInfo,
    private readonly signal: AbortSignal,
    /** Where the output goes once its files are kept (the run's recorder: code:output, metadata.codeRuns). */
    private readonly told: (out: CodeOutput) => void,
  ) {}

  /** A code run ended: its files are fetched and kept, then its output goes out. */
  take(result: CodeResult): void {
    this.pending.push(this.keep(result));
  }

  /** Every file taken so far is kept (or skipped). */
  async settled(): Promise<void> {
    await Promise.all(this.pending);
  }

  private async keep(result: CodeResult): Promise<void> {
    const files: ProducedFile[] = [];
    const skipped: { name: string; reason: string }[] = [];
    for (const fileId of result.fileIds) {
      const kept = await this.keepFile(fileId).catch((err: unknown) => {
        this.deps.logger.warn("a file the code wrote could not be fetched", { fileId, error: String(err) });
        return { skipped: { name: fileId, reason: "the Files API did not give it" } };
      });
      if ("file" in kept) files.push(kept.file);
      else skipped.push(kept.skipped);
    }
    const { toolUseId, stdout, stderr, returnCode, error, durationMs } = result;
    this.told({
      toolUseId,
      ...(stdout !== undefined ? { stdout } : {}),
      ...(stderr !== undefined ? { stderr } : {}),
      ...(returnCode !== undefined ? { returnCode } : {}),
      ...(error !== undefined ? { error } : {}),
      ...(durationMs !== undefined ? { durationMs } : {}),
      files,
      ...(skipped.length ? { skipped } : {}),
    });
  }

  private async keepFile(fileId: string): Promise<{ file: ProducedFile } | { skipped: { name: string; reason: string } }> {
    const { invoker, user, config, bucket, store } = this.deps;
    const got = await invoker.producedFile(fileId, MAX_PRODUCED_BYTES, this.signal);
    if ("tooLarge" in got) return { skipped: { name: keptName(got.name), reason: `larger than ${MAX_PRODUCED_BYTES / (1024 * 1024)} MiB` } };
    const id = newId("fil");
    const { ownerId, threadId, runId } = this.run;
    const record: ProducedRecord = {
      id, threadId, runId, name: keptName(got.name), mediaType: got.mediaType, bytes: got.bytes.byteLength, r2Key: `${ownerId}/${threadId}/${id}`, createdAt: Date.now(),
    };
    // Charged by the owner's object in one step, as an upload is: files made at once cannot pass the quota together.
    const { runId: _run, ...stored } = record;
    if (!(await user(ownerId).chargeFile({ ...stored, ownerId }, config.userStorageQuotaBytes))) {
      return { skipped: { name: record.name, reason: "over your storage quota" } };
    }
    try {
      await bucket.put(record.r2Key, got.bytes, { httpMetadata: { contentType: record.mediaType } });
    } catch (err) {
      await user(ownerId).releaseFile(id);
      throw err;
    }
    store.produced.add(record);
    return { file: publicProduced(record) };
  }
}
