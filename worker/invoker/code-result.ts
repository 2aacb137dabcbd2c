// What a code execution result block says, in every version the app offers: the output, the exit
// code, the files the code wrote (their Files API ids), or the error's code. The block itself stays in
// the transcript as the API sent it; this is what the thread tells its clients and keeps the files of,
// which it fetches from the Files API (files-api.ts).

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
  /** From the end of its code to its result (the stream's reader times it). */
  durationMs?: number;
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
