// The offline model (worker/invoker/offline.ts) cannot look at attachments, but says which it
// received: the blocks a message carries reach it through the real SDK, and its answer names them.
// (The tests' deployment has a key, so there is no offline app to drive: this is the invoker, with
// the blocks the thread's FileBlocks makes of each kind of file.)
import { describe, expect, it } from "vitest";
import { configOf, type Env } from "../../worker/env";
import { expandRefs, refBlock } from "../../worker/invoker/attachment-refs";
import { createInvoker, providerOf } from "../../worker/invoker/client";
import type { ApiContent, StreamEvent } from "../../worker/invoker/types";

const offlineEnv = {} as Env;

const png: ApiContent = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
const pdf: ApiContent = { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" }, title: "report.pdf" };
const txt: ApiContent = { type: "document", source: { type: "text", media_type: "text/plain", data: "some notes" }, title: "notes.txt" };

async function ask(prompt: string, attachments: ApiContent[], prepare?: (m: any) => Promise<any>) {
  const events: StreamEvent[] = [];
  const result = await createInvoker(offlineEnv, configOf(offlineEnv)).invoke({
    model: "claude-sonnet-4-6",
    system: [],
    prompt,
    attachments,
    prepare,
    history: [],
    tools: [],
    runTool: async () => ({ content: "unused", isError: true }),
    onEvent: (e) => void events.push(e),
    signal: new AbortController().signal,
  });
  const streamed = events.filter((e) => e.type === "text").map((e) => (e as { delta: string }).delta).join("");
  expect(streamed).toBe(result.output);
  return result;
}

describe("the offline model and attachments", () => {
  it("runs without a key", () => {
    expect(providerOf(offlineEnv)).toBe("offline");
  });

  it("says it received one file, naming an image by its type", async () => {
    const { output } = await ask("look at this", [png]);
    expect(output).toContain("You said: “look at this”\n\nI received one file: an image (image/png).\n\n");
  });

  it("lists several files in order: an image, a PDF by its title and type, a text file by its title", async () => {
    const { output, stopReason } = await ask("three files", [png, pdf, txt]);
    expect(output).toContain("I received 3 files: an image (image/png), “report.pdf” (application/pdf), “notes.txt” (text).");
    expect(output).toMatch(/^\*\*Offline model\.\*\* You said: “three files”\n\nI received 3 files: /);
    expect(output).toContain("Set `ANTHROPIC_API_KEY` to talk to Claude");
    expect(stopReason).toBe("end_turn");
  });

  it("names a document without a title as “a document”, and an image by URL as such", async () => {
    const untitled: ApiContent = { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" } };
    const byUrl: ApiContent = { type: "image", source: { type: "url", url: "https://example.test/cat.png" } };
    const { output } = await ask("two more", [untitled, byUrl]);
    expect(output).toContain("I received 2 files: “a document” (application/pdf), an image (by URL).");
  });

  it("acknowledges the files the thread's references turn into (refBlock, then prepare)", async () => {
    // As the thread sends them: references in the turn, replaced with the bytes just before the request.
    const refs = [
      refBlock({ id: "att_1", mediaType: "image/jpeg", bytes: 1234, name: "photo.jpg" }),
      refBlock({ id: "att_2", mediaType: "text/markdown", bytes: 10, name: "plan.md" }),
    ];
    const loaded: Record<string, ApiContent> = {
      att_1: { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
      att_2: { type: "document", source: { type: "text", media_type: "text/plain", data: "# plan" }, title: "plan.md" },
    };
    const { output, turns } = await ask("my files", refs, (messages) => expandRefs(messages, async (ref) => loaded[ref.id]));
    expect(output).toContain("I received 2 files: an image (image/jpeg), “plan.md” (text).");
    // What is kept of the turn is the references, not the bytes.
    expect(JSON.stringify(turns[0])).toContain("attachment:att_1");
    expect(JSON.stringify(turns[0])).not.toContain("/9j/4AAQ");
  });

  it("says nothing of files when there are none", async () => {
    const { output } = await ask("just text", []);
    expect(output).toContain("You said: “just text”");
    expect(output).not.toContain("I received");
    expect(output).not.toMatch(/\bfiles?\b/);
  });
});
