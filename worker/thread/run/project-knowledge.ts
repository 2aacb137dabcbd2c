// A project whose text is too large to send whole (past PROJECT_WHOLE_SHARE of the model's window):
// the run retrieves the passages that best match the user's message before the model call, and the
// model has project__search to look further. Passages go as search_result blocks with citations on,
// each naming its file and place in its `source` (protocol/knowledge.ts), so the answer's citations
// name them back (the answer's metadata.citations).
import type Anthropic from "@anthropic-ai/sdk";
import { passageSource, passageTitle, type PassageLocation, type PassageOwner } from "../../../protocol";
import type { ModelTool, ToolRun } from "../../invoker/types";
import type { RunProject } from "../../lib/run-project";
import type { RunInfo } from "../../plugins/contract";
import type { RunParts } from "./parts";

export const PROJECT_SEARCH_TOOL = "project__search";
/** Passages retrieved before the model call, and at most per search. */
export const RETRIEVED_PASSAGES = 5;
const MAX_SEARCHED = 10;

/** Whether a run of `contextWindow` tokens retrieves from the project instead of being given it whole. */
export const projectRetrieves = (project: RunProject | null | undefined, contextWindow: number, share: number): boolean =>
  Boolean(project) && project!.textChars > Math.floor(contextWindow * share * 4);

export const projectSearchTool: ModelTool = {
  name: PROJECT_SEARCH_TOOL,
  description:
    "Searches the documents of this thread's project (full text, ranked by relevance) and answers with the best passages, each with its file and page, sheet and row, slide or heading. Cite the passages you use.",
  input_schema: {
    type: "object",
    properties: {
      query: { type: "string", description: "The words to look for: the question, or its key terms." },
      limit: { type: "integer", minimum: 1, maximum: MAX_SEARCHED, description: "How many passages (default 5)." },
    },
    required: ["query"],
  },
};

/** The project's best passages for `question`, as search results; none when the owner's object cannot say. */
export async function retrieve(deps: Pick<RunParts, "user" | "logger">, run: RunInfo, question: string, limit = RETRIEVED_PASSAGES): Promise<Anthropic.SearchResultBlockParam[]> {
  const projectId = run.thread.projectId;
  if (!projectId) return [];
  const results = await deps.user(run.ownerId).searchProject(projectId, question, limit).catch((err: unknown) => {
    deps.logger.warn("the project could not be searched", { threadId: run.threadId, error: String(err) });
    return null;
  });
  return (results ?? []).map((r) => searchResult({ projectId }, r.fileId, r.name, r.location, r.text));
}

/** project__search: its passages, or why it found none. */
export async function searchTool(deps: Pick<RunParts, "user" | "logger">, run: RunInfo, input: unknown): Promise<ToolRun> {
  const { query, limit } = (input ?? {}) as { query?: unknown; limit?: unknown };
  if (typeof query !== "string" || !query.trim()) return { content: "Give the words to look for in `query`.", isError: true };
  const n = typeof limit === "number" && Number.isInteger(limit) ? Math.min(Math.max(limit, 1), MAX_SEARCHED) : RETRIEVED_PASSAGES;
  const found = await retrieve(deps, run, query.slice(0, 2_000), n);
  return found.length ? { content: `${found.length} passages found.`, isError: false, searchResults: found } : { content: "No passage of the project matches these words.", isError: false };
}

/** A passage as the model gets it: a search result with citations on, whose source names its file and place. */
export function searchResult(owner: PassageOwner, fileId: string, name: string, location: PassageLocation, text: string): Anthropic.SearchResultBlockParam {
  return {
    type: "search_result",
    source: passageSource(owner, fileId, location),
    title: passageTitle(name, location),
    content: [{ type: "text", text }],
    citations: { enabled: true },
  };
}
