// Projects (PROTOCOL.md, "Projects"): a project's instructions and text files reach its threads' system
// prompt after the context files and before the thread's own instructions, in the cached prefix (which
// stays ≥ 98% of each request across ten turns); its memory folder is shared by its threads only; its
// deletion keeps its threads, out of it, and deletes its files. (Isolation: test/http/isolation.test.ts.)
import { afterEach, describe, expect, it } from "vitest";
import { marker, script, settle, systemText, until, upstreamRequests } from "../helpers";
import { env, openSocketVia, tokenUsers } from "../http/util";

afterEach(() => settle());


/** A request's blocks as the prompt cache sees them, and its last breakpoint (scripts/bench/scenarios.mjs). */
function cacheBlocks(body: any) {
  const blocks = [
    ...(body.tools ?? []),
    ...(body.system ?? []),
    ...body.messages.flatMap((m: any) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content)),
  ];
  const breakpoint = blocks.findLastIndex((b: any) => b.cache_control);
  return { text: blocks.map((b: any) => JSON.stringify(b, (k, v) => (k === "cache_control" ? undefined : v))), breakpoint };
}

async function projectUser() {
  const { users, as, tokenEnv } = tokenUsers("maker");
  const call = as(users.maker);
  const socket = (threadId: string) => openSocketVia(tokenEnv, `/api/threads/${threadId}/ws`, { authorization: `Bearer ${users.maker.token}` });
  return { users, call, socket };
}

describe("projects", () => {
  it("put their instructions and text files after the context files and before the thread's instructions, in a prefix that stays cached", async () => {
    const { call, socket } = await projectUser();
    expect((await call("/api/context/notes.md", { method: "PUT", body: { content: "CONTEXT-FILE-TEXT" } })).status).toBe(200);
    const { project } = await (await call("/api/projects", { body: { name: "Garden", instructions: "PROJECT-INSTRUCTIONS" } })).json<any>();
    // 20 KB of project notes, as the bench's cache line carries 20 KB of context.
    const notes = `PROJECT-FILE-TEXT\n\n${"Notes the whole project shares. ".repeat(640)}`;
    const upload = await call(`/api/projects/${project.id}/files?name=plan.md`, { body: notes, headers: { "content-type": "text/markdown" } });
    expect(upload.status).toBe(201);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    expect((await call(`/api/projects/${project.id}/files?name=map.png`, { body: png as any, headers: { "content-type": "image/png" } })).status).toBe(201);
    // Named, so no title renames it after its first run (the thread's own block would change then).
    const thread = (await (await call("/api/threads", { body: { projectId: project.id, name: "Beds" } })).json<any>()).thread;
    expect(thread.projectId).toBe(project.id);
    expect((await call(`/api/threads/${thread.id}`, { method: "PATCH", body: { instructions: "THREAD-INSTRUCTIONS" } })).status).toBe(200);
    const ws = await socket(thread.id);
    const m = marker("project");
    await script(m, Array.from({ length: 10 }, (_, i) => ({ kind: "text" as const, text: `Answer ${i}: ${"it fits the plan. ".repeat(6)}` })));
    for (let i = 0; i < 10; i++) {
      expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `Question ${i} ${m}` } })).status).toBe(202);
      await ws.waitForRunEnd(i + 1);
    }
    ws.close();
    // The runs' requests (a new thread's title is asked for apart, without tools).
    const requests = (await upstreamRequests(m)).filter((r) => r.body.tools?.length);
    expect(requests).toHaveLength(10);
    const system = systemText(requests[0].body);
    const at = (s: string) => system.indexOf(s);
    expect(at("CONTEXT-FILE-TEXT")).toBeGreaterThan(-1);
    expect(at("CONTEXT-FILE-TEXT")).toBeLessThan(at("# Project: Garden"));
    expect(at("# Project: Garden")).toBeLessThan(at("PROJECT-INSTRUCTIONS"));
    expect(at("PROJECT-INSTRUCTIONS")).toBeLessThan(at("PROJECT-FILE-TEXT"));
    expect(at("PROJECT-FILE-TEXT")).toBeLessThan(at("THREAD-INSTRUCTIONS"));
    expect(system).toContain("map.png (image/png)");
    // Its image opens the first user turn of every request, as the same bytes (the cached prefix).
    const opening = requests.map((r) => r.body.messages[0].content[0]);
    expect(opening[0]).toMatchObject({ type: "image", source: { type: "base64", media_type: "image/png" } });
    expect(new Set(opening.map((b: any) => b.source.data)).size).toBe(1);
    expect(requests[1].body.messages.filter((x: any) => JSON.stringify(x).includes(opening[0].source.data))).toHaveLength(1);
    // The project's part is in a cached block: the breakpoint is after it, and it is before the thread's block.
    const blocks = requests[0].body.system as { text: string; cache_control?: unknown }[];
    const projectBlock = blocks.findIndex((b) => b.text.includes("PROJECT-FILE-TEXT"));
    expect(blocks.slice(projectBlock).some((b) => b.cache_control)).toBe(true);
    // Each request from the second on: the share that is a prefix identical to the one before, up to its breakpoint.
    const seen = requests.map((r) => cacheBlocks(r.body));
    for (let k = 1; k < seen.length; k++) {
      const [prev, cur] = [seen[k - 1], seen[k]];
      let same = 0;
      for (let i = 0; i <= cur.breakpoint && i < prev.text.length && prev.text[i] === cur.text[i]; i++) same += cur.text[i].length;
      expect((same / cur.text.reduce((n, t) => n + t.length, 0)) * 100).toBeGreaterThanOrEqual(98);
    }
  });

  it("share a memory folder between their threads, and not with threads outside them", async () => {
    const { call, socket } = await projectUser();
    const { project } = await (await call("/api/projects", { body: { name: "Shared mind" } })).json<any>();
    const inside = [1, 2].map(() => call("/api/threads", { body: { projectId: project.id } }));
    const [a, b] = await Promise.all(inside.map(async (r) => (await (await r).json<any>()).thread));
    const outside = (await (await call("/api/threads", { body: {} })).json<any>()).thread;
    const ask = async (thread: any, input: Record<string, unknown>) => {
      const ws = await socket(thread.id);
      const m = marker("mem");
      await script(m, [{ kind: "tool_use", tools: [{ name: "memory", input, id: `toolu_${m.slice(-8)}` }] }, { kind: "text", text: "ok" }]);
      expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: m } })).status).toBe(202);
      await ws.waitForRunEnd(1);
      ws.close();
      const requests = (await upstreamRequests(m)).filter((r) => r.body.tools?.length);
      const results = requests.at(-1)!.body.messages.flatMap((x: any) => (Array.isArray(x.content) ? x.content : [])).filter((c: any) => c.type === "tool_result");
      return JSON.stringify(results.at(-1).content);
    };
    expect(await ask(a, { command: "create", path: "/memories/garden.md", file_text: "tomatoes in May" })).toContain("File created");
    expect(await ask(b, { command: "view", path: "/memories/garden.md" })).toContain("tomatoes in May");
    expect(await ask(outside, { command: "view", path: "/memories/garden.md" })).not.toContain("tomatoes in May");
    expect(await ask(outside, { command: "view", path: "/memories" })).not.toContain("projects");
    // Stored under the project's folder of the owner's files.
    const { files } = await (await call("/api/context")).json<any>();
    expect(files.map((f: any) => f.path)).toContain(`memories/projects/${project.id}/garden.md`);
  });

  it("when deleted, keep their threads (out of the project) and delete their files; search can be narrowed to one", async () => {
    const { call, socket } = await projectUser();
    const { project } = await (await call("/api/projects", { body: { name: "Short-lived" } })).json<any>();
    const { file } = await (await call(`/api/projects/${project.id}/files?name=a.txt`, { body: "bytes", headers: { "content-type": "text/plain" } })).json<any>();
    const thread = (await (await call("/api/threads", { body: { projectId: project.id, name: "in it" } })).json<any>()).thread;
    const other = (await (await call("/api/threads", { body: { name: "not in it" } })).json<any>()).thread;
    const word = marker("narrow");
    await script(word, [{ kind: "text", text: `found ${word}` }, { kind: "text", text: `found ${word}` }]);
    for (const t of [thread, other]) {
      const ws = await socket(t.id);
      expect((await call(`/api/threads/${t.id}/messages`, { body: { content: `look ${word}` } })).status).toBe(202);
      await ws.waitForRunEnd(1);
      ws.close();
    }
    const search = async (q: string) => (await (await call(q)).json<any>()).results.map((r: any) => r.threadId);
    await until(() => search(`/api/search?q=${word}`), (ids) => ids.length === 4);
    expect(new Set(await search(`/api/search?q=${word}&projectId=${project.id}`))).toEqual(new Set([thread.id]));

    const listed = await call("/api/threads");
    expect((await listed.json<any>()).threads.find((t: any) => t.id === thread.id).projectId).toBe(project.id);
    expect((await call(`/api/projects/${project.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`/api/projects/${project.id}`)).status).toBe(404);
    const after = await until(async () => (await (await call(`/api/threads/${thread.id}`)).json<any>()).thread, (t) => t.projectId === null);
    expect(after.name).toBe("in it");
    expect((await (await call("/api/threads")).json<any>()).threads.find((t: any) => t.id === thread.id).projectId).toBeNull();
    const keys = (await env.FILES.list({ prefix: "" })).objects.map((o) => o.key).filter((k) => k.includes(project.id));
    expect(keys).toEqual([]);
    expect(file.id).toMatch(/^pfl_/);
  });
});
