import { QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it, vi } from "vitest";
import { frame, research, subquestion } from "../testing/fixtures";
import { cacheThreadEvent } from "./threadEvents";
import { cachedResearches, putResearch, researchQuery } from "./research";

afterEach(() => vi.unstubAllGlobals());

const running = research({ subquestions: [subquestion({ taskId: "task_a", status: "running" })] });
const found = research({
  costUsd: 0.03,
  subquestions: [subquestion({ taskId: "task_a", status: "running", sources: [{ url: "https://example.com/a", title: "A" }] })],
});

describe("research:updated on the thread's socket", () => {
  it("puts the research in its card's cache entry", () => {
    const qc = new QueryClient();
    const key = researchQuery("thr_1", "res_1").queryKey;
    cacheThreadEvent(qc, frame("research:updated", { threadId: "thr_1", research: running }));
    expect(qc.getQueryData(key)).toEqual(running);
    cacheThreadEvent(qc, frame("research:updated", { threadId: "thr_1", research: found }, 2));
    expect(qc.getQueryData(key)).toEqual(found);
    // Another research of the thread has its own entry.
    cacheThreadEvent(qc, frame("research:updated", { threadId: "thr_1", research: research({ id: "res_2", status: "planning" }) }, 3));
    expect(qc.getQueryData(key)).toEqual(found);
  });

  it("is not undone by an older copy (an answer to a call made before the frame)", () => {
    const qc = new QueryClient();
    putResearch(qc, found);
    putResearch(qc, running);
    expect(qc.getQueryData(researchQuery("thr_1", "res_1").queryKey)).toEqual(found);
  });
});

describe("the card's read (GET research)", () => {
  it("keeps a frame that came while the read was on its way", async () => {
    const qc = new QueryClient();
    let answer!: (r: Response) => void;
    vi.stubGlobal("fetch", vi.fn(() => new Promise<Response>((r) => (answer = r))));
    const read = qc.fetchQuery(researchQuery("thr_1", "res_1"));
    await vi.waitFor(() => expect(answer).toBeTypeOf("function"));
    cacheThreadEvent(qc, frame("research:updated", { threadId: "thr_1", research: found }));
    answer(new Response(JSON.stringify({ research: running }), { status: 200, headers: { "content-type": "application/json" } }));
    expect(await read).toEqual(found);
    expect(qc.getQueryData(researchQuery("thr_1", "res_1").queryKey)).toEqual(found);
  });

  it("asks the research's route of its thread", async () => {
    const qc = new QueryClient();
    const fetch = vi.fn(async () => new Response(JSON.stringify({ research: running }), { status: 200 }));
    vi.stubGlobal("fetch", fetch);
    expect(await qc.fetchQuery(researchQuery("thr_1", "res_1"))).toEqual(running);
    expect(fetch.mock.calls[0]).toEqual(["/api/threads/thr_1/research/res_1", expect.objectContaining({ method: "GET" })]);
  });
});

describe("the researches a page holds", () => {
  it("are its thread's, oldest first", () => {
    const qc = new QueryClient();
    putResearch(qc, research({ id: "res_2", startedAt: 20_000 }));
    putResearch(qc, research({ id: "res_1", startedAt: 10_000 }));
    putResearch(qc, research({ id: "res_9", threadId: "thr_9" }));
    expect(cachedResearches(qc, "thr_1").map((r) => r.id)).toEqual(["res_1", "res_2"]);
  });
});
