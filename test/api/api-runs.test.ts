// What a program's run can meet, through the compatible endpoints: a tool that waits for the user's
// approval in the app (the answer says so, and goes on once they decide), a run that never ends (the
// answer does not hang past the run's timeout), a run that fails (the protocol's error, in the answer
// or in the stream), and a conversation its person went on with in the app (the client's next turn
// starts a thread of its own).
import OpenAI from "openai";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { marker, script, settle, until, upstreamRequests } from "../helpers";
import { callApp, createThreadVia, env, tokenUsers } from "../http/util";

const { users, as, tokenEnv } = tokenUsers("runner");
const person = as(users.runner);
const control = async (path: string) => (await fetch(`${env.MCP_CONTROL_URL}${path}`)).json<any>();
let secret: string;
let client: OpenAI;
const model = env.DEFAULT_MODEL ?? "claude-sonnet-4-6";

beforeAll(async () => {
  secret = (await (await person("/api/keys", { body: { name: "runs" } })).json<any>()).secret;
  client = new OpenAI({ apiKey: secret, baseURL: "https://app.test/v1", maxRetries: 0, fetch: (input, init) => callApp(tokenEnv, new URL(String(input)).pathname, { method: init?.method, body: init?.body as string, headers: Object.fromEntries(new Headers(init?.headers as HeadersInit)) }) });
  expect((await person("/api/mcp/servers", { body: { name: "ops", url: `${env.MCP_TEST_URL}/tools/mcp` } })).status).toBe(201);
});
beforeEach(() => control("/reset"));

describe("a run through the API", () => {
  it("says when a tool waits for approval in the app, and goes on once the person approves it there", async () => {
    const m = marker("api-approval");
    await script(m, [{ kind: "tool_use", text: "I will clean up.", tools: [{ name: "ops__delete_item", input: { id: "inv-9" }, id: "toolu_api_approval" }] }, { kind: "text", text: "Done." }]);
    const { data: stream, response } = await client.chat.completions.create({ model, stream: true, messages: [{ role: "user", content: `${m} clean up` }] }).withResponse();
    const threadId = response.headers.get("x-thread-id")!;
    let text = "";
    let approved = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (!approved && text.includes("[Waiting for your approval in the app: ops__delete_item.")) {
        approved = true;
        // The person sees the question in the app, and approves it there.
        const pending = await until(async () => (await (await person(`/api/threads/${threadId}`)).json<any>()).thread.pendingApprovals ?? [], (p) => p.length === 1);
        const { runId, toolUseId } = pending[0];
        expect((await person(`/api/threads/${threadId}/runs/${runId}/approvals/${toolUseId}`, { body: { approve: true } })).status).toBe(200);
      }
    }
    expect(text).toContain(`https://app.test/t/${threadId}`);
    expect(text.endsWith("Done.")).toBe(true);
    expect((await control("/calls")).filter((c: any) => c.tool === "delete_item")).toHaveLength(1);
    await settle();
  });

  it("does not wait past the run's timeout for a run that never ends", async () => {
    const m = marker("api-hang");
    await script(m, [{ kind: "hang", afterText: "Thinking it over" }]);
    const started = Date.now();
    const res = await callApp(tokenEnv, "/v1/chat/completions", { body: { model, messages: [{ role: "user", content: `${m} ponder` }] }, headers: { authorization: `Bearer ${secret}` } });
    // RUN_TIMEOUT_MS is 5 s in the tests: the program's wait and the run both end by then.
    expect(Date.now() - started).toBeLessThan(7_000);
    expect([200, 503]).toContain(res.status);
    const body = await res.json<any>();
    if (res.status === 200) expect(body.choices[0].message.content).toMatch(/The answer goes on in the app/);
    else expect(body.error.message).toMatch(/timeout/);
    await settle();
  });

  it("answers a failed run with the protocol's error: in the body, or in the stream", async () => {
    const m = marker("api-fail");
    await script(m, [{ kind: "error", status: 400, message: "prompt is too long" }, { kind: "error", status: 400, message: "prompt is too long" }]);
    await expect(client.chat.completions.create({ model, messages: [{ role: "user", content: `${m} fail` }] })).rejects.toMatchObject({ status: 400, type: "invalid_request_error", message: expect.stringContaining("prompt is too long") });
    const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: "user", content: `${m} fail again` }] });
    await expect((async () => {
      for await (const _ of stream);
    })()).rejects.toThrow(/prompt is too long/);
    await settle();
  });

  it("starts a new thread for a conversation whose thread a person went on with in the app", async () => {
    const m = marker("api-moved");
    await script(m, [{ kind: "text", text: "First answer." }, { kind: "text", text: "The person's answer." }, { kind: "text", text: "The program's answer." }]);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: `${m} first` }];
    const first = await client.chat.completions.create({ model, messages }).withResponse();
    const threadId = first.response.headers.get("x-thread-id")!;
    expect((await person(`/api/threads/${threadId}/messages`, { body: { content: `${m} from the app` } })).status).toBe(202);
    await settle();
    messages.push({ role: "assistant", content: first.data.choices[0].message.content }, { role: "user", content: "and then?" });
    const second = await client.chat.completions.create({ model, messages }).withResponse();
    const newThread = second.response.headers.get("x-thread-id")!;
    expect(newThread).not.toBe(threadId);
    expect((await (await person(`/api/threads/${newThread}/messages?kinds=text`)).json<any>()).messages.map((x: any) => x.content)).toEqual([`${m} first`, "First answer.", "and then?", "The program's answer."]);
    expect(await upstreamRequests(m)).toHaveLength(3);
    await settle();
  });
});

it("refuses to write, as a person would be refused, in a thread its person archived", async () => {
  const m = marker("api-archived");
  await script(m, [{ kind: "text", text: "Before the archive." }]);
  const first = await client.chat.completions.create({ model, messages: [{ role: "user", content: `${m} hi` }] }).withResponse();
  const threadId = first.response.headers.get("x-thread-id")!;
  await settle();
  expect((await person(`/api/threads/${threadId}`, { method: "PATCH", body: { status: "archived" } })).status).toBe(200);
  await expect(client.chat.completions.create({ model, messages: [{ role: "user", content: "more" }] }, { headers: { "X-Thread-Id": threadId } })).rejects.toMatchObject({ status: 409, message: expect.stringContaining("archived") });
});

it("puts a new thread in the project X-Project-Id names, and refuses one not the user's", async () => {
  const project = (await (await person("/api/projects", { body: { name: "API project" } })).json<any>()).project;
  const m = marker("api-project");
  await script(m, [{ kind: "text", text: "In the project." }]);
  const { response } = await client.chat.completions.create({ model, messages: [{ role: "user", content: `${m} hi` }] }, { headers: { "X-Project-Id": project.id } }).withResponse();
  const thread = (await (await person(`/api/threads/${response.headers.get("x-thread-id")}`)).json<any>()).thread;
  expect(thread.projectId).toBe(project.id);
  await expect(client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] }, { headers: { "X-Project-Id": "prj_nope" } })).rejects.toMatchObject({ status: 404 });
  void createThreadVia;
  await settle();
});
