// The Files API as code execution uses it: what a run puts in the code's container goes up as an
// upload (a container_upload block names it), and what the code wrote comes down by its id.
import type Anthropic from "@anthropic-ai/sdk";
import { toFile } from "@anthropic-ai/sdk";

/** A produced file's name, type and bytes as the Files API gave them, or its size when too large to read. */
export type ProducedFileBytes = { name: string; mediaType: string; bytes: ArrayBuffer } | { tooLarge: true; name: string; bytes: number };

/** A file the code wrote: its metadata first, so one over `maxBytes` is refused before its bytes are read. */
export async function fetchProduced(client: Anthropic, fileId: string, maxBytes: number, signal?: AbortSignal): Promise<ProducedFileBytes> {
  const meta = await client.beta.files.retrieveMetadata(fileId, {}, { signal });
  if (meta.size_bytes > maxBytes) return { tooLarge: true, name: meta.filename, bytes: meta.size_bytes };
  const res = await client.beta.files.download(fileId, {}, { signal });
  return { name: meta.filename, mediaType: meta.mime_type || "application/octet-stream", bytes: await res.arrayBuffer() };
}

/** Uploads a file for the code's container; its Files API id. */
export async function uploadForCode(client: Anthropic, file: { name: string; mediaType: string; bytes: Uint8Array }, signal?: AbortSignal): Promise<string> {
  const uploaded = await client.files.upload({ file: await toFile(file.bytes, file.name, { type: file.mediaType }) }, { signal });
  return uploaded.id;
}

/** The Files API id a request named in a container_upload that the API does not have (deleted, or another key's). */
export function missingUpload(err: unknown): string | null {
  const e = err as { status?: number; message?: string };
  if (e?.status !== 400) return null;
  return /container_upload|file_id/i.test(e.message ?? "") ? (/File not found: (file_[A-Za-z0-9]+)/.exec(e.message ?? "")?.[1] ?? null) : null;
}
