// The artifacts plugin (PROTOCOL.md, "Artifacts"): create and update (whole or one exact replacement),
// each a version; its errors and limits as tool errors; versions on the branch that wrote them; the
// next turn's prompt lists them; exports carry them. (Isolation: test/http/isolation.test.ts.)
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_ARTIFACTS_PER_THREAD } from "../../protocol";
import { api, createThread, json, marker, messagesOf, script, settle, Socket, threadObject, upstreamRequests } from "../helpers";

afterEach(() => settle());

/** A tool call; `chunks`: how many pieces its input streams in (the fake's default is 12 characters a piece). */
type Call = { name: string; input: Record<string, unknown>; chunks?: number };

/** One exchange whose model calls `calls` (one tool round each, or all in one round), then answers. */
async function exchange(threadId: string, ws: Socket, runs: number, calls: Call[], m = marker("art"), oneRound = false): Promise<string> {
  const uses = calls.map((c, i) => ({ name: `artifacts__${c.name}`, input: c.input, id: `toolu_${i}_${m.slice(-8)}`, ...(c.chunks ? { chunks: c.chunks } : {}) }));
  const rounds = oneRound ? [{ kind: "tool_use" as const, tools: uses }] : uses.map((u) => ({ kind: "tool_use" as const, tools: [u] }));
  await script(m, [...rounds, { kind: "text" as const, text: "Done." }]);
  expect((await api(`/api/threads/${threadId}/messages`, { body: { content: `please ${m}` } })).status).toBe(202);
  await ws.waitForRunEnd(runs);
  return m;
}

/** The tool results the model was given in the exchange marked `m` (its calls' ids end with it), in order. */
async function toolResults(m: string): Promise<{ content: string; isError: boolean }[]> {
  const requests = await upstreamRequests(m);
  const last = requests.at(-1)!.body.messages as { role: string; content: any }[];
  return last
    .flatMap((msg) => (Array.isArray(msg.content) ? msg.content : []))
    .filter((b: any) => b.type === "tool_result" && b.tool_use_id.endsWith(m.slice(-8)))
    .map((b: any) => ({ content: typeof b.content === "string" ? b.content : b.content.map((c: any) => c.text).join(""), isError: b.is_error === true }));
}

const list = async (threadId: string) => (await json(await api(`/api/threads/${threadId}/artifacts`))).artifacts;
const one = async (threadId: string, id: string, version?: number) => api(`/api/threads/${threadId}/artifacts/${id}${version ? `?version=${version}` : ""}`);

describe("artifacts", () => {
  it("create, then update whole and by one exact replacement: each a version; artifact:updated without content", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = await exchange(thread.id, ws, 1, [{ name: "create", input: { title: "Plan", type: "markdown", content: "# Plan\n\nstep one" } }]);
    const [made] = await list(thread.id);
    expect(made).toMatchObject({ title: "Plan", type: "markdown", language: null, version: 1 });
    const [event] = ws.events("artifact:updated");
    expect(event.data.artifact).toEqual(made);
    expect(event.data).not.toHaveProperty("artifact.content");
    expect((await toolResults(m))[0]).toEqual({ content: `Created artifact ${made.id} "Plan" (markdown), version 1.`, isError: false });

    await exchange(thread.id, ws, 2, [
      { name: "update", input: { id: made.id, content: "# Plan\n\nstep one\nstep two" } },
      { name: "update", input: { id: made.id, old_str: "step two", new_str: "step 2" } },
    ]);
    const latest = await json(await one(thread.id, made.id));
    expect(latest.artifact).toMatchObject({ version: 3, content: "# Plan\n\nstep one\nstep 2" });
    expect(latest.artifact.versions.map((v: any) => v.version)).toEqual([1, 2, 3]);
    expect((await json(await one(thread.id, made.id, 1))).artifact.content).toBe("# Plan\n\nstep one");
    ws.close();
  });

  it("refuses what it cannot do as a tool error the model reads: a bad type, an ambiguous or missing old_str, an unknown id, too large", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m0 = await exchange(thread.id, ws, 1, [{ name: "create", input: { title: "Code", type: "code", language: "ts", content: "let a = 1;\nlet a = 1;" } }]);
    const [code] = await list(thread.id);
    expect((await toolResults(m0))[0].isError).toBe(false);
    const m = await exchange(thread.id, ws, 2, [
      { name: "create", input: { title: "X", type: "pdf", content: "x" } },
      { name: "update", input: { id: code.id, old_str: "let a = 1;", new_str: "let b = 2;" } },
      { name: "update", input: { id: code.id, old_str: "nowhere", new_str: "x" } },
      { name: "update", input: { id: "art_missing", content: "x" } },
      // In 256 pieces: at 12 characters a piece, its 87,000 deltas alone took most of the run's 5 s.
      { name: "create", input: { title: "Huge", type: "markdown", content: "x".repeat(1024 * 1024 + 1) }, chunks: 256 },
      { name: "update", input: { id: code.id, content: "y", old_str: "a", new_str: "b" } },
    ], marker("art"), true);
    const results = await toolResults(m);
    expect(results.map((r) => r.isError)).toEqual([true, true, true, true, true, true]);
    expect(results[0].content).toMatch(/type must be one of markdown, code, html, svg, mermaid/);
    expect(results[1].content).toMatch(/occurs more than once/);
    expect(results[2].content).toMatch(/does not occur/);
    expect(results[3].content).toMatch(/No artifact "art_missing"/);
    expect(results[4].content).toMatch(/at most 1 MiB/);
    expect(results[5].content).toMatch(/either content, or old_str with new_str/);
    expect((await list(thread.id)).map((a: any) => [a.id, a.version])).toEqual([[code.id, 1]]);
    ws.close();
  });

  it(`holds a thread to ${MAX_ARTIFACTS_PER_THREAD} artifacts`, async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await exchange(thread.id, ws, 1, [{ name: "create", input: { title: "first", type: "svg", content: "<svg/>" } }]);
    await runInDurableObject(threadObject(thread.id), (_r: DurableObject, state) => {
      for (let i = 1; i < MAX_ARTIFACTS_PER_THREAD; i++) state.storage.sql.exec("INSERT INTO artifacts (id, title, type, created_at) VALUES (?, 't', 'svg', 0)", `art_fill_${i}`);
    });
    const m = await exchange(thread.id, ws, 2, [{ name: "create", input: { title: "one too many", type: "svg", content: "<svg/>" } }]);
    expect((await toolResults(m))[0]).toMatchObject({ isError: true, content: expect.stringMatching(/already holds 200 artifacts/) });
    ws.close();
  });

  it("lives on its branch: a regenerated reply's versions and the other branch's stay apart", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await exchange(thread.id, ws, 1, [{ name: "create", input: { title: "Doc", type: "markdown", content: "v1" } }]);
    const [doc] = await list(thread.id);
    await exchange(thread.id, ws, 2, [{ name: "update", input: { id: doc.id, content: "v2 on the first branch" } }]);
    const second = (await messagesOf(thread.id, "?kinds=text")).messages.filter((x: any) => x.role === "user")[1];
    // Regenerating the second exchange: a new branch from the first, where Doc is at version 1.
    const m = marker("regen");
    await script(m, [{ kind: "tool_use", tools: [{ name: "artifacts__update", input: { id: doc.id, content: "v3 on the second branch" }, id: "toolu_regen" }] }, { kind: "text", text: "ok" }]);
    const edited = await api(`/api/threads/${thread.id}/messages/${second.id}/edit`, { body: { content: `again ${m}` } });
    expect(edited.status).toBe(202);
    await ws.waitForRunEnd(3);
    const onSecond = (await json(await one(thread.id, doc.id))).artifact;
    expect(onSecond).toMatchObject({ version: 3, content: "v3 on the second branch" });
    expect(onSecond.versions.map((v: any) => v.version)).toEqual([1, 3]);
    expect((await one(thread.id, doc.id, 2)).status).toBe(404);
    // Back on the first branch: version 2, and version 3 is not there.
    expect((await api(`/api/threads/${thread.id}/head`, { method: "PUT", body: { messageId: second.id } })).status).toBe(200);
    expect((await json(await one(thread.id, doc.id))).artifact).toMatchObject({ version: 2, content: "v2 on the first branch" });
    expect((await one(thread.id, doc.id, 3)).status).toBe(404);
    ws.close();
  });

  it("the next turn's prompt lists the branch's artifacts, and exports carry them", async () => {
    const thread = await createThread({ name: "export me" });
    const ws = await Socket.open(thread.id);
    await exchange(thread.id, ws, 1, [{ name: "create", input: { title: "Chart", type: "mermaid", content: "graph TD; A-->B" } }]);
    const [chart] = await list(thread.id);
    const next = marker("next");
    await script(next, [{ kind: "text", text: "noted" }]);
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: `change the title ${next}` } })).status).toBe(202);
    await ws.waitForRunEnd(2);
    const [request] = await upstreamRequests(next);
    expect(JSON.stringify(request.body.messages.at(-1))).toContain(`${chart.id}: \\"Chart\\" (mermaid), version 1`);
    // Tool definitions stay the same from turn to turn (the prompt cache).
    const tools = (req: any) => JSON.stringify(req.body.tools.filter((t: any) => t.name.startsWith("artifacts__")));
    expect(tools(request)).toBe(tools((await upstreamRequests(next)).at(-1)));

    const md = await (await api(`/api/threads/${thread.id}/export?format=markdown`)).text();
    expect(md).toContain("## Artifacts\n\n### Chart\n\n_mermaid, version 1_\n\n```mermaid\ngraph TD; A-->B\n```");
    const exported = await json(await api(`/api/threads/${thread.id}/export?format=json`));
    expect(exported.artifacts).toEqual([expect.objectContaining({ id: chart.id, content: "graph TD; A-->B", version: 1 })]);
    ws.close();
  });
});
