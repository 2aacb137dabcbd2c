import { DOCX_TYPE, formatBytes, MAX_ATTACHMENTS_PER_MESSAGE, MAX_IMAGE_BYTES, maxBytesFor, PPTX_TYPE, XLSX_TYPE } from "@protocol";
import { describe, expect, it } from "vitest";
import { attachment } from "../testing/fixtures";
import { ACCEPTED_FILES, mediaTypeOf, newUploads, percent, refusal, summarize, uploadsReducer, type Upload } from "./uploads";

let n = 0;
const key = () => `k${++n}`;
const file = (name: string, type: string, size = 100) => ({ name, type, size });

describe("mediaTypeOf", () => {
  it("takes the browser's type when the server accepts it, else goes by the extension", () => {
    expect(mediaTypeOf(file("a.png", "image/png"))).toBe("image/png");
    expect(mediaTypeOf(file("notes.md", ""))).toBe("text/markdown");
    expect(mediaTypeOf(file("data.csv", "application/vnd.ms-excel"))).toBe("text/csv");
    expect(mediaTypeOf(file("x.txt", "text/plain;charset=utf-8"))).toBe("text/plain");
    expect(mediaTypeOf(file("song.mp3", "audio/mpeg"))).toBe("audio/mpeg");
  });

  it("sends documents with their own type, whatever the browser says of them", () => {
    expect(mediaTypeOf(file("report.docx", ""))).toBe(DOCX_TYPE);
    expect(mediaTypeOf(file("Sales.XLSX", "application/octet-stream"))).toBe(XLSX_TYPE);
    expect(mediaTypeOf(file("deck.pptx", ""))).toBe(PPTX_TYPE);
    expect(mediaTypeOf(file("paper.pdf", "application/x-pdf"))).toBe("application/pdf");
    expect(mediaTypeOf(file("page.htm", ""))).toBe("text/html");
    expect(mediaTypeOf(file("page.html", "text/html"))).toBe("text/html");
    expect(mediaTypeOf(file("data.json", ""))).toBe("application/json");
    expect(mediaTypeOf(file("README.md", "text/x-markdown"))).toBe("text/markdown");
  });

  it("sends source code as text/plain (a .ts file is video/mp2t to some browsers)", () => {
    expect(mediaTypeOf(file("index.ts", "video/mp2t"))).toBe("text/plain");
    expect(mediaTypeOf(file("app.py", "text/x-python"))).toBe("text/plain");
    expect(mediaTypeOf(file("main.go", ""))).toBe("text/plain");
    expect(mediaTypeOf(file("run.sh", "application/x-sh"))).toBe("text/plain");
    expect(mediaTypeOf(file("app.js", "text/javascript"))).toBe("text/plain");
    expect(mediaTypeOf(file("config.yaml", "application/yaml"))).toBe("text/plain");
    expect(mediaTypeOf(file("Dockerfile", ""))).toBe("text/plain");
    expect(mediaTypeOf(file("a.constructor", ""))).toBe("");
  });

  it("lets the file picker offer every type the server takes, and the extensions a browser may not type", () => {
    const accepted = ACCEPTED_FILES.split(",");
    for (const item of [DOCX_TYPE, XLSX_TYPE, PPTX_TYPE, "text/html", "application/json", "application/pdf", ".docx", ".xlsx", ".pptx", ".html", ".htm", ".json", ".md", ".csv", ".txt", ".ts", ".py"]) {
      expect(accepted).toContain(item);
    }
  });
});

describe("refusal", () => {
  it("refuses what the server would: another type, an empty file, past the size for the type", () => {
    expect(refusal("audio/mpeg", 10)).toMatch(/cannot be sent/);
    expect(refusal("image/png", 0)).toMatch(/empty/);
    expect(refusal("image/png", MAX_IMAGE_BYTES + 1)).toMatch(/Too large.*images may be at most 5\.0 MB/);
    expect(refusal("application/pdf", MAX_IMAGE_BYTES + 1)).toBeNull();
    expect(refusal("image/webp", 10)).toBeNull();
    expect(refusal(DOCX_TYPE, maxBytesFor(DOCX_TYPE))).toBeNull();
    expect(refusal(PPTX_TYPE, maxBytesFor(PPTX_TYPE) + 1)).toMatch(new RegExp(`Too large.*files may be at most ${formatBytes(maxBytesFor(PPTX_TYPE))}`));
  });
});

describe("newUploads", () => {
  it("starts the acceptable files uploading and fails the others at once", () => {
    const added = newUploads([], [file("a.png", "image/png"), file("b.exe", "application/x-msdownload")], key);
    expect(added.map((u) => [u.name, u.status])).toEqual([
      ["a.png", "uploading"],
      ["b.exe", "failed"],
    ]);
    expect(added[1].error).toMatch(/cannot be sent/);
  });

  it("fails the files past the per-message count, counting those already attached", () => {
    const current = newUploads([], Array.from({ length: MAX_ATTACHMENTS_PER_MESSAGE - 1 }, (_, i) => file(`${i}.png`, "image/png")), key);
    const added = newUploads(current, [file("last.png", "image/png"), file("over.png", "image/png")], key);
    expect(added.map((u) => u.status)).toEqual(["uploading", "failed"]);
    expect(added[1].error).toMatch(/At most 10 files/);
  });
});

describe("uploadsReducer", () => {
  const start = (): readonly Upload[] => newUploads([], [file("a.png", "image/png", 200), file("b.pdf", "application/pdf", 400)], key);

  it("follows each upload's progress to its attachment, and never moves a finished one back", () => {
    let state = start();
    const [a, b] = state;
    state = uploadsReducer(state, { type: "progress", key: a.key, sent: 100 });
    expect(percent(state[0])).toBe(50);
    state = uploadsReducer(state, { type: "done", key: a.key, attachment: attachment({ id: "att_a" }) });
    state = uploadsReducer(state, { type: "progress", key: a.key, sent: 150 });
    state = uploadsReducer(state, { type: "failed", key: a.key, error: "late" });
    expect(state[0]).toMatchObject({ status: "done", sent: 200, attachment: { id: "att_a" } });
    expect(summarize(state)).toEqual({ uploading: 1, failed: 0, attachments: [attachment({ id: "att_a" })] });

    state = uploadsReducer(state, { type: "failed", key: b.key, error: "These bytes are not application/pdf" });
    expect(summarize(state)).toMatchObject({ uploading: 0, failed: 1 });
    state = uploadsReducer(state, { type: "remove", key: b.key });
    expect(state.map((u) => u.name)).toEqual(["a.png"]);
    expect(uploadsReducer(state, { type: "clear" })).toEqual([]);
  });

  it("keeps the attachments in the order the files were added, whatever order they finish in", () => {
    let state = start();
    const [a, b] = state;
    state = uploadsReducer(state, { type: "done", key: b.key, attachment: attachment({ id: "att_b" }) });
    state = uploadsReducer(state, { type: "done", key: a.key, attachment: attachment({ id: "att_a" }) });
    expect(summarize(state).attachments.map((x) => x.id)).toEqual(["att_a", "att_b"]);
  });

  it("ignores news of an upload that was removed", () => {
    const state = start();
    const removed = uploadsReducer(state, { type: "remove", key: state[0].key });
    expect(uploadsReducer(removed, { type: "done", key: state[0].key, attachment: attachment() })).toBe(removed);
  });
});
