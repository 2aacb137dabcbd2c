// Markdown to safe HTML: marked for parsing, highlight.js (a curated set of languages) for code,
// then safeHtml.ts's policy for everything the model wrote.

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked, type Tokens } from "marked";
import { renderCitationMarks } from "./citationMarks";
import { placeCitationMarks, type NumberedCitations } from "./citations";
import { sanitizeModelHtml } from "./safeHtml";

const languages = { bash, css, diff, go, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(["sh", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["js", "jsx", "mjs", "cjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["yml"], { languageName: "yaml" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["md"], { languageName: "markdown" });

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Highlighted HTML for a code string; plain escaped text for unknown languages. */
export function highlight(code: string, lang?: string): string {
  const name = (lang ?? "").trim().split(/\s+/)[0]?.toLowerCase();
  if (name && hljs.getLanguage(name)) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      /* fall through */
    }
  }
  return escapeHtml(code);
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    code({ text, lang }: Tokens.Code) {
      const language = (lang ?? "").trim().split(/\s+/)[0] ?? "";
      const label = language ? `<span class="code-lang">${escapeHtml(language)}</span>` : "";
      return (
        `<div class="code-block">` +
        `<div class="code-head">${label}</div>` +
        `<pre><code class="hljs${language ? " language-" + escapeHtml(language) : ""}">${highlight(text, language)}</code></pre>` +
        `</div>`
      );
    },
  },
});

/**
 * `source` as safe HTML; with `citations`, numbered references where their passages end (their
 * links point at `#<citePrefix>-source-<n>`, the entries of the answer's list of sources).
 */
export function renderMarkdown(source: string, citations?: NumberedCitations, citePrefix = "cite"): string {
  if (!citations?.marks.length) return sanitizeModelHtml(marked.parse(source, { async: false }));
  const html = marked.parse(placeCitationMarks(source, citations.marks), { async: false });
  return sanitizeModelHtml(html, (body) => renderCitationMarks(body, citations.sources, citePrefix));
}
