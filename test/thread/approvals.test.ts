// A call to a tool that may change something waits for the user: approved, it runs once; declined, or
// not decided in APPROVAL_TIMEOUT_S (3 s in the tests), or stopped, it never runs and the model is told
// why; a restart of the thread's object while it waits keeps the question and the run goes on from
// where it stood. Against a real MCP server (test/mcp/server.mjs).
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PART_UNITS } from "../../worker/thread/store/long-text";
import { longestStored, script, type Socket, threadObject, until, upstreamRequests } from "../helpers";
import { createThreadVia, env, expectError, openSocketVia, tokenUsers } from "../http/util";

const { users, as, tokenEnv } = tokenUsers("carol", "dave");
const [carol, dave] = [as(users.carol), as(users.dave)];
const control = async (path: string) => (await fetch(`${env.MCP_CONTROL_URL}${path}`)).json<any>();
const calls = async (tool: string) => (await control("/calls")).filter((c: any) => c.tool === tool);
let server: { id: string; name: string };

beforeAll(async () => {
  const res = await carol("/api/mcp/servers", { body: { name: "ops", url: `${env.MCP_TEST_URL}/tools/mcp` } });
  expect(res.status).toBe(201);
  server = (await res.json<any>()).server;
});
beforeEach(() => control("/reset"));

const socket = (threadId: string) => openSocketVia(tokenEnv, `/api/threads/${threadId}/ws?since=0`, { authorization: `Bearer ${users.carol.token}` });

/** A message whose answer calls `tool` with `input` (then says "Done."); waits for the question. */
async function askedFor(tool: string, input: Record<string, unknown>) {
  const thread = await createThreadVia(carol);
  const ws = await socket(thread.id);
  const m = `[[approval-${crypto.randomUUID()}]]`;
  const toolUseId = `toolu_${crypto.randomUUID().slice(0, 8)}`;
  await script(m, [{ kind: "tool_use", text: "I will clean up.", tools: [{ name: `${server.name}__${tool}`, input, id: toolUseId }] }, { kind: "text", text: "Done." }]);
  expect((await carol(`/api/threads/${thread.id}/messages`, { body: { content: `clean up ${m}` } })).status).toBe(202);
  const frames = await ws.waitFor((f) => f.some((x) => x.event === "tool:approval"), 10_000, "tool:approval");
  const asked = frames.find((x) => x.event === "tool:approval")!.data;
  return { thread, ws, m, toolUseId, asked };
}

const decide = (threadId: string, runId: string, toolUseId: string, approve: boolean, call = carol) =>
  call(`/api/threads/${threadId}/runs/${runId}/approvals/${toolUseId}`, { body: { approve } });

/** The tool_result the model got for the call, in the request after it. */
async function resultSent(m: string) {
  const requests = await upstreamRequests(m);
  expect(requests).toHaveLength(2);
  return requests[1].body.messages.at(-1).content.find((b: any) => b.type === "tool_result");
}

const ended = (ws: Socket) => ws.waitForRunEnd(1, 15_000).then((f) => f.filter((x) => x.event === "pipeline:complete" || x.event === "pipeline:error").at(-1)!);

describe("a call that asks", () => {
  it("waits for the user, shown on the thread and in the list, and runs once when approved", async () => {
    const { thread, ws, m, toolUseId, asked } = await askedFor("delete_item", { id: "inv-7" });
    expect(asked).toMatchObject({ threadId: thread.id, toolUseId, toolName: "ops__delete_item", input: { id: "inv-7" } });
    expect(asked.expiresAt).toBeGreaterThan(Date.now());
    // Nothing ran yet; the thread and the owner's list show the question.
    expect(await calls("delete_item")).toHaveLength(0);
    const shown = (await (await carol(`/api/threads/${thread.id}`)).json<any>()).thread;
    expect(shown.pendingApprovals).toEqual([{ runId: asked.runId, toolUseId, toolName: "ops__delete_item", input: { id: "inv-7" }, expiresAt: asked.expiresAt }]);
    const listed = await until(
      async () => (await (await carol("/api/threads")).json<any>()).threads.find((t: any) => t.id === thread.id),
      (t) => t?.pendingApprovals?.length === 1,
    );
    expect(listed.pendingApprovals[0].toolUseId).toBe(toolUseId);

    const res = await decide(thread.id, asked.runId, toolUseId, true);
    expect(res.status).toBe(200);
    expect(await res.json<any>()).toMatchObject({ approve: true, approval: { toolUseId } });
    expect((await ended(ws)).event).toBe("pipeline:complete");
    expect(await calls("delete_item")).toHaveLength(1);
    expect(await resultSent(m)).toMatchObject({ content: "deleted inv-7" });
    // Decided: a second answer is 409, a call nobody asked about 404; the question is gone everywhere.
    await expectError(await decide(thread.id, asked.runId, toolUseId, false), 409, "conflict");
    await expectError(await decide(thread.id, asked.runId, "toolu_never", true), 404, "not_found");
    await expectError(await decide(thread.id, "run_other", toolUseId, true), 404, "not_found");
    expect((await (await carol(`/api/threads/${thread.id}`)).json<any>()).thread.pendingApprovals).toBeUndefined();
    await until(
      async () => (await (await carol("/api/threads")).json<any>()).threads.find((t: any) => t.id === thread.id),
      (t) => t.pendingApprovals === undefined,
    );
    ws.close();
  });

  it("never runs when declined, and the model is told so", async () => {
    const { thread, ws, m, toolUseId, asked } = await askedFor("delete_item", { id: "inv-8" });
    expect((await decide(thread.id, asked.runId, toolUseId, false)).status).toBe(200);
    expect((await ended(ws)).event).toBe("pipeline:complete");
    expect(await calls("delete_item")).toHaveLength(0);
    expect(await resultSent(m)).toMatchObject({ is_error: true, content: expect.stringMatching(/declined/) });
    ws.close();
  });

  it("is declined by itself after APPROVAL_TIMEOUT_S", async () => {
    const { ws, m } = await askedFor("delete_item", { id: "inv-9" });
    expect((await ended(ws)).event).toBe("pipeline:complete");
    expect(await calls("delete_item")).toHaveLength(0);
    expect(await resultSent(m)).toMatchObject({ is_error: true, content: expect.stringMatching(/Nobody approved/) });
    ws.close();
  });

  it("a stop while it waits ends the run, and the tool never runs", async () => {
    const { thread, ws, toolUseId, asked } = await askedFor("delete_item", { id: "inv-10" });
    expect((await carol(`/api/threads/${thread.id}/stop`, { body: {} })).status).toBe(202);
    const end = await ended(ws);
    expect(end.event).toBe("pipeline:error");
    expect(end.data.code).toBe("aborted");
    expect(await calls("delete_item")).toHaveLength(0);
    expect((await (await carol(`/api/threads/${thread.id}`)).json<any>()).thread.pendingApprovals).toBeUndefined();
    await expectError(await decide(thread.id, asked.runId, toolUseId, true), 409, "conflict");
    ws.close();
  });

  it("survives a restart of the thread's object: the question stays, and approving goes on from where the run stood", async () => {
    const { thread, ws, m, toolUseId, asked } = await askedFor("delete_item", { id: "inv-11" });
    ws.close();
    await abortAllDurableObjects();
    // The question is still there after the restart (a reload shows it).
    const shown = (await (await carol(`/api/threads/${thread.id}`)).json<any>()).thread;
    expect(shown.pendingApprovals.map((p: any) => p.toolUseId)).toEqual([toolUseId]);
    const again = await socket(thread.id);
    expect((await decide(thread.id, asked.runId, toolUseId, true)).status).toBe(200);
    const frames = await again.waitFor((f) => f.some((x) => (x.event === "pipeline:complete" || x.event === "pipeline:error") && x.data.runId === asked.runId), 15_000, "the run's end");
    const end = frames.find((x) => x.data?.runId === asked.runId && (x.event === "pipeline:complete" || x.event === "pipeline:error"))!;
    expect(end.event, JSON.stringify(end.data)).toBe("pipeline:complete");
    // The tool ran once; the model was asked once more, with the whole exchange; one answer, whole.
    expect(await calls("delete_item")).toHaveLength(1);
    const requests = await upstreamRequests(m);
    expect(requests).toHaveLength(2);
    expect(requests[1].body.messages.slice(-3).map((x: any) => x.role)).toEqual(["user", "assistant", "user"]);
    expect(await resultSent(m)).toMatchObject({ content: "deleted inv-11" });
    const { messages } = await (await carol(`/api/threads/${thread.id}/messages`)).json<any>();
    const answers = messages.filter((x: any) => x.role === "assistant" && x.kind === "text");
    expect(answers.map((x: any) => x.content)).toEqual(["I will clean up.\n\nDone."]);
    again.close();
  });
});

describe("a run that waits with more than a SQLite row holds (2 MB)", () => {
  it("keeps its point in parts, and goes on after a restart with the images it had", async () => {
    const thread = await createThreadVia(carol);
    const m = `[[approval-${crypto.randomUUID()}]]`;
    const toolUseId = `toolu_${crypto.randomUUID().slice(0, 8)}`;
    await script(m, [
      { kind: "tool_use", tools: [{ name: `${server.name}__screenshots`, input: { count: 3, kb: 900 }, id: `toolu_${crypto.randomUUID().slice(0, 8)}` }] },
      { kind: "tool_use", tools: [{ name: `${server.name}__delete_item`, input: { id: "inv-big" }, id: toolUseId }] },
      { kind: "text", text: "Done." },
    ]);
    const ws = await socket(thread.id);
    expect((await carol(`/api/threads/${thread.id}/messages`, { body: { content: `look, then clean up ${m}` } })).status).toBe(202);
    const asked = (await ws.waitFor((f) => f.some((x) => x.event === "tool:approval"), 10_000, "tool:approval")).find((x) => x.event === "tool:approval")!.data;
    ws.close();
    const longest = await longestStored(thread.id);
    expect(longest.length, longest.at).toBeLessThanOrEqual(PART_UNITS);

    await abortAllDurableObjects();
    const again = await socket(thread.id);
    expect((await decide(thread.id, asked.runId, toolUseId, true)).status).toBe(200);
    const frames = await again.waitFor((f) => f.some((x) => x.event === "pipeline:complete" && x.data.runId === asked.runId), 15_000, "the run's end");
    expect(frames.some((x) => x.event === "pipeline:error")).toBe(false);
    // The request after the approved call carries the screenshots as the first call answered them.
    const requests = await upstreamRequests(m);
    const images = (body: any): string[] => body.messages.flatMap((x: any) => (Array.isArray(x.content) ? x.content : []))
      .filter((b: any) => b.type === "tool_result").flatMap((b: any) => (Array.isArray(b.content) ? b.content : []))
      .filter((b: any) => b.type === "image").map((b: any) => b.source.data as string);
    const answered = images(requests[1].body);
    expect(answered.map((d) => d.length)).toEqual([900_000, 900_000, 900_000]);
    expect(images(requests.at(-1)!.body)).toEqual(answered);
    // The run ended: its point's parts went with it; its turns keep theirs.
    const kept = await runInDurableObject(threadObject(thread.id), (_r: DurableObject, state) =>
      state.storage.sql.exec<{ key: string }>("SELECT DISTINCT key FROM long_text ORDER BY key").toArray().map((r) => r.key.split("/")[0]));
    expect(kept).toEqual(["turn"]);
    again.close();
  });
});

describe("a tool's approval setting", () => {
  it("`always` asks for a read-only tool; `never` runs a destructive one without asking", async () => {
    expect((await carol(`/api/mcp/servers/${server.id}`, { method: "PATCH", body: { approval: { echo: "always", delete_item: "never" } } })).status).toBe(200);
    try {
      const { thread, ws, toolUseId, asked } = await askedFor("echo", { text: "hi" });
      expect(asked.toolName).toBe("ops__echo");
      expect((await decide(thread.id, asked.runId, toolUseId, true)).status).toBe(200);
      await ended(ws);
      ws.close();

      const quiet = await createThreadVia(carol);
      const qs = await socket(quiet.id);
      const m = `[[never-${crypto.randomUUID()}]]`;
      await script(m, [{ kind: "tool_use", tools: [{ name: "ops__delete_item", input: { id: "x" }, id: "toolu_never_asks" }] }, { kind: "text", text: "ok" }]);
      await carol(`/api/threads/${quiet.id}/messages`, { body: { content: m } });
      expect((await ended(qs)).event).toBe("pipeline:complete");
      expect(qs.frames.some((f) => f.event === "tool:approval")).toBe(false);
      expect(await calls("delete_item")).toHaveLength(1);
      qs.close();
    } finally {
      await carol(`/api/mcp/servers/${server.id}`, { method: "PATCH", body: { approval: { echo: "auto", delete_item: "auto" } } });
    }
  });

  it("is read when the call is made: switched to `always` while a run goes on, the next call asks first", async () => {
    expect((await carol(`/api/mcp/servers/${server.id}`, { method: "PATCH", body: { approval: { delete_item: "never" } } })).status).toBe(200);
    try {
      const thread = await createThreadVia(carol);
      const ws = await socket(thread.id);
      const m = `[[switched-${crypto.randomUUID()}]]`;
      const toolUseId = "toolu_switched";
      // The run's step 0 reads "never"; the call comes a few seconds later, after the switch.
      const slow = "Let me look at the items first, then I will clean up the old one.";
      await script(m, [{ kind: "tool_use", text: slow, delayMs: 150, tools: [{ name: "ops__delete_item", input: { id: "inv-9" }, id: toolUseId }] }, { kind: "text", text: "Done." }]);
      await carol(`/api/threads/${thread.id}/messages`, { body: { content: m } });
      await ws.waitFor((f) => f.some((x) => x.event === "pipeline:stream"), 10_000, "the first delta");
      expect((await carol(`/api/mcp/servers/${server.id}`, { method: "PATCH", body: { approval: { delete_item: "always" } } })).status).toBe(200);

      const frames = await ws.waitFor((f) => f.some((x) => x.event === "tool:approval"), 15_000, "tool:approval");
      expect(frames.find((x) => x.event === "tool:approval")!.data).toMatchObject({ toolUseId, toolName: "ops__delete_item" });
      expect(await calls("delete_item")).toHaveLength(0);
      const asked = frames.find((x) => x.event === "tool:approval")!.data;
      expect((await decide(thread.id, asked.runId, toolUseId, true)).status).toBe(200);
      expect((await ended(ws)).event).toBe("pipeline:complete");
      expect(await calls("delete_item")).toHaveLength(1);
      ws.close();
    } finally {
      await carol(`/api/mcp/servers/${server.id}`, { method: "PATCH", body: { approval: { delete_item: "auto" } } });
    }
  });
});

describe("another user", () => {
  it("cannot decide a call in someone else's thread", async () => {
    const { thread, ws, toolUseId, asked } = await askedFor("delete_item", { id: "inv-12" });
    await expectError(await decide(thread.id, asked.runId, toolUseId, true, dave), 404, "not_found");
    expect((await decide(thread.id, asked.runId, toolUseId, false)).status).toBe(200);
    await ended(ws);
    expect(await calls("delete_item")).toHaveLength(0);
    ws.close();
  });
});
