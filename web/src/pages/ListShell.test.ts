// The list pages' shared states (rendered to markup: no DOM needed).
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ListShell } from "./ListShell";

const render = (query: { isPending: boolean; error: Error | null }, rows: readonly string[] | undefined) =>
  renderToStaticMarkup(
    createElement(ListShell<string>, {
      query,
      rows,
      empty: createElement("p", { className: "muted" }, "Nothing yet."),
      children: (shown) => createElement("ul", null, shown.map((r) => createElement("li", { key: r }, r))),
    }),
  );

describe("a list page's states", () => {
  it("says it is loading until the first answer", () => {
    expect(render({ isPending: true, error: null }, undefined)).toBe('<p class="muted">Loading…</p>');
  });

  it("shows a failed read as an alert", () => {
    expect(render({ isPending: false, error: new Error("offline") }, undefined)).toBe('<div class="inline-alert" role="alert">offline</div>');
  });

  it("shows the empty note when the answer has no rows, and the rows otherwise", () => {
    expect(render({ isPending: false, error: null }, [])).toBe('<p class="muted">Nothing yet.</p>');
    expect(render({ isPending: false, error: null }, ["a", "b"])).toBe("<ul><li>a</li><li>b</li></ul>");
  });

  it("keeps the rows it had under a failed refetch's error", () => {
    expect(render({ isPending: false, error: new Error("offline") }, ["a"])).toBe('<div class="inline-alert" role="alert">offline</div><ul><li>a</li></ul>');
  });
});
