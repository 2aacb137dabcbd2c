// GET /api/threads/:id/export: the current branch as Markdown or JSON, with its artifacts, its code
// runs and the files its code wrote (named, and in JSON with `files=embed` their bytes as well).
import { Hono } from "hono";
import { z } from "zod";
import { formatBytes, type Artifact, type CodeRun, type Message, type ProducedFile, type Project, type Thread } from "../../protocol";
import { askUser, callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { ApiError } from "./errors";
import { queryParams } from "./validate";
import { base64 } from "../lib/base64";

const query = z.object({ format: z.enum(["markdown", "json"]).default("markdown"), files: z.enum(["list", "embed"]).default("list") });
/** What `files=embed` holds at most: the export is one answer, read whole by the Worker. */
export const MAX_EMBEDDED_BYTES = 25 * 1024 * 1024;
const ROLE_HEADING: Record<Message["role"], string> = { user: "User", assistant: "Assistant", system: "System" };

/** A fence longer than any run of backticks in `text`, so the artifact's own fences stay inside it. */
const fenceFor = (text: string) => "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));

/** An artifact as a section: its title, type and version, its content fenced (a markdown one as it is). */
function artifactSection(a: Artifact): string {
  const head = `### ${a.title}\n\n_${a.type}${a.language ? ` (${a.language})` : ""}, version ${a.version}_`;
  if (a.type === "markdown") return `${head}\n\n${a.content}`;
  const fence = fenceFor(a.content);
  return `${head}\n\n${fence}${a.type === "code" ? (a.language ?? "") : a.type}\n${a.content}\n${fence}`;
}

/** A code run as the answer's section shows it: its code fenced, then its output and its files. */
function codeSection(run: CodeRun): string {
  const input = (run.input ?? {}) as { command?: string; code?: string; path?: string; file_text?: string };
  const code = input.file_text ?? input.code ?? input.command ?? JSON.stringify(run.input);
  const language = input.code !== undefined ? "python" : input.file_text !== undefined ? "" : "bash";
  const fence = fenceFor(code);
  const lines = [`### Code${input.path ? ` (${input.path})` : ""}`, `${fence}${language}\n${code}\n${fence}`];
  const outcome = run.error ? `Error: ${run.error}` : `Exit code ${run.returnCode ?? 0}${run.durationMs !== undefined ? `, ${(run.durationMs / 1000).toFixed(1)} s` : ""}`;
  lines.push(`_${outcome}_`);
  for (const [label, text] of [["Output", run.stdout], ["Errors", run.stderr]] as const) {
    if (text) lines.push(`${label}:\n\n${fenceFor(text)}\n${text}\n${fenceFor(text)}`);
  }
  if (run.files.length) lines.push(`Files: ${run.files.map((f) => f.name).join(", ")}`);
  return lines.join("\n\n");
}

/** Inline code in Markdown (a backtick each side). */
const inlineCode = (s: string) => `\u0060${s}\u0060`;
const fileLine = (f: ProducedFile) => `- ${f.name} (${f.mediaType}, ${formatBytes(f.bytes)}): ${inlineCode(`/api/threads/${f.threadId}/files/${f.id}`)}`;

/** A heading, then each message of the current branch under its role (an answer with its code runs), then its artifacts and files. */
export function toMarkdown(thread: Thread, messages: Message[], artifacts: Artifact[] = [], project: Project | null = null, now = new Date(), files: ProducedFile[] = []): string {
  const head = [`# ${thread.name}`, `_Exported ${now.toISOString()} · ${thread.model} · ${messages.length} messages${project ? ` · project ${project.name}` : ""}_`];
  const body = messages.map((m) => [`## ${ROLE_HEADING[m.role]}`, ...(m.metadata.codeRuns ?? []).map(codeSection), m.content].join("\n\n"));
  const tail = artifacts.length ? [`## Artifacts`, ...artifacts.map(artifactSection)] : [];
  const written = files.length ? [`## Files the code wrote`, files.map(fileLine).join("\n")] : [];
  return `${[...head, ...body, ...tail, ...written].join("\n\n")}\n`;
}

/** A name for the file: the thread's name, in letters, digits and dashes. */
const fileName = (thread: Thread) => thread.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || thread.id;

/** Each file with its bytes in base64 (`data`), read from R2; past MAX_EMBEDDED_BYTES together, 413. */
async function embedded(bucket: R2Bucket, files: (ProducedFile & { r2Key: string })[]): Promise<(ProducedFile & { data: string | null })[]> {
  const total = files.reduce((n, f) => n + f.bytes, 0);
  if (total > MAX_EMBEDDED_BYTES) {
    throw new ApiError("too_large", `The files the code wrote come to ${formatBytes(total)}, past the ${formatBytes(MAX_EMBEDDED_BYTES)} an export holds; export with files=list and download them one by one`);
  }
  const out = [];
  for (const { r2Key, ...f } of files) {
    const object = await bucket.get(r2Key);
    out.push({ ...f, data: object ? base64(new Uint8Array(await object.arrayBuffer())) : null });
  }
  return out;
}


export const exportRoutes = new Hono<AppEnv>().get("/:id/export", async (c) => {
  const { format, files: fileMode } = queryParams(c, query);
  const { thread, messages, artifacts, files: records } = fromRoom(await roomStub(c.env, c.req.param("id")).exportBranch(callerOf(c)));
  const project = thread.projectId ? await askUser(c, (user) => user.project(thread.projectId!)) : null;
  const files = records.map(({ r2Key: _key, ...f }) => f);
  const [body, type, ext] =
    format === "json"
      ? [
          JSON.stringify(
            { thread, ...(project ? { project: { id: project.id, name: project.name } } : {}), messages, artifacts, files: fileMode === "embed" ? await embedded(c.env.FILES, records) : files },
            null,
            2,
          ),
          "application/json; charset=utf-8",
          "json",
        ]
      : [toMarkdown(thread, messages, artifacts, project, new Date(), files), "text/markdown; charset=utf-8", "md"];
  return c.body(body, 200, { "content-type": type, "content-disposition": `attachment; filename="${fileName(thread)}.${ext}"` });
});
