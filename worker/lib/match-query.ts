// A person's question as an FTS5 query: its words, each quoted (so no word is read as an operator or a
// column), any of them matching (OR); BM25 ranks the passages that hold more of them, and rarer ones,
// first. Words of one or two letters and the commonest English words are left out: they match nearly
// every passage and only slow the ranking.
const STOP = new Set(
  "the a an and or of to in on for is are was were be been it its this that these those with as at by from what which who whom how why when where do does did can could would should will shall may might has have had not no yes i you he she we they me my your our their his her them us".split(" "),
);

/** The words of `question` worth looking for (all of them when none is). */
export function queryTerms(question: string, maxTerms = 32): string[] {
  const words = question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms = [...new Set(words.filter((w) => w.length > 2 && !STOP.has(w)))].slice(0, maxTerms);
  return terms.length ? terms : [...new Set(words)].slice(0, maxTerms);
}

/** The MATCH expression for `question`, or null when it has no word worth looking for. */
export function matchQuery(question: string, maxTerms = 32): string | null {
  const terms = queryTerms(question, maxTerms);
  return terms.length ? terms.map(quoted).join(" OR ") : null;
}

const quoted = (term: string) => `"${term.replaceAll('"', '""')}"`;
