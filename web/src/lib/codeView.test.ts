import type { CodeRunView, MessageMetadata, ProducedFile } from "@protocol";
import { describe, expect, it } from "vitest";
import {
  codeFromMetadata,
  codeInputFields,
  codeRunState,
  codeStatusText,
  codeView,
  foldText,
  isInlineImage,
  languageOfPath,
  parseCsvPreview,
  previewKind,
  textPreview,
} from "./codeView";

const file = (over: Partial<ProducedFile> = {}): ProducedFile => ({
  id: "file_1",
  threadId: "thr_1",
  runId: "run_1",
  name: "chart.png",
  mediaType: "image/png",
  bytes: 2048,
  createdAt: 1,
  ...over,
});

const codeRun = (over: Partial<CodeRunView> = {}): CodeRunView => ({
  toolUseId: "srvtoolu_1",
  toolName: "bash_code_execution",
  input: null,
  partial: "",
  files: [],
  done: false,
  ...over,
});

/** Metadata whose `codeRuns` is as given. */
const withRuns = (codeRuns: unknown) => ({ codeRuns }) as unknown as MessageMetadata;
/** Metadata whose `code` is as given (before codeRuns, an answer kept its runs there; elsewhere it is an error code). */
const withCode = (code: unknown) => ({ code }) as unknown as MessageMetadata;

/** Every prefix of `json`: the input as it may stand after any delta. */
const prefixes = (json: string) => Array.from({ length: json.length + 1 }, (_, i) => json.slice(0, i));

describe("a code run's input while it streams", () => {
  const whole = JSON.stringify({ command: "python3 - <<'EOF'\nimport pandas as pd\nprint(\"hé \\u00e9\")\nEOF" });

  it("gives the code so far, its escapes decoded, growing with every piece", () => {
    const seen = prefixes(whole).map((p) => codeView("bash_code_execution", null, p).text);
    expect(seen.at(-1)).toBe("python3 - <<'EOF'\nimport pandas as pd\nprint(\"hé \\u00e9\")\nEOF");
    // Never a raw escape, never a shorter text than before.
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i].startsWith(seen[i - 1])).toBe(true);
      expect(seen[i]).not.toMatch(/\\n/);
    }
    expect(codeView("bash_code_execution", null, '{"command": "ls -l\\').text).toBe("ls -l");
    expect(codeView("bash_code_execution", null, '{"command": "echo \\"hi').text).toBe('echo "hi');
  });

  it("reads nothing from text that is not yet an object's string", () => {
    expect(codeView("bash_code_execution", null, "").text).toBe("");
    expect(codeView("bash_code_execution", null, '{"comm').text).toBe("");
    expect(codeView("bash_code_execution", null, '{"command":').text).toBe("");
  });

  it("prefers the input once whole", () => {
    expect(codeInputFields({ command: "ls", n: 3 }, '{"command": "l')).toEqual({ command: "ls" });
    expect(codeView("bash_code_execution", { command: "ls -la" }, '{"command": "ls"}').text).toBe("ls -la");
  });
});

describe("what a code card shows, by tool", () => {
  it("bash: the command", () => {
    expect(codeView("bash_code_execution", { command: "ls /tmp" })).toEqual({ label: "Code", title: "bash", language: "bash", text: "ls /tmp" });
  });

  it("the text editor's create: the path, and the file's text in its language", () => {
    const input = { command: "create", path: "/tmp/plot.py", file_text: "import matplotlib\n" };
    expect(codeView("text_editor_code_execution", input)).toEqual({ label: "Create file", title: "/tmp/plot.py", language: "python", text: "import matplotlib\n" });
    // Streaming: the path first, then the text as it comes.
    const partial = '{"command":"create","path":"/tmp/a.json","file_text":"{\\"a\\": 1';
    expect(codeView("text_editor_code_execution", null, partial)).toEqual({ label: "Create file", title: "/tmp/a.json", language: "json", text: '{"a": 1' });
  });

  it("the text editor's str_replace and view: a short description", () => {
    expect(codeView("text_editor_code_execution", { command: "str_replace", path: "/tmp/p.py", old_str: "a = 1", new_str: "a = 2\nb = 3" })).toEqual({
      label: "Edit file",
      title: "/tmp/p.py",
      language: "diff",
      text: "- a = 1\n+ a = 2\n+ b = 3",
    });
    expect(codeView("text_editor_code_execution", { command: "view", path: "/tmp/data.csv" })).toEqual({ label: "View file", title: "/tmp/data.csv", language: "", text: "" });
  });

  it("legacy code_execution: Python", () => {
    expect(codeView("code_execution", { code: "print(1)" })).toEqual({ label: "Code", title: "python", language: "python", text: "print(1)" });
    expect(codeView("code_execution", null, '{"code": "print(')).toMatchObject({ language: "python", text: "print(" });
  });

  it("languages by extension", () => {
    expect(languageOfPath("/tmp/x.PY")).toBe("python");
    expect(languageOfPath("/tmp/run.sh")).toBe("bash");
    expect(languageOfPath("/tmp/data.csv")).toBe("");
    expect(languageOfPath("/tmp/.bashrc")).toBe("");
    expect(languageOfPath("")).toBe("");
  });
});

describe("folding the code", () => {
  it("keeps short code whole, and cuts long code at a line's end", () => {
    expect(foldText("short", 600)).toEqual({ shown: "short", folded: false });
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const { shown, folded } = foldText(lines, 600);
    expect(folded).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(600);
    expect(lines.startsWith(shown + "\n")).toBe(true);
    expect(foldText("x".repeat(700), 600).shown).toBe("x".repeat(600));
  });
});

describe("a code run's state", () => {
  it("writing, running, then done or failed; stopped when its run ended first", () => {
    expect(codeRunState(codeRun({ partial: '{"command": "l' }), true)).toBe("writing");
    expect(codeRunState(codeRun({ input: { command: "ls" } }), true)).toBe("running");
    expect(codeRunState(codeRun({ input: { command: "ls" } }), false)).toBe("stopped");
    expect(codeRunState(codeRun({ done: true, returnCode: 0, stdout: "x" }), false)).toBe("done");
    expect(codeRunState(codeRun({ done: true, returnCode: 1, stderr: "boom" }), true)).toBe("failed");
    expect(codeRunState(codeRun({ done: true, error: "execution_time_exceeded" }), true)).toBe("failed");
  });

  it("says the exit code and the duration", () => {
    expect(codeStatusText(codeRun({ done: true, returnCode: 0, durationMs: 1234 }), "done")).toBe("exit 0 · 1.2s");
    expect(codeStatusText(codeRun({ done: true, returnCode: 2 }), "failed")).toBe("exit 2");
    expect(codeStatusText(codeRun({ done: true, error: "unavailable", durationMs: 80 }), "failed")).toBe("failed · 80ms");
    expect(codeStatusText(codeRun(), "running")).toBe("running…");
    expect(codeStatusText(codeRun(), "stopped")).toBe("stopped");
  });
});

describe("produced files: what is shown in place, what is previewed", () => {
  it("shows PNG, JPEG, GIF and WebP in place, never SVG", () => {
    for (const t of ["image/png", "image/jpeg", "image/gif", "image/webp", "image/PNG; charset=binary"]) expect(isInlineImage(t)).toBe(true);
    expect(isInlineImage("image/svg+xml")).toBe(false);
    expect(isInlineImage("text/csv")).toBe(false);
  });

  it("previews CSV as a table, text, JSON and markdown as lines", () => {
    expect(previewKind(file({ name: "d.csv", mediaType: "text/csv" }))).toBe("csv");
    expect(previewKind(file({ name: "d.csv", mediaType: "application/octet-stream" }))).toBe("csv");
    expect(previewKind(file({ name: "r.json", mediaType: "application/json" }))).toBe("text");
    expect(previewKind(file({ name: "r.md", mediaType: "text/markdown" }))).toBe("text");
    expect(previewKind(file({ name: "log.txt", mediaType: "text/plain; charset=utf-8" }))).toBe("text");
    expect(previewKind(file({ name: "notes.md", mediaType: "application/octet-stream" }))).toBe("text");
    expect(previewKind(file({ name: "c.svg", mediaType: "image/svg+xml" }))).toBe(null);
    expect(previewKind(file({ name: "a.xlsx", mediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" }))).toBe(null);
  });
});

describe("a CSV's first rows", () => {
  it("splits fields, with quotes, doubled quotes, commas and line breaks in them", () => {
    const csv = 'name,note,n\r\n"Smith, J","said ""hi""",1\n"two\nlines",,2\n';
    expect(parseCsvPreview(csv)).toEqual({
      rows: [
        ["name", "note", "n"],
        ["Smith, J", 'said "hi"', "1"],
        ["two\nlines", "", "2"],
      ],
      more: false,
    });
  });

  it("takes a last line with no line break after it, and skips a byte order mark", () => {
    expect(parseCsvPreview("\uFEFFa,b\n1,2")).toEqual({ rows: [["a", "b"], ["1", "2"]], more: false });
  });

  it("stops after the header and ten rows, and says more came", () => {
    const csv = ["x,y", ...Array.from({ length: 30 }, (_, i) => `${i},${i * i}`)].join("\n");
    const preview = parseCsvPreview(csv);
    expect(preview.rows).toHaveLength(11);
    expect(preview.rows[10]).toEqual(["9", "81"]);
    expect(preview.more).toBe(true);
  });

  it("leaves out a row cut short where the text read was the start of the file", () => {
    expect(parseCsvPreview("a,b\n1,2\n3,", 11, true)).toEqual({ rows: [["a", "b"], ["1", "2"]], more: true });
  });
});

describe("a text file's first lines", () => {
  it("keeps 40 lines", () => {
    const text = Array.from({ length: 50 }, (_, i) => `l${i}`).join("\n");
    expect(textPreview(text)).toEqual({ text: Array.from({ length: 40 }, (_, i) => `l${i}`).join("\n"), more: true });
    expect(textPreview("a\nb")).toEqual({ text: "a\nb", more: false });
    expect(textPreview("a\nb\nc-cut", 40, true)).toEqual({ text: "a\nb", more: true });
  });
});

describe("metadata.codeRuns of a stored answer", () => {
  it("reads the runs, done, and leaves out what is not shaped as one", () => {
    const runs = codeFromMetadata(
      withRuns([
        { toolUseId: "s1", toolName: "bash_code_execution", input: { command: "ls" }, stdout: "a\n", returnCode: 0, durationMs: 40, files: [file(), { id: 3 }] },
        { toolUseId: "s2", toolName: "bash_code_execution", input: { command: "sleep 99" }, files: [] },
        { toolName: "x" },
        "nonsense",
      ]),
    );
    expect(runs).toEqual([
      { toolUseId: "s1", toolName: "bash_code_execution", input: { command: "ls" }, stdout: "a\n", returnCode: 0, durationMs: 40, files: [file()], partial: "", done: true },
      // Stored without output: its run ended before the output came (its card says stopped).
      { toolUseId: "s2", toolName: "bash_code_execution", input: { command: "sleep 99" }, files: [], partial: "", done: false },
    ]);
  });

  it("is none for an error code, or nothing", () => {
    expect(codeFromMetadata({ code: "rate_limited" })).toBe(null);
    expect(codeFromMetadata({})).toBe(null);
    expect(codeFromMetadata(withCode([{ toolUseId: "s1", toolName: "code_execution", input: {}, files: [] }]))).toBe(null);
    expect(codeFromMetadata(withRuns([]))).toBe(null);
  });
});
