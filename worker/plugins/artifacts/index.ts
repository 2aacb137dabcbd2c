// Artifacts: documents, code, pages, SVG and Mermaid diagrams the model writes beside the conversation,
// versioned in the thread's object (worker/thread/store/artifacts.ts), on the branch that wrote them. The
// tools' definitions are fixed (the prompt cache); the current branch's artifacts are told to the model
// in each turn's prompt, so "change the title" updates the right one.
import { ARTIFACT_TYPES, type ArtifactInfo, type ArtifactType } from "../../../protocol";
import type { ToolOutcome } from "../../invoker/types";
import type { PluginDefinition } from "../contract";

interface CreateInput {
  title?: unknown;
  type?: unknown;
  language?: unknown;
  content?: unknown;
}

interface UpdateInput {
  id?: unknown;
  content?: unknown;
  old_str?: unknown;
  new_str?: unknown;
}

const error = (content: string): ToolOutcome => ({ content, isError: true });
const isType = (t: unknown): t is ArtifactType => typeof t === "string" && (ARTIFACT_TYPES as readonly string[]).includes(t);
const done = (verb: string, a: ArtifactInfo) => `${verb} artifact ${a.id} "${a.title}" (${a.type}${a.language ? `, ${a.language}` : ""}), version ${a.version}.`;

/** The turn's note of what exists, so the model updates rather than recreates. */
export function artifactsNote(list: ArtifactInfo[]): string {
  if (list.length === 0) return "";
  const lines = list.map((a) => `- ${a.id}: "${a.title}" (${a.type}${a.language ? `, ${a.language}` : ""}), version ${a.version}`);
  return `Artifacts in this conversation (update them by id with artifacts__update):\n${lines.join("\n")}`;
}

export const artifactsPlugin: PluginDefinition = {
  name: "artifacts",
  version: "1.0.0",
  description: "Artifacts: documents, code, HTML pages, SVG and Mermaid diagrams shown beside the conversation, versioned.",
  tools: [
    {
      name: "create",
      description:
        "Creates an artifact shown beside the conversation: use it for content meant to be used or rendered (a document, " +
        "more than about 20 lines of code meant to be reused, an HTML page, an SVG, a Mermaid diagram), not for short " +
        "answers. type is markdown, code (give language), html (a whole page; its scripts run in a sandbox), svg or mermaid.",
      inputSchema: {
        type: "object",
        properties: {
          title: { type: "string" },
          type: { type: "string", enum: [...ARTIFACT_TYPES] },
          language: { type: "string", description: "For code: e.g. typescript, python" },
          content: { type: "string" },
        },
        required: ["title", "type", "content"],
      },
      handler(input: CreateInput, call, ctx) {
        if (typeof input.title !== "string" || !input.title.trim()) return error("Give the artifact a title");
        if (!isType(input.type)) return error(`type must be one of ${ARTIFACT_TYPES.join(", ")}; got ${JSON.stringify(input.type)}`);
        if (typeof input.content !== "string") return error("content must be a string");
        const language = typeof input.language === "string" && input.language.trim() ? input.language.trim().slice(0, 40) : null;
        const made = ctx.thread.artifacts.create(call, { title: input.title.trim().slice(0, 200), type: input.type, language, content: input.content });
        return made.ok ? done("Created", made.artifact) : error(made.reason);
      },
    },
    {
      name: "update",
      description:
        "Writes a new version of an artifact: the whole new content, or one exact replacement (old_str, which must occur " +
        "exactly once in the latest version, and new_str) for a small change.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string" }, content: { type: "string" }, old_str: { type: "string" }, new_str: { type: "string" } },
        required: ["id"],
      },
      handler(input: UpdateInput, call, ctx) {
        if (typeof input.id !== "string") return error("Give the artifact's id");
        const whole = typeof input.content === "string";
        const replace = typeof input.old_str === "string" && typeof input.new_str === "string";
        if (whole === replace) return error("Give either content, or old_str with new_str");
        const edit = whole ? { content: input.content as string } : { old_str: input.old_str as string, new_str: input.new_str as string };
        const made = ctx.thread.artifacts.update(call, input.id, edit);
        return made.ok ? done("Updated", made.artifact) : error(made.reason);
      },
    },
  ],
  register: (ctx) => ({
    onBeforeInvoke(prompt) {
      const note = artifactsNote(ctx.thread.artifacts.list());
      return note ? { ...prompt, prompt: `${prompt.prompt}\n\n${note}` } : prompt;
    },
  }),
};
