import type { Thread } from "@protocol";
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { thread } from "../testing/fixtures";
import { dropThread, putThread, threadKeys, threadQuery, touchThread } from "./threads";

/** A client holding a two-page list and the archived list. */
function cached(pages: Thread[][], archived: Thread[] = []) {
  const qc = new QueryClient();
  qc.setQueryData(threadKeys.list, { pages: pages.map((threads) => ({ threads })), pageParams: pages.map(() => undefined) });
  qc.setQueryData(threadKeys.archived, archived);
  const list = () => (qc.getQueryData(threadKeys.list) as { pages: { threads: Thread[] }[] }).pages.map((p) => p.threads.map((t) => t.id));
  const archivedIds = () => (qc.getQueryData(threadKeys.archived) as Thread[]).map((t) => t.id);
  return { qc, list, archivedIds };
}

describe("thread cache", () => {
  it("replaces a thread where the list has it, and caches it on its own", () => {
    const { qc, list } = cached([[thread({ id: "a" })], [thread({ id: "b" })]]);
    putThread(qc, thread({ id: "b", name: "renamed" }));
    expect(list()).toEqual([["a"], ["b"]]);
    expect(qc.getQueryData(threadQuery("b").queryKey)?.name).toBe("renamed");
  });

  it("adds a new thread to the first page", () => {
    const { qc, list } = cached([[thread({ id: "a" })], []]);
    putThread(qc, thread({ id: "new" }));
    expect(list()).toEqual([["new", "a"], []]);
  });

  it("moves a thread between the list and the archived list", () => {
    const { qc, list, archivedIds } = cached([[thread({ id: "a" }), thread({ id: "b" })]]);
    putThread(qc, thread({ id: "a", status: "archived" }));
    expect(list()).toEqual([["b"]]);
    expect(archivedIds()).toEqual(["a"]);
    putThread(qc, thread({ id: "a", status: "open" }));
    expect(list()).toEqual([["a", "b"]]);
    expect(archivedIds()).toEqual([]);
  });

  it("moves lastActivity forward only", () => {
    const { qc } = cached([[thread({ id: "a", lastActivity: 5_000 })]]);
    qc.setQueryData(threadQuery("a").queryKey, thread({ id: "a", lastActivity: 5_000 }));
    touchThread(qc, "a", 4_000);
    expect(qc.getQueryData(threadQuery("a").queryKey)?.lastActivity).toBe(5_000);
    touchThread(qc, "a", 9_000);
    expect(qc.getQueryData(threadQuery("a").queryKey)?.lastActivity).toBe(9_000);
  });

  it("drops a deleted thread everywhere", () => {
    const { qc, list, archivedIds } = cached([[thread({ id: "a" })]], [thread({ id: "z", status: "archived" })]);
    qc.setQueryData(threadQuery("a").queryKey, thread({ id: "a" }));
    dropThread(qc, "a");
    dropThread(qc, "z");
    expect(list()).toEqual([[]]);
    expect(archivedIds()).toEqual([]);
    expect(qc.getQueryData(threadQuery("a").queryKey)).toBeUndefined();
  });
});
