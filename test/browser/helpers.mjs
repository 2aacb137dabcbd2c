// Shared by the browser tests (run by scripts/browser-test.mjs, which sets the environment):
//   APP_URL              the app under `wrangler dev`
//   OFFLINE_APP_URL      a second instance: the offline model, token mode (test/browser/offline-app.mjs)
//   UPSTREAM_URL         the fake Messages API (test/fake-upstream), for scripts and recorded requests
//   BROWSER_WS_ENDPOINT  the suite's one Chromium (playwright-core launchServer)
//   SCREENSHOT_DIR       where screenshots go
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { chromium } from "playwright-core";
import { fakeControl, systemText } from "../fake-upstream/control.mjs";

export const APP_URL = must("APP_URL");
export const OFFLINE_APP_URL = must("OFFLINE_APP_URL");
export const UPSTREAM_URL = must("UPSTREAM_URL");
const WS_ENDPOINT = must("BROWSER_WS_ENDPOINT");
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ?? join(process.cwd(), "test-results", "screenshots");
mkdirSync(SCREENSHOT_DIR, { recursive: true });

function must(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests with \`npm run test:browser\``);
  return value;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A thread's socket, as a page opens it (for page.routeWebSocket). */
export const THREAD_SOCKET = /\/api\/threads\/[^/]+\/ws/;

/** A string that appears nowhere else: the fake upstream answers a request holding it with its script. */
export const marker = (label = "m") => `[[${label}-${randomUUID().slice(0, 8)}]]`;

// --- the browser ---------------------------------------------------------------------------------

let browser = null;
const FAILURE_DIR = join(SCREENSHOT_DIR, "..", "browser-failures");

/**
 * Connects this test file to the suite's browser (before) and disconnects (after). Returns `it`
 * (node:test's, wrapped: the test fails when a page of it broke the Worker's Content-Security-Policy,
 * its contexts are closed when it ends, and when it fails each of its pages leaves a screenshot and
 * its last socket frames and console lines in test-results/browser-failures/) and `newPage`, which
 * opens a fresh context and page.
 */
export function useBrowser() {
  let contexts = [];
  before(async () => {
    browser = await chromium.connect(WS_ENDPOINT);
  });
  after(async () => {
    await closeAll();
    await browser?.close().catch(() => {});
  });
  async function closeAll() {
    const open = contexts;
    contexts = [];
    for (const c of open) await c.close().catch(() => {});
  }
  async function keepEvidence(name, error) {
    const slug = name.replace(/[^\w]+/g, "-").replace(/^-|-$/g, "").slice(0, 60);
    mkdirSync(FAILURE_DIR, { recursive: true });
    let n = 0;
    for (const context of contexts) {
      for (const page of context.pages()) {
        const base = join(FAILURE_DIR, `${slug}-${++n}`);
        await page.screenshot({ path: `${base}.png`, timeout: 5_000 }).catch(() => {});
        const lines = [
          `test: ${name}`,
          `url: ${page.url()}`,
          `error: ${error?.stack ?? error}`,
          "",
          "page errors:",
          ...(page.errors ?? []),
          "",
          "console errors:",
          ...(page.consoleErrors ?? []),
          "",
          "Content-Security-Policy violations:",
          ...(page.cspViolations ?? []),
          "",
          "last socket frames (newest last):",
          ...(page.frames_ ?? []),
        ];
        writeFileSync(`${base}.txt`, lines.join("\n") + "\n");
      }
    }
    console.error(`# evidence of the failure: ${FAILURE_DIR}/${slug}-*`);
  }
  function browserIt(name, fn) {
    return it(name, async (t) => {
      try {
        await fn(t);
        assertNoCspViolations(contexts);
      } catch (err) {
        await keepEvidence(name, err);
        throw err;
      } finally {
        await closeAll();
      }
    });
  }
  return {
    it: browserIt,
    /** A fresh context (own storage) and one page in it. */
    async newPage(options = {}) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
      contexts.push(context);
      context.setDefaultTimeout(15_000);
      context.on("page", watchPage);
      const page = await context.newPage();
      return { context, page };
    },
  };
}

/**
 * The app must work under the Worker's Content-Security-Policy (no inline script or style, no other
 * origin): whatever the policy refused, Chromium reports on the console, and the test fails.
 */
function assertNoCspViolations(contexts) {
  const violations = contexts.flatMap((c) => c.pages().flatMap((p) => (p.cspViolations ?? []).map((v) => `${p.url()}: ${v}`)));
  if (violations.length) throw new Error(`the page broke its Content-Security-Policy:\n${violations.join("\n")}`);
}

/**
 * Keeps a page's uncaught errors in `page.errors` (tests assert it is empty), its console errors,
 * what its Content-Security-Policy refused (`page.cspViolations`, checked after every test) and its
 * last 300 WebSocket frames (for failure reports).
 */
function watchPage(page) {
  if (page.errors) return;
  page.errors = [];
  page.consoleErrors = [];
  page.cspViolations = [];
  page.frames_ = [];
  const keep = (line) => {
    page.frames_.push(line);
    if (page.frames_.length > 300) page.frames_.shift();
  };
  page.on("pageerror", (err) => page.errors.push(String(err?.stack ?? err)));
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    page.consoleErrors.push(msg.text());
    if (/Content Security Policy/i.test(msg.text())) page.cspViolations.push(msg.text());
  });
  page.on("websocket", (ws) => {
    keep(`${new Date().toISOString()} open ${ws.url()}`);
    ws.on("framereceived", (f) => keep(`${new Date().toISOString()} <- ${String(f.payload).slice(0, 300)}`));
    ws.on("framesent", (f) => keep(`${new Date().toISOString()} -> ${String(f.payload).slice(0, 300)}`));
    ws.on("close", () => keep(`${new Date().toISOString()} closed ${ws.url()}`));
  });
}

export async function screenshot(page, name, options = {}) {
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), ...options });
}

// --- waiting ---------------------------------------------------------------------------------------

/**
 * Polls `fn` until it returns a truthy value (which is returned) or throws no more; fails after
 * `timeout` ms with the last error or the message.
 */
export async function until(fn, { timeout = 15_000, interval = 50, message = "condition not met" } = {}) {
  const deadline = Date.now() + timeout;
  let lastError;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError ? `: ${lastError.message ?? lastError}` : "";
      throw new Error(`timed out after ${timeout} ms: ${message}${detail}`);
    }
    await sleep(interval);
  }
}

/** The text in the streaming bubble (without its model chip), or null when there is no bubble. */
export const streamingText = (page) => textOf(page.getByTestId("streaming-message").locator(".bubble"));

/** Text of a locator's first match, or null when there is none. */
export async function textOf(locator) {
  return (await locator.count()) ? (await locator.first().innerText()).trim() : null;
}

// --- the app's API and the fake upstream --------------------------------------------------------------

/** A call to the app's API (`app`: another instance's URL; `token`: token mode's bearer token). */
export async function api(path, { method, body, app = APP_URL, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${app}${path}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method ?? "GET"} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export async function createThread(name = "browser test") {
  const { thread } = await api("/api/threads", { body: { name } });
  return thread;
}

/** The fake upstream's control routes (answers scripted by a marker, the requests received). */
export const upstream = fakeControl(UPSTREAM_URL);

/** Registers fake-upstream answers for requests that contain `match`. */
export const script = upstream.script;

/** The Messages API requests the app sent that contain `match`. */
export const upstreamRequests = upstream.requests;

export { systemText };

/** `count` distinct words, so a missing or doubled word shows. */
export function words(count, prefix = "w") {
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`).join(" ");
}

// --- the chat page -----------------------------------------------------------------------------------

/** Opens a thread and waits until its messages are loaded and its socket is open. */
export async function openThread(page, threadId) {
  await page.goto(`${APP_URL}/t/${threadId}`);
  await waitForChatReady(page);
}

/** Signs in on the offline app (token mode) with `token` and waits for the app behind the form. */
export async function signIn(page, token, path = "/") {
  await page.goto(`${OFFLINE_APP_URL}${path}`);
  await page.getByTestId("token-input").fill(token);
  await page.getByTestId("sign-in-submit").click();
  await page.getByTestId("sign-in").waitFor({ state: "detached" });
}

export async function waitForChatReady(page) {
  await page.getByTestId("composer").waitFor();
  await until(async () => (await page.locator(".loading-line").count()) === 0, { message: "messages never loaded" });
  await until(() => socketOpen(page), { message: "the thread's socket never opened" });
}

/** The connection badge says "open" (ConnectionBadge). */
async function socketOpen(page) {
  const badge = page.getByTestId("connection-state");
  if ((await badge.count()) === 0) return true;
  return (await badge.getAttribute("data-state")) === "open";
}

export async function send(page, text) {
  const composer = page.getByTestId("composer");
  await composer.fill(text);
  await composer.press("Enter");
}

/** The user's messages that hold `text` (stored or pending). */
export const userMessage = (page, text) => page.locator('[data-testid="message"][data-role="user"]').filter({ hasText: text });

/** The bubbles of the assistant's text messages (stored or partial, not the streaming one). */
export const assistantTexts = (page) => page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"] .bubble');

/** The assistant text message (stored, not the streaming bubble) of the newest run. */
export function finalAssistant(page) {
  return page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]').last();
}

/** Waits for the stored assistant reply whose text is exactly `text`; returns its text. */
export async function waitForReply(page, text, timeout = 20_000) {
  return until(
    async () => {
      const bubbles = page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]:not([data-partial]) .bubble');
      const all = await bubbles.allInnerTexts();
      return all.map((t) => t.trim()).find((t) => t === text) ?? false;
    },
    { timeout, message: `no assistant message with the text ${JSON.stringify(text.slice(0, 80))}` },
  );
}
