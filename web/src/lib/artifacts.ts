// Artifacts as the web app shows and saves them: what to call each kind, the file a download makes
// (the right extension for its type, or for a code artifact's language), and the list kept current
// by artifact:updated.

import type { ArtifactInfo, ArtifactType } from "@protocol";

type Typed = Pick<ArtifactInfo, "type" | "language">;

/** A code artifact's language (as the model names it) to its file extension. */
const CODE_EXTENSIONS: Record<string, string> = {
  typescript: "ts", ts: "ts", tsx: "tsx", javascript: "js", js: "js", jsx: "jsx", mjs: "mjs", cjs: "cjs",
  python: "py", py: "py", rust: "rs", rs: "rs", go: "go", golang: "go", java: "java", kotlin: "kt", kt: "kt",
  swift: "swift", c: "c", h: "h", cpp: "cpp", "c++": "cpp", cxx: "cpp", csharp: "cs", "c#": "cs", cs: "cs",
  ruby: "rb", rb: "rb", php: "php", bash: "sh", sh: "sh", shell: "sh", zsh: "zsh", powershell: "ps1", ps1: "ps1",
  sql: "sql", json: "json", yaml: "yaml", yml: "yaml", toml: "toml", ini: "ini", html: "html", css: "css",
  scss: "scss", sass: "sass", less: "less", xml: "xml", svg: "svg", markdown: "md", md: "md", lua: "lua", r: "r",
  scala: "scala", haskell: "hs", elixir: "ex", erlang: "erl", dart: "dart", perl: "pl", julia: "jl",
  dockerfile: "dockerfile", makefile: "mk", graphql: "graphql", vue: "vue", svelte: "svelte", zig: "zig",
  ocaml: "ml", clojure: "clj", fsharp: "fs", "f#": "fs", objectivec: "m", "objective-c": "m", diff: "diff",
  text: "txt", plaintext: "txt", txt: "txt", csv: "csv", mermaid: "mmd",
};

const TYPE_EXTENSIONS: Record<ArtifactType, string> = { markdown: "md", code: "txt", html: "html", svg: "svg", mermaid: "mmd" };

const MIME: Record<ArtifactType, string> = {
  markdown: "text/markdown",
  code: "text/plain",
  html: "text/html",
  svg: "image/svg+xml",
  mermaid: "text/plain",
};

/** The first word of a language name, lower-cased ("TypeScript React" → "typescript"). */
export const languageKey = (language: string | null): string => (language ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";

/** The extension a download of this artifact gets: md, html, svg, mmd, or its code language's (txt when unknown). */
export function artifactExtension(a: Typed): string {
  if (a.type !== "code") return TYPE_EXTENSIONS[a.type] ?? "txt";
  return CODE_EXTENSIONS[languageKey(a.language)] ?? "txt";
}

/** The media type of a download of it (UTF-8 text, all of them). */
export const artifactMime = (type: ArtifactType): string => `${MIME[type] ?? "text/plain"};charset=utf-8`;

/**
 * A file name for the artifact: its title made safe for a file system, and its extension ("Fibonacci
 * in Python" → "fibonacci-in-python.py"; a title that already ends in the extension keeps it once).
 */
export function artifactFileName(a: Pick<ArtifactInfo, "title" | "type" | "language">): string {
  const ext = artifactExtension(a);
  let base = a.title.trim();
  if (base.toLowerCase().endsWith(`.${ext}`)) base = base.slice(0, -(ext.length + 1));
  const slug = base
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_.-]+/gu, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 80)
    .replace(/[-.]+$/, "");
  return `${slug || "artifact"}.${ext}`;
}

/** What kind of artifact it is, for its card and panel ("Code · python", "HTML page"). */
export function artifactKind(a: Typed): string {
  switch (a.type) {
    case "markdown":
      return "Document";
    case "code":
      return a.language ? `Code · ${a.language}` : "Code";
    case "html":
      return "HTML page";
    case "svg":
      return "SVG image";
    case "mermaid":
      return "Mermaid diagram";
    default:
      return "Artifact";
  }
}

/** The list with `artifact` as artifact:updated reports it: replaced where it was, or first when new. */
export function withArtifact(list: readonly ArtifactInfo[], artifact: ArtifactInfo): ArtifactInfo[] {
  return list.some((a) => a.id === artifact.id) ? list.map((a) => (a.id === artifact.id ? artifact : a)) : [artifact, ...list];
}
