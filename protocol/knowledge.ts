// A project's passages, and a long attachment's, as the model cites them: each search result names
// where its file is, the file and the place in its `source` (knowledge:<projectId>/<fileId>?page=37,
// or knowledge:thread/<threadId>/<fileId>?page=37 for a thread's attachment), which a citation carries back, so the Worker keeps the
// answer's document citations (metadata.citations) and the web app shows them as chips.
import type { Citation } from "./shapes";
import type { DocumentCitation, PassageLocation } from "./resources";

export const KNOWLEDGE_SCHEME = "knowledge:";

/** Where a passage's file is: a project's files, or a thread's attachments. */
export type PassageOwner = { projectId: string } | { threadId: string };

/** A passage's source: where its file is, the file and where in it. */
export const passageSource = (owner: PassageOwner, fileId: string, location: PassageLocation): string =>
  `${KNOWLEDGE_SCHEME}${"threadId" in owner ? `thread/${owner.threadId}` : owner.projectId}/${fileId}?${new URLSearchParams(Object.entries(location).map(([k, v]) => [k, String(v)]))}`;

/** "page 37", "sheet Sales, row 12", "slide 3", or the heading. */
export function placeOf(location: PassageLocation): string {
  if ("page" in location) return `page ${location.page}`;
  if ("row" in location) return location.sheet ? `sheet ${location.sheet}, row ${location.row}` : `row ${location.row}`;
  if ("slide" in location) return `slide ${location.slide}`;
  return location.heading || "start";
}

/** A passage's title: its file's name and place. */
export const passageTitle = (name: string, location: PassageLocation) => `${name} (${placeOf(location)})`;

/** The document a citation names, or null for another source (a web page). */
export function documentCitation(c: Citation): DocumentCitation | null {
  if (!c.url.startsWith(KNOWLEDGE_SCHEME)) return null;
  const [path, query = ""] = c.url.slice(KNOWLEDGE_SCHEME.length).split("?");
  const parts = path.split("/");
  const fileId = parts.at(-1)!;
  const owner = parts[0] === "thread" ? { projectId: "", threadId: parts[1] ?? "" } : { projectId: parts.length > 1 ? parts[0] : "" };
  const params = new URLSearchParams(query);
  const location: PassageLocation = params.has("page")
    ? { page: Number(params.get("page")) }
    : params.has("row")
      ? { sheet: params.get("sheet") ?? "", row: Number(params.get("row")) }
      : params.has("slide")
        ? { slide: Number(params.get("slide")) }
        : { heading: params.get("heading") ?? "" };
  return { ...owner, fileId, name: (c.title ?? "").replace(/ \([^()]*\)$/, ""), location, citedText: c.citedText };
}
