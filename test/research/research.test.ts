// Research against the fake Messages API: a plan, its sub-questions researched by task threads at once
// (each its own object: the wall time is the slowest task's, not the sum), one report whose citations
// each point to a page a task found; a failed task named in the report; a budget that ends it early
// with a partial report that says so; stop cancelling every task; a restart mid-research ending in one
// report.
import { abortAllDurableObjects } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Research } from "../../protocol";
import { api, createThread, json, marker, script, settle, until, upstreamRequests } from "../helpers";

const start = async (threadId: string, body: Record<string, unknown>) => {
  const res = await api(`/api/threads/${threadId}/research`, { body });
  expect(res.status, await res.clone().text()).toBe(202);
  return (await res.json<{ research: Research }>()).research;
};
const read = async (threadId: string, id: string) => (await json<{ research: Research }>(api(`/api/threads/${threadId}/research/${id}`))).research;
const ended = (threadId: string, id: string, timeoutMs = 20_000) => until(() => read(threadId, id), (r) => ["done", "stopped", "failed"].includes(r.status), timeoutMs);
const artifact = async (threadId: string, id: string) => (await json<any>(api(`/api/threads/${threadId}/artifacts/${id}`))).artifact;

/** A task's answer: a search, a fetch, findings; streamed over about `ms`. */
function taskAnswer(n: number, ms = 0) {
  return {
    kind: "blocks" as const,
    blocks: [
      { type: "server_tool_use" as const, name: "web_search" as const, input: { query: `topic ${n}` } },
      { type: "web_search_tool_result" as const, results: [{ title: `Found ${n}`, url: `https://found.test/${n}` }] },
      { type: "server_tool_use" as const, name: "web_fetch" as const, input: { url: `https://fetched.test/${n}` } },
      { type: "web_fetch_tool_result" as const, url: `https://fetched.test/${n}`, title: `Page ${n}`, text: `Facts about ${n}.`, delayMs: ms },
      { type: "text" as const, text: `Finding ${n}: it holds (https://fetched.test/${n}).` },
    ],
  };
}

/** Scripts a research: the plan (sub-questions S1..Sn, at a cost of almost nothing), each task's answer, then the report. */
async function scripted(n: number, tasks: (i: number, sub: string) => object[], report: string) {
  const q = marker("q");
  const subs = Array.from({ length: n }, (_, i) => marker(`s${i + 1}`));
  // The question's script first: a task's request holds its marker too, and the latest script matching wins.
  const plan = JSON.stringify(subs.map((s, i) => `Part ${i + 1} ${s}`));
  await script(q, [{ kind: "text", text: plan, usage: { input_tokens: 10, output_tokens: 10 } }, { kind: "text", text: report }]);
  for (const [i, s] of subs.entries()) await script(s, tasks(i + 1, s) as any);
  return { q, subs };
}

beforeAll(async () => {
  // The tasks' results count as they are: the validator's model calls would take the scripts' answers.
  expect((await api("/api/plugins/validator", { method: "PATCH", body: { enabled: false } })).status).toBe(200);
});

describe("research", () => {
  it("researches 5 sub-questions at once: done in less than twice the slowest task, with a report citing what the tasks found", async () => {
    const thread = await createThread({ name: "research" });
    const report = "# What we found\n\nPart one holds [1]. Part two holds [2]. A guess [99]. A stray [link](https://elsewhere.test/x).";
    const { q } = await scripted(5, (i) => [taskAnswer(i, 2_000)], report);
    const started = Date.now();
    const r = await start(thread.id, { question: `${q} How do the parts hold?`, review: false, maxTasks: 5 });
    expect(r).toMatchObject({ status: "planning", question: `${q} How do the parts hold?`, artifactId: null });
    const done = await ended(thread.id, r.id);
    const wall = Date.now() - started;
    expect(done.status).toBe("done");
    expect(done.subquestions).toHaveLength(5);
    expect(done.subquestions.every((s) => s.status === "completed" && s.taskId)).toBe(true);
    // Each task ran about 2 s upstream; five in a queue would take 10 s.
    expect(wall).toBeLessThan(4_000);
    const taskStarts = await Promise.all(done.subquestions.map(async (s) => (await upstreamRequests(s.text.split(" ").at(-1)!))[0].receivedAt));
    expect(Math.max(...taskStarts) - Math.min(...taskStarts)).toBeLessThan(1_000);
    // Every source a task found, fetched ones marked.
    expect(done.subquestions[0].sources).toEqual(expect.arrayContaining([{ url: "https://fetched.test/1", title: "Page 1", fetched: true }, { url: "https://found.test/1", title: "Found 1" }]));
    expect(done.costUsd).toBeGreaterThan(0);
    // Each task thread is named after its sub-question.
    const child = (await json<any>(api(`/api/threads/${(await json<any>(api(`/api/tasks?threadId=${thread.id}`))).tasks[0].threadId}`))).thread;
    expect(child.name).toMatch(/^Task: Part \d /);

    const doc = await artifact(thread.id, done.artifactId!);
    expect(doc.type).toBe("markdown");
    expect(doc.title).toBe("What we found");
    const links = [...doc.content.matchAll(/\]\((https?:[^)]+)\)/g)].map((m) => m[1]);
    const fetched = new Set(done.subquestions.flatMap((s) => s.sources.filter((x) => x.fetched).map((x) => x.url)));
    expect(links.length).toBeGreaterThan(0);
    for (const url of links) expect(fetched.has(url), url).toBe(true);
    expect(doc.content).not.toContain("[99]");
    expect(doc.content).not.toContain("elsewhere.test");
    expect(doc.content).toContain("## Sources");

    // The thread holds the research's card, and no run reacted to the tasks' outcomes.
    const messages = (await json<any>(api(`/api/threads/${thread.id}/messages`))).messages;
    expect(messages.filter((m: any) => m.metadata?.researchId === r.id)).toHaveLength(1);
    expect(messages.some((m: any) => m.role === "assistant")).toBe(false);
    await settle();
  });

  it("names a sub-question whose task failed in the report", async () => {
    const thread = await createThread({ name: "research with a failure" });
    const failing = { kind: "error", status: 400, message: "this page is not for you" };
    const { q } = await scripted(3, (i) => (i === 2 ? [failing, failing] : [taskAnswer(i)]), "# Report\n\nOne [1].");
    const r = await start(thread.id, { question: `${q} three parts`, review: false, maxTasks: 3 });
    const done = await ended(thread.id, r.id);
    expect(done.status).toBe("done");
    expect(done.subquestions.map((s) => s.status)).toEqual(["completed", "failed", "completed"]);
    const doc = await artifact(thread.id, done.artifactId!);
    expect(doc.content).toContain("## Not answered");
    expect(doc.content).toContain(done.subquestions[1].text);
    await settle();
  });

  it("shows the plan for review, takes an edited plan, and runs it", async () => {
    const thread = await createThread({ name: "reviewed research" });
    const { q, subs } = await scripted(3, (i) => [taskAnswer(i)], "# Reviewed\n\nDone [1].");
    const r = await start(thread.id, { question: `${q} review me`, review: true, maxTasks: 3 });
    const review = await until(() => read(thread.id, r.id), (x) => x.status === "review");
    expect(review.subquestions.map((s) => s.status)).toEqual(["planned", "planned", "planned"]);
    const edited = [`Part 1 ${subs[0]}`, `Part 3, edited ${subs[2]}`];
    const res = await api(`/api/threads/${thread.id}/research/${r.id}/plan`, { body: { subquestions: edited } });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).research.subquestions.map((s: any) => s.text)).toEqual(edited);
    const done = await ended(thread.id, r.id);
    expect(done.status).toBe("done");
    expect(done.subquestions).toHaveLength(2);
    // A plan once taken is not taken again.
    expect((await api(`/api/threads/${thread.id}/research/${r.id}/plan`, { body: { subquestions: ["again"] } })).status).toBe(409);
    await settle();
  });

  it("ends early when its budget runs out: the tasks still running stop, and the report says it is partial", async () => {
    const thread = await createThread({ name: "research on a budget" });
    const slow = { kind: "text", text: "Still looking, slowly.", chunks: 8, delayMs: 400 };
    // The first task's answer costs $1.50 (100,000 output tokens): past the $0.50 budget.
    const costly = { ...taskAnswer(1), usage: { output_tokens: 100_000 } };
    const { q } = await scripted(3, (i) => (i === 1 ? [costly] : [slow]), "# Partial\n\nWhat there is [1].");
    const r = await start(thread.id, { question: `${q} on a budget`, review: false, maxTasks: 3, budgetUsd: 0.5 });
    const done = await ended(thread.id, r.id);
    expect(done.status).toBe("done");
    expect(done.note).toMatch(/budget/);
    expect(done.subquestions[0].status).toBe("completed");
    expect(done.subquestions.slice(1).map((s) => s.status)).toEqual(["cancelled", "cancelled"]);
    const doc = await artifact(thread.id, done.artifactId!);
    expect(doc.content).toMatch(/^> \*\*Partial report\.\*\*/);
    await settle();
  });

  it("stop cancels every task at once", async () => {
    const thread = await createThread({ name: "stopped research" });
    const slow = { kind: "text", text: "Taking my time.", chunks: 10, delayMs: 400 };
    const { q } = await scripted(4, () => [slow], "unused");
    const r = await start(thread.id, { question: `${q} stop me`, review: false, maxTasks: 4 });
    await until(() => read(thread.id, r.id), (x) => x.status === "running" && x.subquestions.every((s) => s.taskId));
    const res = await api(`/api/threads/${thread.id}/research/${r.id}/stop`, { method: "POST" });
    expect(res.status).toBe(200);
    const stopped = (await res.json<any>()).research as Research;
    expect(stopped.status).toBe("stopped");
    expect(stopped.subquestions.map((s) => s.status)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled"]);
    const tasks = (await json<any>(api(`/api/tasks?threadId=${thread.id}`))).tasks;
    expect(tasks.map((t: any) => t.status)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled"]);
    expect(stopped.artifactId).toBeNull();
    await settle();
  });

  it("ends in one report after a restart of its thread mid-research", async () => {
    const thread = await createThread({ name: "research across a restart" });
    const { q } = await scripted(3, (i) => [taskAnswer(i, 1_500), taskAnswer(i, 0)], "# After the restart\n\nStill [1].");
    const r = await start(thread.id, { question: `${q} restart`, review: false, maxTasks: 3 });
    await until(() => read(thread.id, r.id), (x) => x.status === "running" && x.subquestions.every((s) => s.taskId));
    await abortAllDurableObjects();
    const done = await ended(thread.id, r.id, 30_000);
    expect(done.status).toBe("done");
    expect(done.subquestions.every((s) => s.status === "completed")).toBe(true);
    const { artifacts } = await json<any>(api(`/api/threads/${thread.id}/artifacts`));
    expect(artifacts).toHaveLength(1);
    await settle(30_000);
  });

  it("refuses a bad request and reaches only the caller's researches", async () => {
    const thread = await createThread({ name: "bad research" });
    expect((await api(`/api/threads/${thread.id}/research`, { body: { question: "" } })).status).toBe(400);
    expect((await api(`/api/threads/${thread.id}/research`, { body: { question: "x", maxTasks: 99 } })).status).toBe(400);
    expect((await api(`/api/threads/${thread.id}/research/res_nope`)).status).toBe(404);
    expect((await api(`/api/threads/${thread.id}/research/res_nope/stop`, { method: "POST" })).status).toBe(404);
  });
});
