// What research asks the model, and what it makes of the answers: the plan (sub-questions from a
// question), each task's instructions, and the report, whose citations are held to the sources the
// tasks found: a numbered marker names a listed source or is removed, a link to a page no task found
// is left as plain text, and a sub-question that failed is named whatever the model wrote.
import { MAX_SUBQUESTION_CHARS, WEB_FETCH_TOOL, type Message, type ResearchSource, type Subquestion } from "../../../protocol";

export const PLAN_SYSTEM =
  "You plan research. Split the user's question into sub-questions that can each be researched on the web on its own and that together answer it. Answer with a JSON array of strings and nothing else.";

export const planPrompt = (question: string, min: number, max: number) =>
  `Question: ${question}\n\nGive between ${min} and ${max} sub-questions, as a JSON array of strings.`;

/** The sub-questions in the model's answer: a JSON array of strings, or else its list's lines. */
export function parsePlan(text: string, max: number): string[] {
  const json = text.match(/\[[\s\S]*\]/)?.[0];
  let items: unknown[] = [];
  try {
    items = json ? (JSON.parse(json) as unknown[]) : [];
  } catch {
    items = [];
  }
  if (!Array.isArray(items) || !items.length) items = text.split("\n").map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, ""));
  return items
    .filter((s): s is string => typeof s === "string")
    .map((s) => s.trim().slice(0, MAX_SUBQUESTION_CHARS))
    .filter(Boolean)
    .slice(0, max);
}

/** A task's instructions, its sub-question first (a task thread is named after its prompt's start). */
export const taskPrompt = (question: string, sub: string) =>
  [
    sub,
    "",
    `This is one part of a research on a larger question, for a report: ${question}`,
    "Search the web and fetch the pages that matter. Answer your part with the findings, concisely, naming for each the URL of the page it comes from. Say what you could not find.",
  ].join("\n");

export const REPORT_SYSTEM =
  "You write research reports in Markdown: a title (# heading), a short summary, then sections. Cite sources only by their numbers in square brackets, like [2], and only the numbers in the list you are given; write no URLs. A claim that no listed source supports gets no citation.";

/**
 * The numbered sources a report may cite: the pages the tasks fetched (PROTOCOL.md: its citations link
 * to URLs the tasks fetched), each once, in the sub-questions' order. A page a search only listed is a
 * lead the card shows, not a source the report cites.
 */
export function numberedSources(subs: Subquestion[]): ResearchSource[] {
  const seen = new Map<string, ResearchSource>();
  for (const s of subs) for (const src of s.sources) if (src.fetched && !seen.has(src.url)) seen.set(src.url, src);
  return [...seen.values()];
}

export function reportPrompt(question: string, subs: Subquestion[], results: (string | null)[], sources: ResearchSource[], note: string | null): string {
  const parts = [`Question: ${question}`, ""];
  if (note) parts.push(`Note: ${note}. Say in the report that it is partial.`, "");
  subs.forEach((s, i) => {
    parts.push(`## Sub-question ${i + 1}: ${s.text}`);
    parts.push(s.status === "completed" ? (results[i] ?? "(no findings)") : `(not answered: ${s.status}${results[i] ? `: ${results[i]}` : ""})`, "");
  });
  parts.push("## Sources", ...sources.map((src, i) => `[${i + 1}] ${src.title ?? src.url} (${src.url})`));
  return parts.join("\n");
}

/**
 * The report as kept: markers of listed sources become links ([2] → [[2]](url)), others go, links to
 * unlisted pages lose their link; then what the reader must know whatever the model wrote: that the
 * report is partial, which sub-questions were not answered, and the sources it cites.
 */
export function finishReport(markdown: string, question: string, subs: Subquestion[], sources: ResearchSource[], note: string | null): string {
  const listed = new Set(sources.map((s) => s.url));
  const cited = new Set<number>();
  let body = markdown.trim() || `# ${question}`;
  body = body.replace(/\[([^\]]*)\]\((https?:[^)\s]+)\)/g, (whole, text: string, url: string) => (listed.has(url) ? whole : text));
  body = body.replace(/\[(\d{1,3})\](?!\()/g, (_m, n: string) => {
    const i = Number(n);
    if (i < 1 || i > sources.length) return "";
    cited.add(i);
    return `[[${i}]](${sources[i - 1].url})`;
  });
  const out = [body];
  if (note) out.splice(0, 0, `> **Partial report.** ${note}.`, "");
  const unanswered = subs.filter((s) => s.status !== "completed");
  if (unanswered.length) out.push("", "## Not answered", ...unanswered.map((s) => `- ${s.text} (${s.status})`));
  if (cited.size) out.push("", "## Sources", ...[...cited].sort((a, b) => a - b).map((i) => `${i}. [${sources[i - 1].title ?? sources[i - 1].url}](${sources[i - 1].url})`));
  return out.join("\n");
}

/** The report's title: its first heading, or the question. */
export const titleOf = (markdown: string, question: string) => (markdown.match(/^#\s+(.+)$/m)?.[1] ?? question).trim().slice(0, 200);

/** The pages a thread's answers found (web search) and read (web fetch), from their metadata, each once. */
export function sourcesIn(messages: Message[]): ResearchSource[] {
  const byUrl = new Map<string, ResearchSource>();
  for (const m of messages) {
    for (const call of m.metadata.web?.calls ?? []) {
      for (const src of call.sources) {
        const fetched = call.toolName === WEB_FETCH_TOOL || byUrl.get(src.url)?.fetched;
        byUrl.set(src.url, { url: src.url, title: byUrl.get(src.url)?.title ?? src.title, ...(fetched ? { fetched: true } : {}) });
      }
    }
  }
  return [...byUrl.values()];
}
