import { Hono } from "hono";
import { z } from "zod";
import type { Message, Thread } from "../../protocol";
import { callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { queryParams } from "./validate";

const query = z.object({ format: z.enum(["markdown", "json"]).default("markdown") });
const ROLE_HEADING: Record<Message["role"], string> = { user: "User", assistant: "Assistant", system: "System" };

/** A heading, then each message of the current branch under its role. */
export function toMarkdown(thread: Thread, messages: Message[], now = new Date()): string {
  const head = [`# ${thread.name}`, `_Exported ${now.toISOString()} · ${thread.model} · ${messages.length} messages_`];
  const body = messages.map((m) => `## ${ROLE_HEADING[m.role]}\n\n${m.content}`);
  return `${[...head, ...body].join("\n\n")}\n`;
}

/** A name for the file: the thread's name, in letters, digits and dashes. */
const fileName = (thread: Thread) => thread.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || thread.id;

export const exportRoutes = new Hono<AppEnv>().get("/:id/export", async (c) => {
  const { format } = queryParams(c, query);
  const { thread, messages } = fromRoom(await roomStub(c.env, c.req.param("id")).exportBranch(callerOf(c)));
  const [body, type, ext] =
    format === "json"
      ? [JSON.stringify({ thread, messages }, null, 2), "application/json; charset=utf-8", "json"]
      : [toMarkdown(thread, messages), "text/markdown; charset=utf-8", "md"];
  return c.body(body, 200, { "content-type": type, "content-disposition": `attachment; filename="${fileName(thread)}.${ext}"` });
});
