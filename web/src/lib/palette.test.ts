import type { SearchResult } from "@protocol";
import { describe, expect, it } from "vitest";
import { thread } from "../testing/fixtures";
import { matchThreads, moveSelection, paletteEntries, paletteStatus, snippetParts } from "./palette";

const hit = (over: Partial<SearchResult> = {}): SearchResult => ({
  threadId: "thr_1",
  threadName: "Trip",
  messageId: "msg_1",
  parentId: null,
  role: "user",
  snippet: "about <mark>Lisbon</mark>",
  createdAt: 1_000,
  ...over,
});

describe("snippetParts", () => {
  it("keeps <mark> as hits and shows everything else as text, entities decoded", () => {
    expect(snippetParts("a &lt;b&gt; &amp; <mark>x&#39;s</mark> tail")).toEqual([
      { text: "a <b> & ", hit: false },
      { text: "x's", hit: true },
      { text: " tail", hit: false },
    ]);
  });

  it("drops any other tag, so nothing but text and marks comes through", () => {
    expect(snippetParts('<img src=x onerror="alert(1)">hi <mark><b>yo</b></mark>')).toEqual([
      { text: "hi ", hit: false },
      { text: "yo", hit: true },
    ]);
  });
});

describe("matchThreads", () => {
  const threads = [
    thread({ id: "t1", name: "Weekend in Lisbon", lastActivity: 3 }),
    thread({ id: "t2", name: "Lisbon budget", lastActivity: 1 }),
    thread({ id: "t3", name: "Budget for Porto", lastActivity: 2 }),
    thread({ id: "t4", name: "Notes", lastActivity: 9 }),
  ];

  it("needs every word, and ranks names that start with the query first", () => {
    expect(matchThreads("lisbon", threads, 5).map((t) => t.id)).toEqual(["t2", "t1"]);
    expect(matchThreads("budget lis", threads, 5).map((t) => t.id)).toEqual(["t2"]);
    expect(matchThreads("get", threads, 5).map((t) => t.id)).toEqual(["t3", "t2"]);
  });

  it("lists the most recent threads for an empty query, up to the limit", () => {
    expect(matchThreads("  ", threads, 2).map((t) => t.id)).toEqual(["t4", "t1"]);
  });
});

describe("paletteEntries", () => {
  it("puts thread matches before message hits, keeps the server's order, and drops repeated hits", () => {
    const entries = paletteEntries("lisbon", [thread({ id: "t1", name: "Lisbon" })], [
      hit({ messageId: "msg_a", role: "assistant", parentId: "msg_q" }),
      hit({ messageId: "msg_b" }),
      hit({ messageId: "msg_a", role: "assistant", parentId: "msg_q" }),
    ]);
    expect(entries.map((e) => e.key)).toEqual(["thread:t1", "message:msg_a", "message:msg_b"]);
    expect(entries[1]).toMatchObject({ kind: "message", branchTo: "msg_q", threadName: "Trip" });
    expect(entries[2]).toMatchObject({ kind: "message", branchTo: "msg_b" });
  });
});

describe("moveSelection", () => {
  it("wraps around both ways, and starts from either end", () => {
    expect(moveSelection(-1, 1, 3)).toBe(0);
    expect(moveSelection(-1, -1, 3)).toBe(2);
    expect(moveSelection(2, 1, 3)).toBe(0);
    expect(moveSelection(0, -1, 3)).toBe(2);
    expect(moveSelection(0, 1, 0)).toBe(-1);
  });
});

describe("paletteStatus", () => {
  const idle = { isFetching: false, isError: false, error: null };

  it("says it searches while typing has not paused, or the answer is awaited, once the query is long enough", () => {
    expect(paletteStatus("lis", "li", idle, 3)).toBe("Searching…");
    expect(paletteStatus("lis", "lis", { ...idle, isFetching: true }, 3)).toBe("Searching…");
    expect(paletteStatus("l", "", idle, 3)).toBeNull();
  });

  it("says why the search failed", () => {
    expect(paletteStatus("lis", "lis", { isFetching: false, isError: true, error: new Error("offline") }, 0)).toBe("Search failed: offline");
  });

  it("says when nothing matches, or when there is nothing to list yet", () => {
    expect(paletteStatus("lis", "lis", idle, 0)).toBe("Nothing matches.");
    expect(paletteStatus("", "", idle, 0)).toBe("No threads yet.");
    expect(paletteStatus("lis", "lis", idle, 2)).toBeNull();
  });
});
