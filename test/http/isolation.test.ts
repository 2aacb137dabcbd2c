// A second user calls every route of the protocol with the first user's ids: each answers 404 (or 403
// for what only admins may do), or, for a route that lists, lists only the caller's own; and afterwards
// nothing of the first user's has changed.
import { describe, expect, it } from "vitest";
import type { Route } from "../../protocol";
import { script, userObject } from "../helpers";
import { callApp, createThreadVia, env, openSocketVia, tokenUsers, type Env } from "./util";

const { users, as, tokenEnv } = tokenUsers("alice", "bob");
const [alice, bob] = [as(users.alice), as(users.bob)];
const WORD = `zebrafinch${crypto.randomUUID().slice(0, 6)}`;

interface Ids {
  thread: string;
  message: string;
  attachment: string;
  task: string;
  path: string;
  schedule: string;
  artifact: string;
  share: string;
  project: string;
  projectFile: string;
  server: string;
  key: string;
}

/** Alice's project, with a file, that her thread is in. */
async function aliceProject(threadId: string): Promise<{ project: string; projectFile: string }> {
  const { project } = await (await alice("/api/projects", { body: { name: `project ${WORD}`, instructions: `be ${WORD}` } })).json<any>();
  const { file } = await (await alice(`/api/projects/${project.id}/files?name=p.txt`, { body: `notes ${WORD}`, headers: { "content-type": "text/plain" } })).json<any>();
  expect((await alice(`/api/threads/${threadId}`, { method: "PATCH", body: { projectId: project.id } })).status).toBe(200);
  return { project: project.id, projectFile: file.id };
}

/** An artifact the model writes in Alice's thread (its title holds the word Bob must never see). */
async function aliceArtifact(threadId: string): Promise<string> {
  const ws = await openSocketVia(tokenEnv, `/api/threads/${threadId}/ws`, { authorization: `Bearer ${users.alice.token}` });
  const m = `[[isolation-artifact-${WORD}]]`;
  await script(m, [
    { kind: "tool_use", tools: [{ name: "artifacts__create", input: { title: `plan ${WORD}`, type: "markdown", content: `# ${WORD}` }, id: "toolu_iso_art" }] },
    { kind: "text", text: "Made it." },
  ]);
  expect((await alice(`/api/threads/${threadId}/messages`, { body: { content: `write it ${m}` } })).status).toBe(202);
  await ws.waitForRunEnd(1);
  ws.close();
  const { artifacts } = await (await alice(`/api/threads/${threadId}/artifacts`)).json<any>();
  expect(artifacts).toHaveLength(1);
  return artifacts[0].id;
}

/** Alice's MCP server (its name holds the word Bob must never see; its header's value too). */
async function aliceServer(): Promise<string> {
  const res = await alice("/api/mcp/servers", { body: { name: WORD, url: `${env.MCP_TEST_URL}/tools/mcp`, headers: { "x-key": WORD } } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json<any>()).server.id;
}

/** Alice's API key (its name holds the word Bob must never see). */
async function aliceKey(): Promise<string> {
  const res = await alice("/api/keys", { body: { name: `key ${WORD}` } });
  expect(res.status).toBe(201);
  return (await res.json<any>()).key.id;
}

/** Alice's thread with an answered message, an attachment, a task, a context file, a schedule and an artifact. */
async function aliceData(): Promise<Ids> {
  const thread = await createThreadVia(alice, { name: `alice ${WORD}` });
  const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.alice.token}` });
  const posted = await alice(`/api/threads/${thread.id}/messages`, { body: { content: `about the ${WORD}` } });
  const { message } = await posted.json<any>();
  await ws.waitForRunEnd();
  ws.close();
  const upload = await alice(`/api/threads/${thread.id}/attachments?name=a.txt`, { body: "alice's file", headers: { "content-type": "text/plain" } });
  const { attachment } = await upload.json<any>();
  const child = (await createThreadVia(alice, { kind: "task", name: "alice's task thread" })).id;
  const task = `task_${crypto.randomUUID().slice(0, 8)}`;
  const now = Date.now();
  const row = { id: task, ownerId: users.alice.id, threadId: child, parentThreadId: thread.id, status: "running" as const, prompt: "p", result: null, model: null, depth: 1, maxIterations: 3, currentIteration: 1, costUsd: 0, verdict: null, createdAt: now, updatedAt: now };
  expect(await userObject(users.alice.id).createTask(row, { perThread: 10, perDay: 100 })).toEqual({ ok: true });
  const path = `alice-${WORD}.md`;
  expect((await alice(`/api/context/${path}`, { method: "PUT", body: { content: "alice's notes" } })).status).toBe(200);
  await alice("/api/plugins"); // the first read of plugins stores their defaults
  const made = await alice(`/api/threads/${thread.id}/schedules`, { body: { prompt: `remind me of the ${WORD}`, every: 3600 } });
  expect(made.status).toBe(201);
  const { schedule } = await made.json<any>();
  return { thread: thread.id, message: message.id, attachment: attachment.id, task, path, schedule: schedule.id, artifact: await aliceArtifact(thread.id), share: (await (await alice(`/api/threads/${thread.id}/shares`, { method: "POST" })).json<any>()).share.id, ...(await aliceProject(thread.id)), server: await aliceServer(), key: await aliceKey() };
}

/** Everything of Alice's that a probe could change, as she sees it. */
async function snapshot(ids: Ids) {
  const read = async (path: string) => {
    const res = await alice(path);
    return `${res.status} ${await res.text()}`;
  };
  return {
    thread: await read(`/api/threads/${ids.thread}`),
    messages: await read(`/api/threads/${ids.thread}/messages`),
    attachment: await read(`/api/threads/${ids.thread}/attachments/${ids.attachment}`),
    tasks: await read(`/api/tasks?threadId=${ids.thread}`),
    schedules: await read("/api/schedules"),
    threadSchedules: await read(`/api/threads/${ids.thread}/schedules`),
    artifact: await read(`/api/threads/${ids.thread}/artifacts/${ids.artifact}`),
    shares: await read("/api/shares"),
    projects: await read("/api/projects"),
    projectFiles: await read(`/api/projects/${ids.project}/files`),
    servers: await read("/api/mcp/servers"),
    keys: await read("/api/keys"),
    context: await read(`/api/context/${ids.path}`),
    usage: await read("/api/metrics"),
    plugins: JSON.stringify((await env.DB.prepare("SELECT name, enabled, settings FROM plugin_configs ORDER BY name").all()).results),
  };
}

type Probe = (ids: Ids) => Promise<void>;
const status = (expected: number, path: (ids: Ids) => string, opts: (ids: Ids) => Parameters<typeof bob>[1] = () => ({})): Probe =>
  async (ids) => {
    const res = await bob(path(ids), opts(ids));
    expect(res.status, `${path(ids)}: ${await res.clone().text()}`).toBe(expected);
    expect(await res.text()).not.toContain(WORD);
  };
const notFound = (path: (ids: Ids) => string, opts?: (ids: Ids) => Parameters<typeof bob>[1]) => status(404, path, opts);
const listsNothingOfAlice = (path: (ids: Ids) => string): Probe => status(200, path);

/** Every route of the protocol (the compiler holds this list to protocol/api.ts). */
const PROBES: Record<Route, Probe> = {
  "GET /api/health": async () => {
    const health = await (await bob("/api/health")).json<any>();
    expect(health.auth.userId).toBe(users.bob.id);
  },
  "GET /api/models": status(200, () => "/api/models"),
  "POST /api/threads": async (ids) => {
    // Bob's new thread is his; no id of Alice's can be chosen.
    const res = await bob("/api/threads", { body: { name: "bob's" } });
    expect(res.status).toBe(201);
    expect((await res.json<any>()).thread.id).not.toBe(ids.thread);
  },
  "GET /api/threads": listsNothingOfAlice(() => "/api/threads"),
  "GET /api/threads/:id": notFound((i) => `/api/threads/${i.thread}`),
  "PATCH /api/threads/:id": notFound((i) => `/api/threads/${i.thread}`, () => ({ method: "PATCH", body: { name: "mine now" } })),
  "DELETE /api/threads/:id": notFound((i) => `/api/threads/${i.thread}`, () => ({ method: "DELETE" })),
  "GET /api/threads/:id/messages": notFound((i) => `/api/threads/${i.thread}/messages`),
  "POST /api/threads/:id/messages": notFound((i) => `/api/threads/${i.thread}/messages`, () => ({ body: { content: "hi" } })),
  "POST /api/threads/:id/messages/:messageId/edit": notFound((i) => `/api/threads/${i.thread}/messages/${i.message}/edit`, () => ({ body: { content: "x" } })),
  "POST /api/threads/:id/messages/:messageId/regenerate": notFound((i) => `/api/threads/${i.thread}/messages/${i.message}/regenerate`, () => ({ body: {} })),
  "PUT /api/threads/:id/head": notFound((i) => `/api/threads/${i.thread}/head`, (i) => ({ method: "PUT", body: { messageId: i.message } })),
  "POST /api/threads/:id/attachments": notFound((i) => `/api/threads/${i.thread}/attachments?name=b.txt`, () => ({ body: "bob's", headers: { "content-type": "text/plain" } })),
  "GET /api/threads/:id/export": notFound((i) => `/api/threads/${i.thread}/export?format=json`),
  "GET /api/threads/:id/attachments/:attachmentId": notFound((i) => `/api/threads/${i.thread}/attachments/${i.attachment}`),
  "POST /api/threads/:id/stop": notFound((i) => `/api/threads/${i.thread}/stop`, () => ({ method: "POST" })),
  "POST /api/chat": notFound(() => "/api/chat", (i) => ({ body: { threadId: i.thread, content: "hi" } })),
  "POST /api/prewarm": notFound(() => "/api/prewarm", (i) => ({ body: { threadId: i.thread } })),
  "POST /api/ws-ticket": notFound(() => "/api/ws-ticket", (i) => ({ body: { threadId: i.thread } })),
  "GET /api/search": async () => {
    const { results } = await (await bob(`/api/search?q=${WORD}`)).json<any>();
    expect(results).toEqual([]);
  },
  "GET /api/tasks": async (ids) => {
    const { tasks } = await (await bob(`/api/tasks?threadId=${ids.thread}`)).json<any>();
    expect(tasks).toEqual([]);
  },
  "POST /api/tasks/:id/cancel": notFound((i) => `/api/tasks/${i.task}/cancel`, () => ({ method: "POST" })),
  "GET /api/metrics": async (ids) => {
    const usage = await (await bob(`/api/metrics?threadId=${ids.thread}`)).json<any>();
    expect(usage.runs).toEqual([]);
    expect(usage.totals.runs).toBe(0);
  },
  // Usage across users is an admin's only: Bob is not one.
  "GET /api/admin/usage": status(403, () => "/api/admin/usage"),
  "GET /api/plugins": status(200, () => "/api/plugins"),
  "PATCH /api/plugins/:name": status(403, () => "/api/plugins/metrics", () => ({ method: "PATCH", body: { enabled: false } })),
  "GET /api/context": async (ids) => {
    const { files } = await (await bob("/api/context")).json<any>();
    expect(files.map((f: any) => f.path)).not.toContain(ids.path);
  },
  "GET /api/context/:path": notFound((i) => `/api/context/${i.path}`),
  "PUT /api/context/:path": async (ids) => {
    // Context files are each user's own: Bob writes his own file of that name, not Alice's.
    expect((await bob(`/api/context/${ids.path}`, { method: "PUT", body: { content: "bob's notes" } })).status).toBe(200);
  },
  "DELETE /api/context/:path": async (ids) => {
    expect((await bob(`/api/context/${ids.path}`, { method: "DELETE" })).status).toBe(204);
    expect((await bob(`/api/context/${ids.path}`, { method: "DELETE" })).status).toBe(404);
  },
  "POST /api/threads/:id/schedules": notFound((i) => `/api/threads/${i.thread}/schedules`, () => ({ body: { prompt: "bob's", every: 3600 } })),
  "GET /api/threads/:id/schedules": notFound((i) => `/api/threads/${i.thread}/schedules`),
  "GET /api/schedules": async (ids) => {
    const { schedules } = await (await bob("/api/schedules")).json<any>();
    expect(schedules.map((s: any) => s.id)).not.toContain(ids.schedule);
  },
  "PATCH /api/schedules/:scheduleId": notFound((i) => `/api/schedules/${i.schedule}`, () => ({ method: "PATCH", body: { enabled: false } })),
  "DELETE /api/schedules/:scheduleId": notFound((i) => `/api/schedules/${i.schedule}`, () => ({ method: "DELETE" })),
  "GET /api/threads/:id/artifacts": notFound((i) => `/api/threads/${i.thread}/artifacts`),
  "GET /api/threads/:id/files": notFound((i) => `/api/threads/${i.thread}/files`),
  "GET /api/threads/:id/files/:fileId": notFound((i) => `/api/threads/${i.thread}/files/fil_any`),
  "POST /api/projects": async (ids) => {
    expect((await bob("/api/projects", { body: { name: "bob's" } })).status).toBe(201);
    // Nor can his threads join hers.
    expect((await bob("/api/threads", { body: { projectId: ids.project } })).status).toBe(400);
  },
  "GET /api/projects": async (ids) => {
    const { projects } = await (await bob("/api/projects")).json<any>();
    expect(projects.map((p: any) => p.id)).not.toContain(ids.project);
  },
  "GET /api/projects/:projectId": notFound((i) => `/api/projects/${i.project}`),
  "PATCH /api/projects/:projectId": notFound((i) => `/api/projects/${i.project}`, () => ({ method: "PATCH", body: { name: "taken" } })),
  "DELETE /api/projects/:projectId": notFound((i) => `/api/projects/${i.project}`, () => ({ method: "DELETE" })),
  "POST /api/projects/:projectId/files": notFound((i) => `/api/projects/${i.project}/files`, () => ({ body: "x", headers: { "content-type": "text/plain" } })),
  "GET /api/projects/:projectId/files": notFound((i) => `/api/projects/${i.project}/files`),
  "GET /api/projects/:projectId/search": notFound((i) => `/api/projects/${i.project}/search?q=notes`),
  "GET /api/projects/:projectId/files/:fileId": notFound((i) => `/api/projects/${i.project}/files/${i.projectFile}`),
  "POST /api/projects/:projectId/files/:fileId/reprocess": notFound((i) => `/api/projects/${i.project}/files/${i.projectFile}/reprocess`, () => ({ method: "POST" })),
  "DELETE /api/projects/:projectId/files/:fileId": notFound((i) => `/api/projects/${i.project}/files/${i.projectFile}`, () => ({ method: "DELETE" })),
  "POST /api/threads/:id/shares": notFound((i) => `/api/threads/${i.thread}/shares`, () => ({ method: "POST" })),
  "GET /api/shares": async (ids) => {
    const { shares } = await (await bob("/api/shares")).json<any>();
    expect(shares.map((s: any) => s.id)).not.toContain(ids.share);
  },
  // A file of Alice's that her share does not hold (never sent in the branch) is not reached through it.
  "GET /api/shared/:shareId/files/:fileId": notFound((i) => `/api/shared/${i.share}/files/${i.attachment}`),
  "DELETE /api/shares/:shareId": notFound((i) => `/api/shares/${i.share}`, () => ({ method: "DELETE" })),
  // The one route open by design: the link is the credential. It names no user.
  "GET /api/shared/:shareId": async (ids) => {
    const res = await bob(`/api/shared/${ids.share}`);
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(users.alice.id);
  },
  "GET /api/threads/:id/artifacts/:artifactId": notFound((i) => `/api/threads/${i.thread}/artifacts/${i.artifact}`),
  "POST /api/mcp/servers": async () => {
    // Bob's own server, with Alice's name: names are per user.
    const res = await bob("/api/mcp/servers", { body: { name: WORD.slice(0, 8), url: `${env.MCP_TEST_URL}/tools/mcp` } });
    expect(res.status).toBe(201);
    expect(await res.text()).not.toContain(WORD);
  },
  "GET /api/mcp/servers": listsNothingOfAlice(() => "/api/mcp/servers"),
  "POST /api/keys": async () => {
    // Bob's key is his own: it lists nothing of Alice's.
    const res = await bob("/api/keys", { body: { name: "bob's key" } });
    expect(res.status).toBe(201);
    const { secret } = await res.json<any>();
    const threads = await callApp(tokenEnv, "/mcp", { body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_threads", arguments: {} } }, headers: { authorization: `Bearer ${secret}`, accept: "application/json, text/event-stream" } });
    expect(threads.status).toBe(200);
    expect(await threads.text()).not.toContain(WORD);
  },
  "GET /api/keys": listsNothingOfAlice(() => "/api/keys"),
  // Research lives on its thread's object: another user's thread is not found, whatever the research.
  "POST /api/threads/:id/research": notFound((i) => `/api/threads/${i.thread}/research`, () => ({ body: { question: `about ${WORD}` } })),
  "GET /api/threads/:id/research/:researchId": notFound((i) => `/api/threads/${i.thread}/research/res_0000000000000000000`),
  "POST /api/threads/:id/research/:researchId/plan": notFound((i) => `/api/threads/${i.thread}/research/res_0000000000000000000/plan`, () => ({ body: { subquestions: ["x"] } })),
  "POST /api/threads/:id/research/:researchId/stop": notFound((i) => `/api/threads/${i.thread}/research/res_0000000000000000000/stop`, () => ({ method: "POST" })),
  // A consent names a client, never a user: Bob's answer for a client nobody registered says only that.
  "GET /api/oauth/authorize": status(400, () => `/api/oauth/authorize?request=${encodeURIComponent("response_type=code&client_id=nobody")}`),
  "POST /api/oauth/authorize": status(400, () => "/api/oauth/authorize", () => ({ body: { request: "response_type=code&client_id=nobody", allow: true } })),
  "DELETE /api/keys/:keyId": notFound((i) => `/api/keys/${i.key}`, () => ({ method: "DELETE" })),
  "PATCH /api/mcp/servers/:serverId": notFound((i) => `/api/mcp/servers/${i.server}`, () => ({ method: "PATCH", body: { enabled: false } })),
  "DELETE /api/mcp/servers/:serverId": notFound((i) => `/api/mcp/servers/${i.server}`, () => ({ method: "DELETE" })),
  "POST /api/threads/:id/runs/:runId/approvals/:toolUseId": notFound((i) => `/api/threads/${i.thread}/runs/run_x/approvals/toolu_x`, () => ({ body: { approve: true } })),
};

describe("a second user, with the first user's ids", () => {
  it("reaches nothing of theirs on any route, and changes nothing", async () => {
    const ids = await aliceData();
    const before = await snapshot(ids);
    for (const [route, probe] of Object.entries(PROBES)) {
      await probe(ids).catch((err) => {
        throw new Error(`${route}: ${err.message}`);
      });
    }
    // The socket route is not in the map (it is an upgrade): by header, by ?token=, by ticket.
    const upgrade = (extra: string, headers: Record<string, string>) =>
      callApp(tokenEnv as Env, `/api/threads/${ids.thread}/ws${extra}`, { headers: { upgrade: "websocket", ...headers } });
    expect((await upgrade("", { authorization: `Bearer ${users.bob.token}` })).status).toBe(404);
    expect((await upgrade(`?token=${users.bob.token}`, {})).status).toBe(404);
    expect(await snapshot(ids)).toEqual(before);
  });
});
