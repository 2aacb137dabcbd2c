import type { ArtifactInfo, Thread } from "@protocol";
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { frame, message } from "../testing/fixtures";
import { cacheThreadEvent } from "./threadEvents";

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
const updated = (artifact: ArtifactInfo) => frame("artifact:updated", { threadId: "thr_1", runId: "run_1", artifact });

describe("artifact:updated", () => {
  it("puts the new version in the thread's list, and reloads what the panel shows of that artifact only", () => {
    const qc = new QueryClient();
    qc.setQueryData(["artifacts", "thr_1", "list"], [info(), info({ id: "art_2" })]);
    qc.setQueryData(["artifacts", "thr_1", "one", "art_1", "latest"], { ...info(), content: "v1" });
    qc.setQueryData(["artifacts", "thr_1", "one", "art_1", 1], { ...info(), content: "v1" });
    qc.setQueryData(["artifacts", "thr_1", "one", "art_2", "latest"], { ...info({ id: "art_2" }), content: "other" });

    cacheThreadEvent(qc, updated(info({ version: 2, messageId: "msg_3", updatedAt: 2_000 })));
    expect(qc.getQueryData<ArtifactInfo[]>(["artifacts", "thr_1", "list"])?.map((a) => [a.id, a.version, a.messageId])).toEqual([
      ["art_1", 2, "msg_3"],
      ["art_2", 1, "msg_1"],
    ]);
    expect(qc.getQueryState(["artifacts", "thr_1", "one", "art_1", "latest"])?.isInvalidated).toBe(true);
    // A version's content never changes, but the versions it lists do.
    expect(qc.getQueryState(["artifacts", "thr_1", "one", "art_1", 1])?.isInvalidated).toBe(true);
    expect(qc.getQueryState(["artifacts", "thr_1", "one", "art_2", "latest"])?.isInvalidated).toBe(false);
    expect(qc.getQueryState(["artifacts", "thr_1", "list"])?.isInvalidated).toBe(false);
  });

  it("adds a new artifact first; without a list loaded, has it read", () => {
    const qc = new QueryClient();
    qc.setQueryData(["artifacts", "thr_1", "list"], [info()]);
    cacheThreadEvent(qc, updated(info({ id: "art_new" })));
    expect(qc.getQueryData<ArtifactInfo[]>(["artifacts", "thr_1", "list"])?.map((a) => a.id)).toEqual(["art_new", "art_1"]);

    const empty = new QueryClient();
    empty.setQueryData(["artifacts", "thr_2", "list"], []);
    cacheThreadEvent(empty, frame("artifact:updated", { threadId: "thr_9", runId: "run_1", artifact: info() }));
    expect(empty.getQueryData(["artifacts", "thr_9", "list"])).toBeUndefined();
    expect(empty.getQueryData<ArtifactInfo[]>(["artifacts", "thr_2", "list"])).toEqual([]);
  });
});

describe("thread:updated", () => {
  it("reloads the thread's artifacts when it shows another branch, not on other changes", () => {
    const qc = new QueryClient();
    const thread = { id: "thr_1" } as Thread;
    qc.setQueryData(["artifacts", "thr_1", "list"], [info()]);
    qc.setQueryData(["artifacts", "thr_1", "one", "art_1", "latest"], { ...info(), content: "v1" });
    cacheThreadEvent(qc, frame("thread:updated", { threadId: "thr_1", thread }));
    expect(qc.getQueryState(["artifacts", "thr_1", "list"])?.isInvalidated).toBe(false);
    cacheThreadEvent(qc, frame("thread:updated", { threadId: "thr_1", thread, messages: [message()] }));
    expect(qc.getQueryState(["artifacts", "thr_1", "list"])?.isInvalidated).toBe(true);
    expect(qc.getQueryState(["artifacts", "thr_1", "one", "art_1", "latest"])?.isInvalidated).toBe(true);
  });
});
