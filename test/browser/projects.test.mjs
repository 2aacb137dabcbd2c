// Projects: made in the sidebar, given instructions and a file on their page, a thread started in it
// whose run carries both in its system prompt; the thread grouped under the project, search narrowed
// to it, moved out of it; the project deleted (its threads stay, out of it).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe } from "node:test";
import { APP_URL, api, marker, screenshot, send, systemText, until, upstreamRequests, useBrowser, waitForChatReady, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

describe("projects", () => {
  it("makes a project with instructions and a file, and a thread in it gets both in its run's context", async () => {
    const { page } = await newPage();
    const tag = randomUUID().slice(0, 8);
    const name = `Garden ${tag}`;
    const fileName = `brief-${tag}.txt`;
    const secret = `The greenhouse code is ${tag}-tulip.`;
    const instructions = `Always mention compost ${tag}.`;

    await page.goto(`${APP_URL}/`);
    await page.getByTestId("new-project").click();
    await page.getByTestId("new-project-name").fill(name);
    await page.getByTestId("new-project-create").click();
    await page.waitForURL(/\/projects\/[^/]+$/);
    const projectId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
    assert.equal(await page.getByTestId("project-name").innerText(), name);

    // Instructions, then a file chosen (as a drop would give it).
    await page.getByTestId("project-instructions").fill(instructions);
    await page.getByTestId("project-instructions-save").click();
    await page.getByTestId("project-instructions-saved").waitFor();
    await page.getByTestId("project-file-input").setInputFiles([{ name: fileName, mimeType: "text/plain", buffer: Buffer.from(secret) }]);
    const fileRow = page.getByTestId("project-file").filter({ hasText: fileName });
    await fileRow.waitFor();
    const { files } = await api(`/api/projects/${projectId}/files`);
    assert.deepEqual(files.map((f) => f.name), [fileName]);

    // The sidebar has the project's group, which links to its page.
    const group = page.locator(`[data-testid="project-group"][data-project-id="${projectId}"]`);
    await group.getByTestId("project-link").waitFor();
    await screenshot(page, "40-project-page");

    // A new thread in the project: its run's system prompt holds the instructions, the file's name and text.
    await page.getByTestId("project-new-thread").click();
    await page.waitForURL(/\/t\/thr_/);
    await waitForChatReady(page);
    const threadId = new URL(page.url()).pathname.split("/").pop();
    assert.equal((await api(`/api/threads/${threadId}`)).thread.projectId, projectId);
    const m = marker("project");
    await send(page, `What is the code? ${m}`);
    await waitForReply(page, `Echo: What is the code? ${m}`);
    const [request] = await until(() => upstreamRequests(m).then((r) => r.length && r), { message: "no upstream request" });
    const system = systemText(request.body);
    assert.ok(system.includes(fileName), `the system prompt does not name the file:\n${system.slice(0, 800)}`);
    assert.ok(system.includes(secret), "the system prompt does not hold the file's text");
    assert.ok(system.includes(instructions), "the system prompt does not hold the project's instructions");

    // The thread is listed under its project; folding the group hides it.
    const row = group.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`);
    await row.waitFor();
    await page.goto(`${APP_URL}/projects/${projectId}`);
    await page.locator(`[data-testid="project-thread"][data-thread-id="${threadId}"]`).waitFor();
    await group.getByTestId("project-group-toggle").click();
    assert.equal(await group.getByTestId("project-group-toggle").getAttribute("aria-expanded"), "false");
    await row.waitFor({ state: "hidden" });
    await group.getByTestId("project-group-toggle").click();
    await row.waitFor();

    // Search from the thread is narrowed to its project by default.
    await page.goto(`${APP_URL}/t/${threadId}`);
    await waitForChatReady(page);
    await page.keyboard.press("Control+k");
    assert.equal(await page.getByTestId("palette-scope").inputValue(), projectId);
    await page.getByTestId("palette-input").press("Escape");

    // Moved out of the project in its settings, then back in.
    await page.getByTestId("open-settings").click();
    await page.getByTestId("thread-project").selectOption("");
    await until(async () => (await api(`/api/threads/${threadId}`)).thread.projectId === null, { message: "the thread did not leave the project" });
    await page.getByTestId("thread-project").selectOption(projectId);
    await until(async () => (await api(`/api/threads/${threadId}`)).thread.projectId === projectId, { message: "the thread did not join the project" });
    await page.getByTestId("thread-settings-close").click();

    // Deleted: the project is gone, its thread stays, out of it.
    await page.goto(`${APP_URL}/projects/${projectId}`);
    await page.getByTestId("project-delete").click();
    await page.getByTestId("project-delete-confirm").click();
    await page.waitForURL(`${APP_URL}/`);
    await group.waitFor({ state: "detached" });
    const { projects } = await api("/api/projects");
    assert.ok(!projects.some((p) => p.id === projectId), "the project is still listed");
    assert.equal((await api(`/api/threads/${threadId}`)).thread.projectId, null);
    await page.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`).waitFor();
    assert.deepEqual(page.errors, []);
  });
});
