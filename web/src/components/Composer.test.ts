// The composer with its Research switch (rendered to markup: no DOM needed).
import { MAX_RESEARCH_QUESTION } from "@protocol";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Composer } from "./Composer";

const noop = () => {};
const composer = (value: string, research?: { on: boolean; starting?: boolean }) =>
  renderToStaticMarkup(
    createElement(Composer, {
      value,
      onChange: noop,
      onSend: noop,
      running: false,
      onStop: noop,
      uploads: [],
      uploadsSummary: { attachments: [], uploading: 1, failed: 0 },
      onFiles: noop,
      onRemoveUpload: noop,
      research: research && { on: research.on, onToggle: noop, starting: research.starting ?? false },
    }),
  );

describe("the composer's Research switch", () => {
  it("is a labelled switch, off at first: the composer sends a message", () => {
    const html = composer("Hello", { on: false });
    expect(html).toMatch(/<input[^>]*type="checkbox"[^>]*role="switch"[^>]*data-testid="research-switch"/);
    expect(html).toContain('<span class="switch-label">Research</span>');
    expect(html).toContain('aria-label="Send message"');
  });

  it("on: the text is a research question, started by Enter or the Research button, without files", () => {
    const html = composer("How do heat pumps cope with frost?", { on: true });
    expect(html).toMatch(/data-testid="research-switch" checked=""/);
    expect(html).toContain(">Research question</label>");
    expect(html).toContain('placeholder="Ask a question to research…"');
    expect(html).toMatch(/aria-label="Start a research on this question">Research/);
    expect(html).toContain("starts a research on this question");
    // A file still uploading holds back a message, not a research (files do not go with it).
    expect(html).not.toContain("composer-waiting");
    expect(html).toMatch(/data-testid="attach"[^>]*disabled=""/);
    expect(html).not.toMatch(/data-testid="send" disabled=""/);
  });

  it("holds a question to the research's length, and a second start while one is starting", () => {
    expect(composer("x".repeat(MAX_RESEARCH_QUESTION + 1), { on: true })).toMatch(/data-testid="send" disabled=""/);
    expect(composer("Q?", { on: true, starting: true })).toMatch(/data-testid="send" disabled=""[^>]*>Starting…/);
  });

  it("is left out where research cannot start", () => {
    const html = renderToStaticMarkup(
      createElement(Composer, { value: "", onChange: noop, onSend: noop, running: false, onStop: noop, uploads: [], uploadsSummary: { attachments: [], uploading: 0, failed: 0 }, onFiles: noop, onRemoveUpload: noop }),
    );
    expect(html).not.toContain("research-switch");
  });
});
