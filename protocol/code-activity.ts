// A run's code runs (the code execution tool's calls, with their output and files) folded from its
// stream events and its code:output events: by the web app as they come, and by the object when it
// stores the answer's metadata.codeRuns, so a reloaded thread shows the cards its clients saw live.
import type { StreamEvent } from "./events";
import type { ProducedFile } from "./resources";

/**
 * The names the API gives a code run's server_tool_use (a stream event's `toolName`): a bash command
 * or a file edit (code_execution_20250825 and later), or Python (the 20250522 shape, in old threads).
 */
export const CODE_TOOL_NAMES = ["bash_code_execution", "text_editor_code_execution", "code_execution"] as const;
export const isCodeTool = (name: string): boolean => (CODE_TOOL_NAMES as readonly string[]).includes(name);

/** What a code run ended with (code:output's fields besides its thread and run). */
export interface CodeOutput {
  toolUseId: string;
  stdout?: string;
  stderr?: string;
  returnCode?: number;
  /** The API's error code when the run failed (e.g. execution_time_exceeded). */
  error?: string;
  /** From the end of its code to its result, as the object saw them arrive. */
  durationMs?: number;
  /** The files it wrote that the thread kept; one it could not keep is in `skipped` with the reason. */
  files: ProducedFile[];
  skipped?: { name: string; reason: string }[];
}

/** A code run as stored with the answer (metadata.codeRuns): its call and what it ended with. */
export interface CodeRun extends CodeOutput {
  toolName: string;
  /** The tool's input, whole once its block ended (`{ command }`, `{ command, path, file_text }`, `{ code }`). */
  input: unknown;
}

/** A code run as a client follows it: its input's JSON as streamed so far, and whether its output came. */
export type CodeRunView = CodeRun & { partial: string; done: boolean };

const started = (toolUseId: string, toolName: string): CodeRunView => ({ toolUseId, toolName, input: null, partial: "", files: [], done: false });

/** `runs` with one more stream event applied; events of other kinds (or tools) leave it as it is. */
export function applyCodeEvent(runs: CodeRunView[], e: StreamEvent): CodeRunView[] {
  if ((e.type !== "tool_input" && e.type !== "server_tool_call") || !isCodeTool(e.toolName)) return runs;
  const known = runs.some((r) => r.toolUseId === e.toolUseId);
  const list = known ? runs : [...runs, started(e.toolUseId, e.toolName)];
  return list.map((r) => (r.toolUseId !== e.toolUseId ? r : e.type === "tool_input" ? { ...r, partial: r.partial + e.delta } : { ...r, input: e.input }));
}

/** `runs` with a code:output applied: a run whose call was missed (a page that joined late) still gets its card. */
export function applyCodeOutput(runs: CodeRunView[], out: CodeOutput): CodeRunView[] {
  const list = runs.some((r) => r.toolUseId === out.toolUseId) ? runs : [...runs, started(out.toolUseId, "code_execution")];
  const { toolUseId: _, ...result } = out;
  return list.map((r) => (r.toolUseId === out.toolUseId ? { ...r, ...result, done: true } : r));
}

/** The runs as an answer's metadata keeps them. */
export const storedCodeRuns = (runs: CodeRunView[]): CodeRun[] => runs.map(({ partial: _p, done: _d, ...run }) => run);
