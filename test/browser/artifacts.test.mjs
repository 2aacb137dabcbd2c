// Artifacts (PROTOCOL.md, "Artifacts"): the model's artifacts__create and artifacts__update (scripted
// on the fake upstream) appear as cards after their exchange, and open in the side panel: markdown
// sanitized, code highlighted, HTML, SVG and Mermaid in the sandboxed frame page, which reaches
// nothing of the app's; versions, their diff, and live updates; a sheet on a phone.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { downloadedText } from "./files.mjs";
import { APP_URL, api, createThread, marker, openThread, screenshot, script, send, until, useBrowser, userMessage, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

// HTML, SVG and Mermaid run in /sandbox/artifact (web/public/sandbox/artifact.html), which the Worker
// must serve with a policy of its own (sandbox allow-scripts; inline script and style; nothing from
// the network): under the app's policy, which it would otherwise get, their scripts cannot run.

const create = (input) => ({ name: "artifacts__create", input });
const update = (input) => ({ name: "artifacts__update", input });

/** One exchange in which the model calls `tools`, then answers `answer`. */
async function exchange(page, tools, answer) {
  const m = marker("art");
  await script(m, [{ kind: "tool_use", tools }, { kind: "text", text: answer }]);
  await send(page, `Make it ${m}`);
  await waitForReply(page, answer);
  return m;
}

const card = (page, title) => page.getByTestId("artifact-card").filter({ hasText: title });
const panel = (page) => page.getByTestId("artifact-panel");
const frame = (page) => page.frameLocator('[data-testid="artifact-panel"] [data-testid="artifact-frame"]');

async function open(page, title) {
  await card(page, title).click();
  await until(async () => (await page.getByTestId("artifact-title").innerText()) === title, { message: `the panel did not open ${title}` });
}

const MARKDOWN = [
  "# Launch plan",
  "",
  "Ship on **Friday**, after the review.",
  "",
  '<script>window.__fromMarkdown = "script ran"</script>',
  '<img src="https://tracker.example/pixel.png" alt="pixel" onerror="window.__fromMarkdown = \'onerror ran\'">',
  "",
  "- write the notes",
  "- tell the team",
].join("\n");

const PYTHON = ["def fibonacci(n: int) -> list[int]:", '    """The first n Fibonacci numbers."""', "    a, b = 0, 1", "    out = []", "    for _ in range(n):", "        out.append(a)", "        a, b = b, a + b", "    return out", ""].join("\n");

const HTML_PAGE = `<!doctype html>
<html><head><title>Counter</title><style>body { font-family: sans-serif; background: rgb(253, 246, 227); }</style></head>
<body><h1>Counter</h1><p id="out">static</p>
<script>document.getElementById("out").textContent = "script ran: " + (1 + 2);</script>
</body></html>`;

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="140" viewBox="0 0 240 140">
<rect id="box" x="10" y="10" width="220" height="120" rx="16" fill="#5646c8"/>
<text x="120" y="78" font-size="22" text-anchor="middle" fill="#fff">SVG drawn</text></svg>`;

const MERMAID = "graph TD\n  A[Idea] --> B{Worth it?}\n  B -->|Yes| C[Build it]\n  B -->|No| D[Drop it]";
const BROKEN_MERMAID = "graph TD\n  A[Idea --> B{oops";

describe("artifacts", () => {
  it("shows markdown (sanitized) and code (highlighted) in the side panel, with copy and download", async () => {
    const { context, page } = await newPage();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: APP_URL });
    const thread = await createThread("Artifacts: documents");
    await openThread(page, thread.id);
    const m = await exchange(
      page,
      [create({ title: "Launch plan", type: "markdown", content: MARKDOWN }), create({ title: "Fibonacci", type: "code", language: "python", content: PYTHON })],
      "Here are the plan and the code.",
    );

    // The cards come after the exchange's answer: title, type and version.
    await card(page, "Launch plan").waitFor();
    assert.match(await card(page, "Launch plan").innerText(), /Document · Version 1/);
    assert.match(await card(page, "Fibonacci").innerText(), /Code · python · Version 1/);
    const after = await userMessage(page, m).evaluate((user, cardEl) => !!(user.compareDocumentPosition(cardEl) & Node.DOCUMENT_POSITION_FOLLOWING), await card(page, "Fibonacci").elementHandle());
    assert.ok(after, "the card is not after its exchange");

    await open(page, "Launch plan");
    const content = panel(page).getByTestId("artifact-content");
    await content.locator("h1", { hasText: "Launch plan" }).waitFor();
    assert.equal(await content.locator("strong").innerText(), "Friday");
    assert.equal(await content.locator("li").count(), 2);
    // The script and the handler were stripped, and did nothing.
    assert.equal(await panel(page).locator("script").count(), 0);
    assert.equal(await panel(page).locator("[onerror]").count(), 0);
    // The remote image became a link to it: nothing was fetched from elsewhere.
    assert.equal(await content.locator("img").count(), 0);
    assert.equal(await content.locator("a[data-remote-image]").getAttribute("href"), "https://tracker.example/pixel.png");
    assert.equal(await page.evaluate(() => window.__fromMarkdown), undefined);
    // A split view on a wide screen: the conversation on the left, the panel on the right.
    const box = await panel(page).boundingBox();
    const list = await page.locator(".message-scroller").boundingBox();
    assert.ok(box.x > 400 && box.x + box.width >= 1279, `the panel is not on the right: ${JSON.stringify(box)}`);
    assert.ok(list.x + list.width <= box.x + 1, "the conversation is under the panel");
    await screenshot(page, "45-artifact-markdown");

    await open(page, "Fibonacci");
    const code = panel(page).locator('[data-testid="artifact-content"][data-type="code"] code');
    await code.waitFor();
    assert.equal((await code.innerText()).trimEnd(), PYTHON.trimEnd());
    assert.equal(await code.locator(".hljs-keyword", { hasText: "def" }).count(), 1, "the code is not highlighted");
    await screenshot(page, "45-artifact-code");

    const file = await downloadedText(page, () => panel(page).getByTestId("artifact-download").click());
    assert.equal(file.name, "fibonacci.py");
    assert.equal(file.text, PYTHON);
    await panel(page).getByTestId("artifact-copy").click();
    await until(async () => (await panel(page).getByTestId("artifact-copy").innerText()) === "Copied", { message: "copy did not say so" });
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), PYTHON);

    // Escape closes the panel; the conversation takes the whole width again.
    await page.keyboard.press("Escape");
    await panel(page).waitFor({ state: "detached" });
    assert.equal(await page.locator(".chat-view.has-artifact").count(), 0);
    assert.deepEqual(page.errors, []);
  });

  it("runs HTML, SVG and Mermaid in the sandboxed frame; a malformed diagram shows its source and the parser's message", async (t) => {
    const { context, page } = await newPage();
    const thread = await createThread("Artifacts: pages and diagrams");
    await openThread(page, thread.id);
    await exchange(
      page,
      [
        create({ title: "Counter page", type: "html", content: HTML_PAGE }),
        create({ title: "Badge", type: "svg", content: SVG }),
        create({ title: "Decision", type: "mermaid", content: MERMAID }),
        create({ title: "Broken diagram", type: "mermaid", content: BROKEN_MERMAID }),
      ],
      "A page, an image and two diagrams.",
    );

    // HTML: its script ran inside the frame, and its inline style applied.
    await open(page, "Counter page");
    const frameEl = panel(page).getByTestId("artifact-frame");
    assert.equal(await frameEl.getAttribute("sandbox"), "allow-scripts");
    await until(async () => (await frame(page).locator("#out").innerText()) === "script ran: 3", { message: "the page's script did not run in its frame" });
    assert.equal(await frame(page).locator("body").evaluate((b) => getComputedStyle(b).backgroundColor), "rgb(253, 246, 227)");
    await screenshot(page, "45-artifact-html");

    // Open in new tab: a blob: page, the artifact still in the sandboxed frame.
    const [tab] = await Promise.all([context.waitForEvent("page"), panel(page).getByTestId("artifact-open-tab").click()]);
    await tab.waitForLoadState();
    assert.match(tab.url(), /^blob:/);
    assert.equal(await tab.locator("iframe").getAttribute("sandbox"), "allow-scripts");
    await until(async () => (await tab.frameLocator("iframe").locator("#out").innerText()) === "script ran: 3", { message: "the page did not run in the new tab" });
    assert.equal(await tab.evaluate(() => document.querySelectorAll("script:not([type])").length), 1, "only the app's own script runs in the tab's page");
    await tab.close();

    // SVG.
    await open(page, "Badge");
    await frame(page).locator("svg #box").waitFor();
    assert.equal(await frame(page).locator("svg text").textContent(), "SVG drawn");
    await screenshot(page, "45-artifact-svg");

    // Mermaid, drawn by the library in the frame.
    await open(page, "Decision");
    await until(async () => (await panel(page).locator('[data-type="mermaid"]').getAttribute("data-state")) === "drawn", { message: "no diagram" });
    await frame(page).locator("#diagram svg").waitFor({ timeout: 20_000 });
    assert.match(await frame(page).locator("#diagram svg").textContent(), /Worth it\?/);
    await screenshot(page, "45-artifact-mermaid");

    // A diagram that does not parse: the source, and the parser's message.
    await open(page, "Broken diagram");
    const broken = panel(page).getByTestId("artifact-mermaid-error");
    await broken.waitFor({ timeout: 20_000 });
    assert.match(await broken.getByTestId("artifact-mermaid-message").innerText(), /^Parse error on line 2:\n.*\n-+\^\nExpecting /);
    assert.equal((await broken.getByTestId("artifact-mermaid-source").innerText()).trimEnd(), BROKEN_MERMAID);
    assert.equal(await panel(page).getByTestId("artifact-frame").isHidden(), true);
    await screenshot(page, "45-artifact-mermaid-error");
    assert.deepEqual(page.errors, []);
  });

  it("keeps an HTML artifact from the app: no cookies, storage, window or API, and a page that loops freezes only its frame", async (t) => {
    const { page } = await newPage();
    const thread = await createThread("Artifacts: contained");
    await openThread(page, thread.id);
    await page.evaluate(() => {
      document.cookie = "artifact_secret=cookie-value; path=/";
      localStorage.setItem("artifact_secret", "storage-value");
    });
    const probe = `<!doctype html><body><pre id="out">probing</pre><script>
      const seen = [];
      const look = (name, read) => { try { seen.push(name + ": " + read()); } catch (e) { seen.push(name + ": " + e.name); } };
      look("origin", () => origin);
      look("cookie", () => document.cookie);
      look("localStorage", () => localStorage.getItem("artifact_secret"));
      look("sessionStorage", () => sessionStorage.length);
      look("parent", () => parent.document.title);
      look("parent storage", () => parent.localStorage.getItem("artifact_secret"));
      look("top", () => top.location.href);
      const out = document.getElementById("out");
      out.textContent = seen.join("\\n");
      fetch("/api/threads").then(() => { out.textContent += "\\napi: answered"; }, (e) => { out.textContent += "\\napi: " + e.name; });
    </script></body>`;
    const looping = `<!doctype html><body><p id="state">about to loop</p><script>setTimeout(() => { document.getElementById("state").textContent = "looping"; for (;;) {} }, 200);</script></body>`;
    await exchange(
      page,
      [create({ title: "Probe", type: "html", content: probe }), create({ title: "Forever", type: "html", content: looping })],
      "Two pages.",
    );

    await open(page, "Probe");
    const out = frame(page).locator("#out");
    await until(async () => /api: /.test(await out.innerText()), { message: "the probe did not finish" });
    const seen = await out.innerText();
    for (const line of ["origin: null", "cookie: SecurityError", "localStorage: SecurityError", "sessionStorage: SecurityError", "parent: SecurityError", "parent storage: SecurityError", "top: SecurityError", "api: TypeError"]) {
      assert.ok(seen.includes(line), `the page saw more than it should: no "${line}" in\n${seen}`);
    }
    assert.doesNotMatch(seen, /cookie-value|storage-value/);
    await screenshot(page, "45-artifact-contained");
    // Its request to the API was refused by the frame's own policy (reported as a violation, which the
    // suite would flag: noticed on purpose, and nothing else).
    await until(() => page.cspViolations.some((v) => /Connecting to .*\/api\/threads/.test(v)), { message: "the frame's policy did not refuse the request" });
    const forgetRefusedRequest = () => {
      assert.ok(page.cspViolations.every((v) => /\/api\/threads.*(default-src 'none'|Content Security Policy)/.test(v)), page.cspViolations.join("\n"));
      page.cspViolations.length = 0;
    };

    // A page that never stops: the app goes on (its own script runs, the panel switches and closes).
    await open(page, "Forever");
    await until(async () => (await page.evaluate(() => document.querySelectorAll("iframe").length)) === 1, { message: "no frame" });
    await page.waitForTimeout(800);
    const ticks = await page.evaluate(() => new Promise((resolve) => { let n = 0; const id = setInterval(() => { if (++n === 5) { clearInterval(id); resolve(n); } }, 20); }));
    assert.equal(ticks, 5);
    await open(page, "Probe");
    await page.getByTestId("composer").fill("still typing");
    assert.equal(await page.getByTestId("composer").inputValue(), "still typing");
    await panel(page).getByTestId("artifact-close").click();
    await panel(page).waitFor({ state: "detached" });
    forgetRefusedRequest();
    assert.deepEqual(page.errors, []);
  });

  it("updates the card and the open panel live; the switcher shows version 1 after version 2, and the diff between them", async () => {
    const { page } = await newPage();
    const thread = await createThread("Artifacts: versions");
    await openThread(page, thread.id);
    await exchange(page, [create({ title: "Shopping list", type: "markdown", content: "# Shopping\n\n- apples\n- bread\n" })], "Made the list.");
    await open(page, "Shopping list");
    await panel(page).locator("li", { hasText: "bread" }).waitFor();

    // The model updates it in a later exchange: the open panel follows, the card moves there.
    const [{ id }] = (await api(`/api/threads/${thread.id}/artifacts`)).artifacts;
    const m2 = await exchange(page, [update({ id, old_str: "- bread", new_str: "- bread\n- cheese" })], "Added cheese.");
    await panel(page).locator("li", { hasText: "cheese" }).waitFor();
    assert.equal(await card(page, "Shopping list").count(), 1);
    assert.match(await card(page, "Shopping list").innerText(), /Version 2/);
    const after = await userMessage(page, m2).evaluate((user, cardEl) => !!(user.compareDocumentPosition(cardEl) & Node.DOCUMENT_POSITION_FOLLOWING), await card(page, "Shopping list").elementHandle());
    assert.ok(after, "the card did not move after the exchange that wrote version 2");
    const versions = panel(page).getByTestId("artifact-version");
    assert.equal(await versions.inputValue(), "2");
    assert.deepEqual(await versions.locator("option").allInnerTexts(), ["Version 1", "Version 2 (latest)"]);

    // Version 1, after version 2.
    await versions.selectOption("1");
    await until(async () => (await panel(page).locator("li").allInnerTexts()).join(",") === "apples,bread", { message: "version 1 is not shown" });
    assert.equal(await versions.inputValue(), "1");
    await screenshot(page, "45-artifact-version-1");

    // Its changes to version 2.
    await panel(page).getByTestId("artifact-diff-toggle").click();
    const diff = panel(page).getByTestId("artifact-diff");
    await diff.waitFor();
    assert.equal(await diff.getAttribute("data-from"), "1");
    assert.equal(await diff.getAttribute("data-to"), "2");
    const added = await diff.locator('[data-kind="add"]').allInnerTexts();
    assert.equal(added.length, 1, `added lines: ${added}`);
    assert.match(added[0], /^5\s*\+\s*- cheese\s*$/);
    assert.equal(await diff.locator('[data-kind="del"]').count(), 0);
    assert.match(await panel(page).getByTestId("artifact-diff-summary").innerText(), /\+1\s+−0/);
    await screenshot(page, "45-artifact-diff");
    assert.deepEqual(page.errors, []);
  });

  it("is a full-screen sheet on a 390-pixel-wide phone, which closes", async () => {
    const { page } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const thread = await createThread("Artifacts: phone");
    await openThread(page, thread.id);
    await exchange(page, [create({ title: "Packing list", type: "markdown", content: "# Packing\n\n- passport\n- charger\n" })], "Here it is.");
    await card(page, "Packing list").tap();
    await panel(page).locator("li", { hasText: "passport" }).waitFor();
    const box = await panel(page).boundingBox();
    assert.deepEqual([box.x, box.y, box.width, box.height], [0, 0, 390, 844], "the panel is not a full-screen sheet");
    // Nothing of the page shows beside it: the element at each corner is the sheet's.
    for (const [x, y] of [[5, 5], [385, 5], [5, 839], [385, 839]]) {
      assert.ok(await page.evaluate(([x, y]) => !!document.elementFromPoint(x, y)?.closest('[data-testid="artifact-panel"]'), [x, y]), `(${x}, ${y}) is not the sheet`);
    }
    await screenshot(page, "45-artifact-phone-sheet");
    await panel(page).getByTestId("artifact-close").tap();
    await panel(page).waitFor({ state: "detached" });
    await card(page, "Packing list").waitFor();
    assert.ok(await card(page, "Packing list").isVisible());
    await screenshot(page, "45-artifact-phone-closed");
    assert.deepEqual(page.errors, []);
  });
});
