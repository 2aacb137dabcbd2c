// MCP servers (PROTOCOL.md "MCP servers"): a server added on Settings › Connections (its header's
// value never shown again), its read-only tool called by the model without asking, and its
// destructive tool waiting on its card for the user's approval: approved, it runs once; denied (after
// a reload, which still shows it waiting), it never reaches the server. The servers are test/mcp/server.mjs's real ones (test/browser/mcp.mjs).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, describe } from "node:test";
import { APP_URL, api, createThread, marker, openThread, screenshot, script, send, sleep, until, upstreamRequests, useBrowser, waitForChatReady, waitForReply } from "./helpers.mjs";
import { addServer, mcpCalls, removeServer, TOOLS_URL } from "./mcp.mjs";

const { it, newPage } = useBrowser();

const SERVER = "ops";
const SECRET = `sk-test-${randomUUID()}`;

/** The server the model's tools come from: added by the first test, or here when it did not run. */
async function ensureServer() {
  const { servers } = await api("/api/mcp/servers");
  if (!servers.some((s) => s.name === SERVER)) await addServer(SERVER, { headers: { "x-api-key": SECRET } });
}

const toolCall = (page, id) => page.locator(`[data-testid="tool-call"][data-tool-use-id="${id}"]`);
const toolResult = (page, id) => page.locator(`[data-testid="tool-result"][data-tool-use-id="${id}"]`);
const threadRow = (page, threadId) => page.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`);

/** The model calls `ops__delete_item` {id}, then answers `answer`; the call's card waits for the user. */
async function askToDelete(page, itemId, answer) {
  const m = marker("del");
  const id = `toolu_del_${m.slice(-10, -2)}`;
  await script(m, [{ kind: "tool_use", tools: [{ name: `${SERVER}__delete_item`, input: { id: itemId }, id }] }, { kind: "text", text: answer }]);
  await send(page, `Please delete ${itemId} ${m}`);
  const approval = toolCall(page, id).getByTestId("approval");
  await approval.waitFor();
  assert.equal(await approval.getAttribute("data-phase"), "waiting");
  assert.equal(await approval.getByTestId("approval-status").innerText(), "Waiting for your approval");
  assert.equal(await approval.getByTestId("approval-tool").innerText(), `${SERVER}__delete_item`);
  assert.deepEqual(JSON.parse(await approval.getByTestId("approval-input").innerText()), { id: itemId });
  await approval.getByTestId("approval-approve").waitFor();
  await approval.getByTestId("approval-deny").waitFor();
  return { id, approval };
}

const deletes = async (itemId) => (await mcpCalls("delete_item")).filter((c) => c.args.id === itemId);

describe("MCP servers", () => {
  after(() => removeServer(SERVER));

  it("adds a server in Connections, which lists its tools and never shows its header's value", async () => {
    // Tall enough for the form and the server's whole card in one screenshot.
    const { page } = await newPage({ viewport: { width: 1280, height: 1300 } });
    await removeServer(SERVER);
    await page.goto(`${APP_URL}/`);
    await page.getByTestId("nav-connections").click();
    await page.getByTestId("connections-page").waitFor();
    assert.equal(new URL(page.url()).pathname, "/settings/connections");

    const form = page.getByTestId("mcp-add-form");
    await form.getByTestId("mcp-name").fill(SERVER);
    await form.getByTestId("mcp-url").fill(TOOLS_URL);
    await form.getByTestId("mcp-header-add").click();
    await form.getByTestId("mcp-header-name").fill("x-api-key");
    await form.getByTestId("mcp-header-value").fill(SECRET);
    assert.equal(await form.getByTestId("mcp-header-value").getAttribute("type"), "password");
    await form.getByTestId("mcp-add").click();

    const added = form.getByTestId("mcp-added");
    await added.waitFor({ timeout: 20_000 });
    assert.equal(await added.getAttribute("data-status"), "connected");
    assert.match(await added.innerText(), new RegExp(`^Connected ${SERVER}: \\d+ tools\\.$`));
    // The form is empty again, its header row with the secret gone.
    assert.equal(await form.getByTestId("mcp-name").inputValue(), "");
    assert.equal(await form.getByTestId("mcp-header-value").count(), 0);

    const server = page.getByTestId("mcp-server").filter({ hasText: SERVER });
    await server.waitFor();
    assert.equal(await server.getAttribute("data-status"), "connected");
    assert.equal(await server.getAttribute("data-enabled"), "true");
    assert.equal(await server.getByTestId("mcp-status").innerText(), "Connected");
    assert.match(await server.innerText(), new RegExp(TOOLS_URL.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    // A long list (more than 8 tools) comes folded: opened, as a person would.
    if ((await server.locator("details.mcp-tools").getAttribute("open")) === null) await server.locator("details.mcp-tools > summary").click();
    const tools = await server.getByTestId("mcp-tool").evaluateAll((els) => els.map((el) => el.getAttribute("data-tool")));
    for (const name of ["echo", "add", "delete_item", "fail", "slow", "image"]) assert.ok(tools.includes(name), `${name} is not listed: ${tools}`);
    // auto, said as what it means for each: the read-only tool runs, the destructive one asks.
    const approvalOf = (name) => server.locator(`[data-testid="mcp-tool"][data-tool="${name}"] [data-testid="mcp-tool-approval"] option:checked`).innerText();
    assert.match(await approvalOf("echo"), /^Auto: runs/);
    assert.match(await approvalOf("delete_item"), /^Auto: asks/);
    // The header by its name, its value hidden: not in the text, the markup, or the API's answer.
    assert.match(await server.getByTestId("mcp-header-names").innerText(), /x-api-key/);
    assert.ok(!(await page.locator("body").innerText()).includes(SECRET), "the page shows the header's value");
    assert.ok(!(await page.content()).includes(SECRET), "the page's HTML holds the header's value");
    assert.ok(!JSON.stringify(await api("/api/mcp/servers")).includes(SECRET), "the API answers the header's value");
    await screenshot(page, "50-mcp-connections");

    // After a reload, from the server's list: the same.
    await page.reload();
    await page.getByTestId("mcp-server").filter({ hasText: SERVER }).waitFor();
    assert.ok(!(await page.content()).includes(SECRET), "the reloaded page's HTML holds the header's value");
    assert.deepEqual(page.errors, []);
  });

  it("shows a read-only tool's call and result: it runs without asking", async () => {
    await ensureServer();
    const { page } = await newPage();
    const thread = await createThread("MCP echo");
    const m = marker("echo");
    const id = `toolu_echo_${m.slice(-10, -2)}`;
    const answer = "The server echoed it back.";
    await script(m, [{ kind: "tool_use", tools: [{ name: `${SERVER}__echo`, input: { text: `hello ${m}` }, id }] }, { kind: "text", text: answer }]);
    await openThread(page, thread.id);
    await send(page, `Echo this ${m}`);

    await waitForReply(page, answer);
    const call = toolCall(page, id);
    const result = toolResult(page, id);
    assert.match(await call.innerText(), /Tool call echo/);
    assert.match(await call.innerText(), new RegExp(`\\b${SERVER}\\b`), "the card names its server");
    assert.equal(await call.getByTestId("approval").count(), 0, "a read-only call asked");
    assert.equal(await result.getAttribute("data-error"), null);
    assert.match(await result.innerText(), new RegExp(`echo: hello ${m.replace(/[[\]]/g, "\\$&")}`));

    // The model was offered the server's tools, and the server got the call with its header.
    const [first] = await upstreamRequests(m);
    const offered = (first.body.tools ?? []).map((t) => t.name);
    assert.ok(offered.includes(`${SERVER}__echo`) && offered.includes(`${SERVER}__delete_item`), `offered: ${offered}`);
    const calls = (await mcpCalls("echo")).filter((c) => c.args.text === `hello ${m}`);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].headers["x-api-key"], SECRET);
    assert.deepEqual(page.errors, []);
  });

  it("asks before a destructive tool runs: approved, it runs once and the run goes on", async () => {
    await ensureServer();
    const { page } = await newPage();
    const thread = await createThread("MCP approve");
    await openThread(page, thread.id);
    const answer = "Deleted inv-1 as you approved.";
    const { id, approval } = await askToDelete(page, "inv-1", answer);

    // The sidebar says the thread waits for the user; the server has not been called.
    const row = threadRow(page, thread.id);
    await row.getByTestId("approval-badge").waitFor();
    assert.match(await row.getByTestId("approval-badge").innerText(), /Needs approval/);
    assert.equal(await row.getAttribute("data-needs-approval"), "true");
    assert.equal(await page.getByTestId("approval-announcement").textContent(), "A tool call is waiting for your approval.");
    await sleep(500);
    assert.deepEqual(await deletes("inv-1"), [], "delete_item ran before it was approved");
    assert.equal(await toolResult(page, id).count(), 0);
    await toolCall(page, id).scrollIntoViewIfNeeded();
    await screenshot(page, "50-mcp-approval");

    await approval.getByTestId("approval-approve").click();
    await toolResult(page, id).waitFor({ timeout: 20_000 });
    assert.match(await toolResult(page, id).innerText(), /deleted inv-1/);
    assert.equal(await toolResult(page, id).getAttribute("data-error"), null);
    await waitForReply(page, answer);
    const ran = await deletes("inv-1");
    assert.equal(ran.length, 1, `delete_item ran ${ran.length} times`);
    assert.equal(ran[0].headers["x-api-key"], SECRET);
    await until(async () => (await row.getByTestId("approval-badge").count()) === 0, { message: "the sidebar's badge stayed" });
    assert.equal(await row.getAttribute("data-needs-approval"), null);
    assert.equal(await toolCall(page, id).getByTestId("approval").count(), 0, "the card still asks");
    await screenshot(page, "50-mcp-approved");
    assert.deepEqual((await api(`/api/threads/${thread.id}`)).thread.pendingApprovals ?? [], []);
    assert.deepEqual(page.errors, []);
  });

  it("asks before a destructive tool runs: still after a reload; denied, it never reaches the server", async () => {
    await ensureServer();
    const { page } = await newPage();
    const thread = await createThread("MCP deny");
    await openThread(page, thread.id);
    const answer = "I left inv-2 alone.";
    const { id } = await askToDelete(page, "inv-2", answer);
    await threadRow(page, thread.id).getByTestId("approval-badge").waitFor();

    // After a reload the call still waits (the thread's pendingApprovals), on its card or one of its own.
    await page.reload();
    await waitForChatReady(page);
    const approval = page.locator(`[data-testid="approval"][data-tool-use-id="${id}"]`);
    await approval.waitFor();
    assert.equal(await approval.count(), 1, "the waiting call shows twice");
    assert.deepEqual(JSON.parse(await approval.getByTestId("approval-input").innerText()), { id: "inv-2" });
    await threadRow(page, thread.id).getByTestId("approval-badge").waitFor();
    await approval.getByTestId("approval-deny").click();
    const result = toolResult(page, id);
    await result.waitFor({ timeout: 20_000 });
    assert.equal(await result.getAttribute("data-error"), "true");
    assert.match(await result.innerText(), /Tool error/);
    assert.match(await result.innerText(), /declined this tool call; it did not run/);
    await waitForReply(page, answer);
    await until(async () => (await threadRow(page, thread.id).getByTestId("approval-badge").count()) === 0, { message: "the sidebar's badge stayed" });
    await toolCall(page, id).scrollIntoViewIfNeeded();
    await screenshot(page, "50-mcp-denied");
    assert.deepEqual(await deletes("inv-2"), [], "a denied delete_item reached the server");
    assert.deepEqual(page.errors, []);
  });
});
