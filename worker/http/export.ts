import { Hono } from "hono";
import { z } from "zod";
import type { Artifact, Message, Project, Thread } from "../../protocol";
import { askUser, callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { queryParams } from "./validate";

const query = z.object({ format: z.enum(["markdown", "json"]).default("markdown") });
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

/** A heading, then each message of the current branch under its role, then its artifacts. */
export function toMarkdown(thread: Thread, messages: Message[], artifacts: Artifact[] = [], project: Project | null = null, now = new Date()): string {
  const head = [`# ${thread.name}`, `_Exported ${now.toISOString()} · ${thread.model} · ${messages.length} messages${project ? ` · project ${project.name}` : ""}_`];
  const body = messages.map((m) => `## ${ROLE_HEADING[m.role]}\n\n${m.content}`);
  const tail = artifacts.length ? [`## Artifacts`, ...artifacts.map(artifactSection)] : [];
  return `${[...head, ...body, ...tail].join("\n\n")}\n`;
}

/** A name for the file: the thread's name, in letters, digits and dashes. */
const fileName = (thread: Thread) => thread.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || thread.id;

export const exportRoutes = new Hono<AppEnv>().get("/:id/export", async (c) => {
  const { format } = queryParams(c, query);
  const { thread, messages, artifacts } = fromRoom(await roomStub(c.env, c.req.param("id")).exportBranch(callerOf(c)));
  const project = thread.projectId ? await askUser(c, (user) => user.project(thread.projectId!)) : null;
  const [body, type, ext] =
    format === "json"
      ? [JSON.stringify({ thread, ...(project ? { project: { id: project.id, name: project.name } } : {}), messages, artifacts }, null, 2), "application/json; charset=utf-8", "json"]
      : [toMarkdown(thread, messages, artifacts, project), "text/markdown; charset=utf-8", "md"];
  return c.body(body, 200, { "content-type": type, "content-disposition": `attachment; filename="${fileName(thread)}.${ext}"` });
});
