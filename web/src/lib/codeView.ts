// What a code card shows of a code run (the code execution tool: protocol/code-activity.ts): its code
// (a bash command, a file the text editor writes, Python in old threads), read from its input whole
// or, while the model writes it, from its JSON so far; its state; its output's files by what the page
// can show of them. metadata.codeRuns of a stored answer read back into the same runs.

import type { CodeRun, CodeRunView, MessageMetadata, ProducedFile } from "@protocol";
import { formatDuration } from "./format";
import { partialStrings } from "./partialJson";
import { isRecord } from "./untrusted";

export interface CodeView {
  /** What the run does, for the card's head ("Code", "Create file", "Edit file", "View file"). */
  label: string;
  /** What it runs or touches ("bash", "python", the file's path). */
  title: string;
  /** A highlight.js language ("" when none fits). */
  language: string;
  /** The code shown: the command, the file's text, an edit as a diff; "" when there is none. */
  text: string;
}

/** By a file's extension: the languages markdown.ts registers (or their aliases). */
const EXTENSION_LANGUAGES: Record<string, string> = {
  py: "python",
  sh: "bash",
  bash: "bash",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  ts: "typescript",
  tsx: "typescript",
  json: "json",
  md: "markdown",
  css: "css",
  html: "xml",
  htm: "xml",
  xml: "xml",
  svg: "xml",
  yml: "yaml",
  yaml: "yaml",
  sql: "sql",
  go: "go",
  rs: "rust",
  diff: "diff",
  patch: "diff",
};

/** The language of a file by its name's extension ("" when unknown). */
export function languageOfPath(path: string): string {
  const name = path.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? (EXTENSION_LANGUAGES[name.slice(dot + 1).toLowerCase()] ?? "") : "";
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** An edit as a diff: the lines it takes out, then those it puts in. */
const asDiff = (before: string, after: string): string =>
  [...(before ? before.split("\n").map((l) => `- ${l}`) : []), ...(after ? after.split("\n").map((l) => `+ ${l}`) : [])].join("\n");

/**
 * The input's string fields: from the input when it is whole, else from its JSON as streamed so far
 * (a string cut mid-way gives what came of it, its escapes decoded).
 */
export function codeInputFields(input: unknown, partial: string): Record<string, string> {
  if (isRecord(input)) {
    const fields: Record<string, string> = {};
    for (const [key, value] of Object.entries(input)) if (typeof value === "string") fields[key] = value;
    return fields;
  }
  return partial ? partialStrings(partial).strings : {};
}

/** What a code run's card shows of its input (`partial`: its JSON so far, while `input` is not whole). */
export function codeView(toolName: string, input: unknown, partial = ""): CodeView {
  const f = codeInputFields(input, partial);
  switch (toolName) {
    case "bash_code_execution":
      return { label: "Code", title: "bash", language: "bash", text: str(f.command) };
    case "code_execution":
      return { label: "Code", title: "python", language: "python", text: str(f.code) };
    case "text_editor_code_execution": {
      const path = str(f.path);
      const language = languageOfPath(path);
      switch (f.command) {
        case "create":
          return { label: "Create file", title: path, language, text: str(f.file_text) };
        case "str_replace":
          return { label: "Edit file", title: path, language: "diff", text: asDiff(str(f.old_str), str(f.new_str)) };
        case "insert":
          return { label: "Insert into file", title: path, language, text: str(f.insert_text ?? f.new_str) };
        case "view":
          return { label: "View file", title: path, language: "", text: "" };
        case undefined:
        case "":
          return { label: "File", title: path, language, text: "" };
        default:
          return { label: `File: ${f.command}`, title: path, language, text: "" };
      }
    }
    default:
      return { label: "Code", title: toolName, language: "json", text: isRecord(input) ? JSON.stringify(input, null, 2) : partial };
  }
}

/** Characters of code shown before "Show all", as a tool card shows its input. */
export const CODE_PREVIEW_CHARS = 600;

/**
 * The start of `text` a folded card shows: up to `max` characters, cut at a line's end when one is
 * in the second half (a line is not cut in the middle where that costs little). `folded`: text was left out.
 */
export function foldText(text: string, max = CODE_PREVIEW_CHARS): { shown: string; folded: boolean } {
  if (text.length <= max) return { shown: text, folded: false };
  const cut = text.lastIndexOf("\n", max);
  return { shown: text.slice(0, cut > max / 2 ? cut : max), folded: true };
}

/**
 * writing: its input is streaming; running: its input is whole, its output has not come; done; failed:
 * an API error or a non-zero exit; stopped: the run ended (stopped, failed) without its output.
 */
export type CodeRunState = "writing" | "running" | "done" | "failed" | "stopped";

/** `active`: the answer's run is still going (its code may still run). */
export function codeRunState(run: CodeRunView, active: boolean): CodeRunState {
  if (run.done) return run.error || (run.returnCode !== undefined && run.returnCode !== 0) ? "failed" : "done";
  if (!active) return "stopped";
  return run.input === null || run.input === undefined ? "writing" : "running";
}

/** The card's status: "exit 0 · 1.2s", "writing…", "running…", "stopped", "failed". */
export function codeStatusText(run: CodeRunView, state: CodeRunState): string {
  switch (state) {
    case "writing":
      return "writing…";
    case "running":
      return "running…";
    case "stopped":
      return "stopped";
    default: {
      const parts: string[] = [];
      if (run.returnCode !== undefined) parts.push(`exit ${run.returnCode}`);
      else if (run.error) parts.push("failed");
      if (run.durationMs !== undefined) parts.push(formatDuration(run.durationMs));
      return parts.join(" · ") || (state === "failed" ? "failed" : "done");
    }
  }
}

/** The API's error codes of a code run, in words (an unknown code is shown as it is). */
const ERRORS: Record<string, string> = {
  execution_time_exceeded: "The code ran out of time",
  unavailable: "Code execution was unavailable",
  container_expired: "The code's container had expired",
  too_many_requests: "Too many code runs at once",
  invalid_tool_input: "The code's input was not valid",
  output_file_too_large: "A file the code wrote was too large",
  file_not_found: "The file was not found",
  string_not_found: "The text to replace was not found in the file",
  too_many_matches: "The text to replace is in the file more than once",
};

export const codeErrorText = (code: string): string => ERRORS[code] ?? "The code run failed";

/** Images a page shows in place (an SVG is a download: it may carry script, and is not shown at our origin). */
const INLINE_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const baseType = (mediaType: string) => mediaType.split(";")[0].trim().toLowerCase();

export const isInlineImage = (mediaType: string): boolean => INLINE_IMAGES.has(baseType(mediaType));

/** The text kinds a card previews by their file's extension, when the media type says no more than bytes. */
const TEXT_EXTENSIONS = new Set(["txt", "json", "md", "markdown", "log", "py", "sh", "js", "ts", "html", "xml", "yaml", "yml", "toml", "ini", "sql", "tsv"]);

/** What a file's preview shows: a table (CSV), its first lines (text, JSON, markdown), or nothing. */
export function previewKind(file: Pick<ProducedFile, "name" | "mediaType">): "csv" | "text" | null {
  const type = baseType(file.mediaType);
  const ext = file.name.includes(".") ? file.name.split(".").pop()!.toLowerCase() : "";
  if (type === "text/csv" || ext === "csv") return "csv";
  if (type === "image/svg+xml") return null;
  if (type.startsWith("text/") || type === "application/json" || type.endsWith("+json") || type === "application/x-ndjson") return "text";
  if ((type === "" || type === "application/octet-stream") && TEXT_EXTENSIONS.has(ext)) return "text";
  return null;
}

/** A file larger than this is not fetched for a preview (its download still is, when asked). */
export const PREVIEW_MAX_BYTES = 1024 * 1024;

export interface CsvPreview {
  rows: string[][];
  /** Rows were left out (the file has more than were read). */
  more: boolean;
}

/**
 * The first `maxRows` rows of CSV text (its header counted as one): fields split on commas, quoted
 * fields with their commas, doubled quotes and line breaks, CRLF or LF. A last line cut short (the
 * text read was the start of the file) is left out when more rows follow it.
 */
export function parseCsvPreview(text: string, maxRows = 11, cut = false): CsvPreview {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const endRow = () => {
    row.push(field);
    rows.push(row);
    row = [];
    field = "";
  };
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      endRow();
      if (rows.length > maxRows) return { rows: rows.slice(0, maxRows), more: true };
    } else field += ch;
    i++;
  }
  // The text's last line, with no line break after it: a row, unless the text was cut there.
  if ((field !== "" || row.length > 0 || quoted) && !cut) endRow();
  return { rows: rows.slice(0, maxRows), more: rows.length > maxRows || cut };
}

/** The first `maxLines` lines of text; `more`: lines were left out. */
export function textPreview(text: string, maxLines = 40, cut = false): { text: string; more: boolean } {
  const lines = text.split(/\r?\n/);
  if (lines.length > maxLines) return { text: lines.slice(0, maxLines).join("\n"), more: true };
  // The text read was the start of the file: its last line may be cut short.
  if (cut && lines.length > 1) lines.pop();
  return { text: lines.join("\n"), more: cut };
}

function fileOf(v: unknown): ProducedFile | null {
  if (!isRecord(v) || typeof v.id !== "string" || typeof v.threadId !== "string" || typeof v.name !== "string") return null;
  if (typeof v.mediaType !== "string" || typeof v.bytes !== "number") return null;
  const runId = typeof v.runId === "string" ? v.runId : "";
  const createdAt = typeof v.createdAt === "number" ? v.createdAt : 0;
  return { id: v.id, threadId: v.threadId, runId, name: v.name, mediaType: v.mediaType, bytes: v.bytes, createdAt };
}

const isString = (v: unknown): v is string => typeof v === "string";
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * metadata.codeRuns of a stored answer as the runs a card shows (null when it has none). Metadata is open JSON: anything not shaped as a code run is left out. A run
 * stored with no output at all is one its run ended before the output came (its card says stopped).
 */
export function codeFromMetadata(meta: MessageMetadata): CodeRunView[] | null {
  const list = meta.codeRuns as unknown;
  if (!Array.isArray(list)) return null;
  const runs: CodeRunView[] = [];
  for (const r of list) {
    if (!isRecord(r) || typeof r.toolUseId !== "string" || typeof r.toolName !== "string") continue;
    const files = (Array.isArray(r.files) ? r.files : []).map(fileOf).filter((f): f is ProducedFile => f !== null);
    const skipped = (Array.isArray(r.skipped) ? r.skipped : []).filter((s): s is { name: string; reason: string } => isRecord(s) && isString(s.name) && isString(s.reason));
    const run: CodeRun = {
      toolUseId: r.toolUseId,
      toolName: r.toolName,
      input: r.input ?? null,
      ...(isString(r.stdout) ? { stdout: r.stdout } : {}),
      ...(isString(r.stderr) ? { stderr: r.stderr } : {}),
      ...(isNumber(r.returnCode) ? { returnCode: r.returnCode } : {}),
      ...(isString(r.error) ? { error: r.error } : {}),
      ...(isNumber(r.durationMs) ? { durationMs: r.durationMs } : {}),
      files,
      ...(skipped.length ? { skipped } : {}),
    };
    const done = run.stdout !== undefined || run.stderr !== undefined || run.returnCode !== undefined || run.error !== undefined || files.length > 0 || skipped.length > 0;
    runs.push({ ...run, partial: "", done });
  }
  return runs.length ? runs : null;
}
