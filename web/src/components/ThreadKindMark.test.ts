// The mark before a thread's name in the sidebar (rendered to markup: no DOM needed).
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ThreadKindMark } from "./ThreadKindMark";

const render = (kind: Parameters<typeof ThreadKindMark>[0]["kind"]) => renderToStaticMarkup(createElement(ThreadKindMark, { kind }));
const spoken = (html: string) => html.replace(/<[^>]+>/g, "");

describe("a thread's kind in the sidebar", () => {
  it("badges a thread a program made with an API key", () => {
    const html = render("api");
    expect(html).toContain('data-testid="thread-api-badge"');
    expect(spoken(html)).toBe("API thread:");
  });

  it("keeps the scheduled thread's clock", () => {
    expect(render("cron")).toContain('data-testid="thread-scheduled-mark"');
    expect(render("cron")).not.toContain("thread-api-badge");
  });

  it("marks no other kind", () => {
    for (const kind of ["general", "primary", "task"] as const) expect(render(kind)).toBe("");
  });
});
