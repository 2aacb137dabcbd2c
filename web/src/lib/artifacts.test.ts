import type { ArtifactInfo } from "@protocol";
import { describe, expect, it } from "vitest";
import { artifactExtension, artifactFileName, artifactKind, artifactMime, withArtifact } from "./artifacts";

const info = (over: Partial<ArtifactInfo> = {}): ArtifactInfo => ({
  id: "art_1",
  title: "Notes",
  type: "markdown",
  language: null,
  version: 1,
  messageId: "msg_1",
  updatedAt: 1_000,
  ...over,
});

describe("artifactExtension", () => {
  it("is the type's own for markdown, HTML, SVG and Mermaid", () => {
    expect(artifactExtension({ type: "markdown", language: null })).toBe("md");
    expect(artifactExtension({ type: "html", language: null })).toBe("html");
    expect(artifactExtension({ type: "svg", language: null })).toBe("svg");
    expect(artifactExtension({ type: "mermaid", language: null })).toBe("mmd");
  });

  it("is a code artifact's language's, however the model spells the language", () => {
    expect(artifactExtension({ type: "code", language: "python" })).toBe("py");
    expect(artifactExtension({ type: "code", language: "TypeScript" })).toBe("ts");
    expect(artifactExtension({ type: "code", language: " tsx " })).toBe("tsx");
    expect(artifactExtension({ type: "code", language: "C++" })).toBe("cpp");
    expect(artifactExtension({ type: "code", language: "rust" })).toBe("rs");
    expect(artifactExtension({ type: "code", language: "bash" })).toBe("sh");
    expect(artifactExtension({ type: "code", language: "JavaScript (ES2022)" })).toBe("js");
  });

  it("is txt for code in no language or one it does not know", () => {
    expect(artifactExtension({ type: "code", language: null })).toBe("txt");
    expect(artifactExtension({ type: "code", language: "brainfudge" })).toBe("txt");
    expect(artifactExtension({ type: "code", language: "../../etc" })).toBe("txt");
  });
});

describe("artifactFileName", () => {
  it("makes the title a file name with the extension", () => {
    expect(artifactFileName({ title: "Fibonacci in Python", type: "code", language: "python" })).toBe("fibonacci-in-python.py");
    expect(artifactFileName({ title: "Release notes: v2 / final", type: "markdown", language: null })).toBe("release-notes-v2-final.md");
    expect(artifactFileName({ title: "Café menu", type: "html", language: null })).toBe("café-menu.html");
  });

  it("keeps a title that already is a file name once", () => {
    expect(artifactFileName({ title: "main.py", type: "code", language: "python" })).toBe("main.py");
    expect(artifactFileName({ title: "Logo.SVG", type: "svg", language: null })).toBe("logo.svg");
  });

  it("never makes a hidden, empty or path-like name", () => {
    expect(artifactFileName({ title: "...", type: "mermaid", language: null })).toBe("artifact.mmd");
    expect(artifactFileName({ title: "../../secret", type: "markdown", language: null })).toBe("secret.md");
    expect(artifactFileName({ title: "  ", type: "code", language: null })).toBe("artifact.txt");
    expect(artifactFileName({ title: "x".repeat(300), type: "markdown", language: null })).toBe("x".repeat(80) + ".md");
  });
});

describe("artifactMime and artifactKind", () => {
  it("names the media type, always UTF-8", () => {
    expect(artifactMime("svg")).toBe("image/svg+xml;charset=utf-8");
    expect(artifactMime("html")).toBe("text/html;charset=utf-8");
    expect(artifactMime("code")).toBe("text/plain;charset=utf-8");
  });

  it("says what the artifact is", () => {
    expect(artifactKind({ type: "code", language: "python" })).toBe("Code · python");
    expect(artifactKind({ type: "mermaid", language: null })).toBe("Mermaid diagram");
  });
});

describe("withArtifact", () => {
  it("replaces a known artifact where it is, and puts a new one first", () => {
    const list = [info({ id: "art_1" }), info({ id: "art_2", title: "Two" })];
    const updated = withArtifact(list, info({ id: "art_2", title: "Two", version: 2 }));
    expect(updated.map((a) => [a.id, a.version])).toEqual([["art_1", 1], ["art_2", 2]]);
    expect(withArtifact(list, info({ id: "art_3" })).map((a) => a.id)).toEqual(["art_3", "art_1", "art_2"]);
  });
});
