// What a code execution result block says, in every version the app offers: the output, the exit
// code, the files the code wrote (their Files API ids), or the error's code. The block itself stays in
// the transcript as the API sent it; this is what the thread tells its clients and keeps the files of,
// which it fetches from the Files API here.
import type Anthropic from "@anthropic-ai/sdk";

/** A code run's outcome, read from its result block. */
export interface CodeResult {
  toolUseId: string;
  stdout?: string;
  stderr?: string;
  returnCode?: number;
  /** The Files API ids of what the code wrote. */
  fileIds: string[];
  /** The API's error code when the run failed (e.g. execution_time_exceeded). */
  error?: string;
}

const RESULT_TYPES = new Set(["bash_code_execution_tool_result", "code_execution_tool_result", "text_editor_code_execution_tool_result"]);
const OUTPUT_TYPES = new Set(["bash_code_execution_output", "code_execution_output"]);

/** The block's outcome, or null when it is no code execution result. */
export function codeResultOf(raw: Record<string, unknown>): CodeResult | null {
  if (!RESULT_TYPES.has(String(raw.type))) return null;
  const toolUseId = String(raw.tool_use_id ?? "");
  const content = (raw.content ?? {}) as Record<string, unknown>;
  if (typeof content.error_code === "string") return { toolUseId, fileIds: [], error: content.error_code };
  const outputs = Array.isArray(content.content) ? (content.content as Record<string, unknown>[]) : [];
  return {
    toolUseId,
    ...(typeof content.stdout === "string" ? { stdout: content.stdout } : {}),
    ...(typeof content.stderr === "string" ? { stderr: content.stderr } : {}),
    ...(typeof content.return_code === "number" ? { returnCode: content.return_code } : {}),
    fileIds: outputs.filter((o) => OUTPUT_TYPES.has(String(o.type)) && typeof o.file_id === "string").map((o) => String(o.file_id)),
  };
}

/** A produced file's name, type and bytes as the Files API gave them, or its size when too large to read. */
export type ProducedFileBytes = { name: string; mediaType: string; bytes: ArrayBuffer } | { tooLarge: true; name: string; bytes: number };

/** A file the code wrote: its metadata first, so one over `maxBytes` is refused before its bytes are read. */
export async function fetchProduced(client: Anthropic, fileId: string, maxBytes: number, signal?: AbortSignal): Promise<ProducedFileBytes> {
  const meta = await client.beta.files.retrieveMetadata(fileId, {}, { signal });
  if (meta.size_bytes > maxBytes) return { tooLarge: true, name: meta.filename, bytes: meta.size_bytes };
  const res = await client.beta.files.download(fileId, {}, { signal });
  return { name: meta.filename, mediaType: meta.mime_type || "application/octet-stream", bytes: await res.arrayBuffer() };
}
