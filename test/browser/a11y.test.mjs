// Accessibility: axe-core on every page (chat, a project, a shared thread, the thread's settings,
// usage, Connections with a server listed, a tool call waiting for approval, API keys with a key's
// one-time secret and its revoke dialog, a research's card under review and done). No serious or
// critical violation, and no `region` finding: all content is in landmarks.
import AxeBuilder from "@axe-core/playwright";
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { APP_URL, OFFLINE_APP_URL, api, createThread, marker, openThread, script, send, signIn, until, useBrowser, waitForChatReady, waitForReply } from "./helpers.mjs";
import { addServer, removeServer } from "./mcp.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();

/** What axe finds that fails the suite: serious or critical ones, and content outside landmarks. */
async function violations(page) {
  const { violations, passes } = await new AxeBuilder({ page }).analyze();
  // The landmark rule ran (a page it cannot apply to would pass it silently).
  assert.ok([...passes, ...violations].some((r) => r.id === "region"), "axe did not run its region rule");
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical" || v.id === "region")
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ")}`).join("\n")}`);
}

async function check(page, name) {
  const found = await violations(page);
  assert.deepEqual(found, [], `${name}:\n${found.join("\n")}`);
}

/** The serious or critical findings inside `selector` only (the landmark rule is the whole page's). */
async function checkPart(page, selector, name) {
  const { violations, passes } = await new AxeBuilder({ page }).include(selector).analyze();
  assert.ok(passes.some((r) => r.id === "button-name"), `axe did not check the buttons of ${selector}`);
  const found = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ")}`).join("\n")}`);
  assert.deepEqual(found, [], `${name}:\n${found.join("\n")}`);
}

describe("accessibility (axe-core)", () => {
  let project;
  let thread;
  let share;
  before(async () => {
    ({ project } = await api("/api/projects", { body: { name: "Accessible project", instructions: "Be brief." } }));
    thread = await createThread("Accessible thread");
    await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { projectId: project.id } });
    await api(`/api/threads/${thread.id}/messages`, { body: { content: "Hello **there**, see https://example.com" } });
    await until(async () => (await api(`/api/threads/${thread.id}/messages?kinds=text`)).messages.some((m) => m.role === "assistant"), {
      timeout: 20_000,
      message: "the run did not finish",
    });
    ({ share } = await api(`/api/threads/${thread.id}/shares`, { method: "POST" }));
  });
  after(async () => {
    await api(`/api/shares/${share.id}`, { method: "DELETE" }).catch(() => {});
    await api(`/api/threads/${thread.id}`, { method: "DELETE" }).catch(() => {});
    await api(`/api/projects/${project.id}`, { method: "DELETE" }).catch(() => {});
  });

  it("finds nothing serious on the chat, its settings, a project, usage and a shared thread", async () => {
    const { page } = await newPage();
    await page.goto(`${APP_URL}/t/${thread.id}`);
    await waitForChatReady(page);
    await page.locator('[data-testid="message"][data-role="assistant"]').first().waitFor();
    await check(page, "chat");

    await page.getByTestId("open-settings").click();
    await page.getByTestId("share-settings").getByTestId("share-links").waitFor();
    await check(page, "thread settings");
    await page.getByTestId("thread-settings-close").click();

    await page.goto(`${APP_URL}/`);
    await page.getByTestId("composer").waitFor();
    await check(page, "new chat");

    await page.goto(`${APP_URL}/projects/${project.id}`);
    await page.getByTestId("project-files").getByText("No files yet.").waitFor();
    await page.locator(`[data-testid="project-thread"][data-thread-id="${thread.id}"]`).waitFor();
    await check(page, "project");

    await page.goto(`${APP_URL}/usage`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    await until(async () => (await page.getByText("Loading…").count()) === 0, { message: "usage never loaded" });
    await check(page, "usage");

    const { page: reader } = await newPage();
    await reader.goto(share.url);
    await reader.locator('[data-testid="message"][data-role="assistant"]').first().waitFor();
    await check(reader, "shared thread");
    await reader.goto(`${APP_URL}/s/${"0".repeat(96)}`);
    await reader.getByTestId("shared-not-found").waitFor();
    await check(reader, "shared not found");
  });

  it("finds nothing serious on Connections with a server listed, and on a tool call waiting for approval", async () => {
    // The app's one user's server: every thread would offer its tools, so it goes when the test ends.
    const name = "a11y";
    await addServer(name, { headers: { "x-api-key": "a11y-secret" } });
    try {
      const { page } = await newPage();
      await page.goto(`${APP_URL}/settings/connections`);
      const listed = page.getByTestId("mcp-server").filter({ hasText: name });
      await listed.waitFor();
      // A long tool list comes folded: opened, so axe checks its controls too.
      if ((await listed.locator("details.mcp-tools").getAttribute("open")) === null) await listed.locator("details.mcp-tools > summary").click();
      await listed.getByTestId("mcp-tool").first().waitFor();
      await check(page, "connections");
      // The form with a header row and the problems it says.
      await page.getByTestId("mcp-header-add").click();
      await page.getByTestId("mcp-name").fill("Not A Name");
      await page.getByTestId("mcp-add").click();
      await page.getByTestId("mcp-problem-name").waitFor();
      await check(page, "connections, the form's problems");
      await page.getByTestId("mcp-remove").first().click();
      await page.getByTestId("mcp-remove-confirm").waitFor();
      await check(page, "connections, removing a server");

      const waiting = await createThread("Accessible approval");
      const m = marker("a11y-approval");
      await script(m, [{ kind: "tool_use", tools: [{ name: `${name}__delete_item`, input: { id: "a11y-1" } }] }, { kind: "text", text: "Left alone." }]);
      await openThread(page, waiting.id);
      await send(page, `Delete it ${m}`);
      await page.getByTestId("approval").waitFor();
      await checkPart(page, '[data-testid="tool-call"]:has([data-testid="approval"])', "a tool call waiting for approval");
      // And the whole page while the run waits (a run in progress: its steps not reached yet, its
      // typing dots), which the chat's check, made once its run ended, does not see.
      await check(page, "a thread whose run waits for approval");
      await page.getByTestId("approval-deny").click();
      await waitForReply(page, "Left alone.");
      await api(`/api/threads/${waiting.id}`, { method: "DELETE" }).catch(() => {});
    } finally {
      await removeServer(name);
    }
  });

  it("finds nothing serious on API keys: a key listed, its one-time secret, the revoke dialog", async () => {
    const { page } = await newPage();
    await page.goto(`${APP_URL}/settings/api-keys`);
    await page.getByTestId("api-usage").waitFor();
    await page.getByTestId("api-key-create").click();
    await page.getByTestId("api-key-name-problem").waitFor();
    await check(page, "API keys, the form's problem");
    await page.getByTestId("api-key-name").fill("a11y");
    await page.getByTestId("api-key-create").click();
    const panel = page.getByTestId("api-key-secret-panel");
    await panel.waitFor();
    const keyId = await panel.getAttribute("data-key-id");
    try {
      await page.locator(`[data-testid="api-key-row"][data-key-id="${keyId}"]`).waitFor();
      await check(page, "API keys, a new key's secret");
      await panel.getByTestId("api-key-dismiss").click();
      await page.locator(`[data-testid="api-key-row"][data-key-id="${keyId}"]`).getByTestId("api-key-revoke").click();
      await page.getByTestId("api-key-revoke-dialog").waitFor();
      await check(page, "API keys, revoking a key");
    } finally {
      await api(`/api/keys/${keyId}`, { method: "DELETE" }).catch(() => {});
    }
  });

  it("finds nothing serious on a research's card: its plan under review, its problems, and done with its sources", async () => {
    const [q, s1] = [marker("a11y-q"), marker("a11y-s1")];
    // The question's script first: the task's request holds the question too, and the newest matching script answers.
    await script(q, [
      { kind: "text", text: JSON.stringify([`Which parts matter? ${s1}`, "A second part"]) },
      { kind: "text", text: "# Accessible report\n\nIt holds [1]." },
    ]);
    await script(s1, [
      {
        kind: "blocks",
        blocks: [
          { type: "server_tool_use", name: "web_search", input: { query: "parts" } },
          { type: "web_search_tool_result", results: [{ title: "Parts", url: "https://parts.example.org/" }] },
          { type: "text", text: "The parts (https://parts.example.org/) matter." },
        ],
      },
    ]);
    const researched = await createThread("Accessible research");
    await api("/api/plugins/validator", { method: "PATCH", body: { enabled: false } });
    try {
      const { page } = await newPage();
      await openThread(page, researched.id);
      const { research } = await api(`/api/threads/${researched.id}/research`, { body: { question: `What matters? ${q}`, review: true } });
      const card = page.locator(`[data-testid="research-card"][data-research-id="${research.id}"]`);
      await until(async () => (await card.getAttribute("data-status")) === "review", { timeout: 15_000, message: "the plan never came for review" });
      await checkPart(page, '[data-testid="research-card"]', "a research's plan under review");
      await card.getByRole("button", { name: "Remove sub-question 2" }).click();
      await card.getByTestId("research-plan-add").click();
      await card.getByTestId("research-plan-start").click();
      await card.getByTestId("research-plan-problem").waitFor();
      await checkPart(page, '[data-testid="research-card"]', "a research's plan with a problem");
      await card.getByRole("button", { name: "Remove sub-question 2" }).click();
      await card.getByTestId("research-plan-start").click();
      await until(async () => (await card.getAttribute("data-status")) === "done", { timeout: 30_000, message: "the research never finished" });
      await card.getByTestId("research-sources-toggle").first().click();
      await card.getByTestId("research-source").first().waitFor();
      await check(page, "a thread with a finished research");
    } finally {
      await api("/api/plugins/validator", { method: "PATCH", body: { enabled: true } });
      await api(`/api/threads/${researched.id}`, { method: "DELETE" }).catch(() => {});
    }
  });

  it("finds nothing serious on the offline app's chat (its banner) and its sign-in form", async () => {
    const { page } = await newPage();
    await signIn(page, OFFLINE_USERS.alice.token);
    await page.getByTestId("provider-banner").waitFor();
    await check(page, "offline chat");
    const { page: stranger } = await newPage();
    await stranger.goto(OFFLINE_APP_URL);
    await stranger.getByTestId("sign-in").waitFor();
    await check(stranger, "sign-in");
  });
});
