import type { ArtifactInfo, Message } from "@protocol";
import { describe, expect, it } from "vitest";
import { message } from "../testing/fixtures";
import { withArtifactCards } from "./artifactCards";
import type { ArtifactDraft } from "./artifactDrafts";
import type { LiveRun } from "./liveRun";
import type { TimelineItem } from "./timeline";
import { NO_WEB } from "./webActivity";

const msg = (id: string, over: Partial<Message> = {}): TimelineItem => ({ type: "message", key: id, message: message({ id, content: id, ...over }) });
const answer = (id: string, runId: string, parentId: string) => msg(id, { role: "assistant", metadata: { runId }, parentId });
const art = (id: string, messageId: string, updatedAt = 1): ArtifactInfo => ({ id, title: id, type: "markdown", language: null, version: 1, messageId, updatedAt });
const run = (runId: string, messageId: string): TimelineItem => ({
  type: "run",
  key: `run:${runId}`,
  run: { runId, messageId, status: "running", steps: [], blocks: [], text: "", web: NO_WEB, documents: [], code: [], inputs: [], wrote: {}, startedAt: 0 } as LiveRun,
  final: null,
  retryContent: null,
});

const draft = (toolUseId: string, messageId: string | null): ArtifactDraft => ({
  toolUseId, runId: "run_x", messageId, artifactId: null, title: "", type: null, language: null, content: "", complete: false,
});

const outline = (items: TimelineItem[]) =>
  items.map((i) =>
    i.type === "artifacts"
      ? `cards ${[...i.artifacts.map((a) => a.id), ...(i.drafts ?? []).map((d) => `(${d.toolUseId})`)].join(",")}`
      : i.type === "message" ? i.message.id : i.key,
  );

describe("withArtifactCards", () => {
  it("puts an exchange's cards after its answer, before the next message", () => {
    const items = [msg("u1"), answer("a1", "run_1", "u1"), msg("u2"), answer("a2", "run_2", "u2")];
    expect(outline(withArtifactCards(items, [art("art_1", "u1")]))).toEqual(["u1", "a1", "cards art_1", "u2", "a2"]);
    expect(outline(withArtifactCards(items, [art("art_2", "u2")]))).toEqual(["u1", "a1", "u2", "a2", "cards art_2"]);
  });

  it("comes after everything the run showed (activity, tools, errors), and after a live run", () => {
    const items: TimelineItem[] = [
      msg("u1"),
      { type: "activity", key: "activity:run_1", activity: { runId: "run_1", status: "complete", steps: [], toolCount: 1, searches: 0, fetches: 0 } },
      msg("t1", { role: "assistant", kind: "tool_call", metadata: { runId: "run_1" } }),
      answer("a1", "run_1", "u1"),
      msg("u2"),
      run("run_2", "u2"),
    ];
    expect(outline(withArtifactCards(items, [art("art_1", "u1"), art("art_2", "u2")]))).toEqual([
      "u1", "activity:run_1", "t1", "a1", "cards art_1", "u2", "run:run_2", "cards art_2",
    ]);
  });

  it("shows an exchange's artifacts together, oldest first, and stays before pending sends", () => {
    const items: TimelineItem[] = [msg("u1"), answer("a1", "run_1", "u1"), { type: "pending", key: "pending:c1", item: {} as never }];
    const cards = withArtifactCards(items, [art("art_b", "u1", 2), art("art_a", "u1", 1)]);
    expect(outline(cards)).toEqual(["u1", "a1", "cards art_a,art_b", "pending:c1"]);
    expect(cards[2].key).toBe("artifacts:u1");
  });

  it("puts the cards of artifacts being written after their exchange's others; those of an exchange not shown at the end", () => {
    const items: TimelineItem[] = [msg("u1"), answer("a1", "run_1", "u1"), msg("u2"), run("run_2", "u2"), { type: "pending", key: "pending:c1", item: {} as never }];
    const drafts = [draft("tu_1", "u2"), draft("tu_2", "u2"), draft("tu_3", null)];
    expect(outline(withArtifactCards(items, [art("art_1", "u1"), art("art_2", "u2")], drafts))).toEqual([
      "u1", "a1", "cards art_1", "u2", "run:run_2", "cards art_2,(tu_1),(tu_2)", "cards (tu_3)", "pending:c1",
    ]);
    // An exchange writing its first artifact has a card item of its drafts alone.
    expect(outline(withArtifactCards(items.slice(0, 4), [], [draft("tu_1", "u2")]))).toEqual(["u1", "a1", "u2", "run:run_2", "cards (tu_1)"]);
  });

  it("leaves out artifacts of an exchange not on screen, and changes nothing without artifacts", () => {
    const items = [msg("u2"), answer("a2", "run_2", "u2")];
    expect(outline(withArtifactCards(items, [art("art_old", "u_older_page")]))).toEqual(["u2", "a2"]);
    expect(withArtifactCards(items, [])).toBe(items);
  });
});
