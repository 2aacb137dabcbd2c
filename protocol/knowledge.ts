// A project's passages as the model cites them: each search result names its project, file and place
// in its `source` (knowledge:<projectId>/<fileId>?page=37), which a citation carries back, so the Worker keeps the
// answer's document citations (metadata.citations) and the web app shows them as chips.
import type { Citation } from "./shapes";
import type { DocumentCitation, PassageLocation } from "./resources";

export const KNOWLEDGE_SCHEME = "knowledge:";

/** A passage's source: its project, its file and where in it. */
export const passageSource = (projectId: string, fileId: string, location: PassageLocation): string =>
  `${KNOWLEDGE_SCHEME}${projectId}/${fileId}?${new URLSearchParams(Object.entries(location).map(([k, v]) => [k, String(v)]))}`;

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
  const [projectId, fileId] = path.includes("/") ? path.split("/") : ["", path];
  const params = new URLSearchParams(query);
  const location: PassageLocation = params.has("page")
    ? { page: Number(params.get("page")) }
    : params.has("row")
      ? { sheet: params.get("sheet") ?? "", row: Number(params.get("row")) }
      : params.has("slide")
        ? { slide: Number(params.get("slide")) }
        : { heading: params.get("heading") ?? "" };
  return { projectId, fileId, name: (c.title ?? "").replace(/ \([^()]*\)$/, ""), location, citedText: c.citedText };
}
