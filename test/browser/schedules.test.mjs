// Schedules in the web app (issue 24): made, paused and edited in a thread's settings; their fires in
// the open thread (with a clock and the schedule's name); an unread dot on another thread one fired
// in; the Scheduled page; a notice when a scheduled run ends in the background; the browser's
// timezone on every thread. And, by the API alone, an every-2-seconds schedule fires, and stops once
// deleted.
//
// They run on the offline app as a user of their own (carol): a schedule's fires count against its
// owner's posts a minute, and they must not use up the other tests' (the app lets a schedule repeat
// every 2 s: SCHEDULE_MIN_INTERVAL_S in offline-app.mjs). Every schedule made here is deleted at the end.
import assert from "node:assert/strict";
import { after, describe } from "node:test";
import { OFFLINE_APP_URL, api as appApi, marker, screenshot, signIn, sleep, until, useBrowser, waitForChatReady } from "./helpers.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();
const { token } = OFFLINE_USERS.carol;
const TIMEZONE = "America/New_York";

/** The offline app's API, as carol. */
const api = (path, options = {}) => appApi(path, { ...options, app: OFFLINE_APP_URL, token });

const newThread = async (name, body = {}) => (await api("/api/threads", { body: { name, ...body } })).thread;

/** A page of carol's, in New York's timezone, showing `path` once signed in. */
async function carolPage(path, options = {}) {
  const opened = await newPage({ timezoneId: TIMEZONE, ...options });
  await signIn(opened.page, token, path);
  return opened;
}

/** The messages a schedule posted into a thread (as stored). */
async function scheduledMessages(threadId) {
  const { messages } = await api(`/api/threads/${threadId}/messages?kinds=text&limit=500`);
  return messages.filter((m) => m.source === "schedule");
}

const row = (page, threadId) => page.locator(`[data-testid="thread-item"][data-thread-id="${threadId}"]`);
const firedInPage = (page) => page.locator('[data-testid="message"][data-source="schedule"]');

/** What the tests made, for the later tests and the clean-up. */
const made = { a: null, b: null };

describe("schedules", () => {
  after(async () => {
    // Every 2 s they would go on firing into the other tests' time.
    const { schedules } = await api("/api/schedules").catch(() => ({ schedules: [] }));
    for (const s of schedules) await api(`/api/schedules/${s.id}`, { method: "DELETE" }).catch(() => {});
  });

  it("sends the browser's timezone with a new thread and sets it on an opened one; a cron thread says it is scheduled", async () => {
    const old = await newThread("Made without a timezone");
    assert.equal((await api(`/api/threads/${old.id}`)).thread.timezone, undefined);
    const { page } = await carolPage(`/t/${old.id}`);
    await waitForChatReady(page);
    await until(async () => (await api(`/api/threads/${old.id}`)).thread.timezone === TIMEZONE, {
      message: "the opened thread was not given the browser's timezone",
    });

    await page.getByTestId("new-thread").click();
    await page.waitForURL((url) => /^\/t\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(old.id));
    const created = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
    assert.notEqual(created, old.id);
    assert.equal((await api(`/api/threads/${created}`)).thread.timezone, TIMEZONE, "POST /api/threads went without the browser's timezone");

    const cron = await newThread(`Digest ${marker("cron")}`, { kind: "cron" });
    await page.goto(`${OFFLINE_APP_URL}/t/${cron.id}`);
    await waitForChatReady(page);
    assert.equal(await page.getByTestId("scheduled-thread-badge").innerText(), "Scheduled thread");
    await row(page, cron.id).getByTestId("thread-scheduled-mark").waitFor();
    assert.equal(await row(page, old.id).getByTestId("thread-scheduled-mark").count(), 0);
    assert.deepEqual(page.errors, []);
  });

  it("(a) creates an every-2-seconds schedule in the thread's settings, sees it fire into the open thread, pauses and edits it", async () => {
    const thread = await newThread("Schedules A");
    made.a = { thread };
    const { page } = await carolPage(`/t/${thread.id}`);
    await waitForChatReady(page);

    await page.getByTestId("open-settings").click();
    const panel = page.getByTestId("thread-settings");
    await until(async () => /No schedules/.test(await panel.getByTestId("schedule-list").innerText()), { message: "the empty list was not shown" });
    await panel.getByTestId("schedule-add").click();
    const form = panel.getByTestId("schedule-form");
    const m = marker("ping");
    const name = `Ping ${m}`;
    await form.getByTestId("schedule-prompt").fill(`Say hello ${m}`);
    await form.getByTestId("schedule-name").fill(name);
    await form.getByTestId("schedule-kind-every").check();
    assert.equal(await form.getByTestId("schedule-timezone").inputValue(), TIMEZONE, "the form starts in the user's timezone");

    // The server's 400 is shown: 1 s is shorter than the app allows.
    await form.getByTestId("schedule-every-count").fill("1");
    await form.getByTestId("schedule-every-unit").selectOption("seconds");
    await form.getByTestId("schedule-save").click();
    await until(async () => /at least 2 seconds/.test(await form.getByTestId("api-error").innerText()), { message: "the 400 was not shown" });

    await form.getByTestId("schedule-every-count").fill("2");
    await form.getByTestId("schedule-save").click();
    await form.waitFor({ state: "detached" });
    const item = panel.getByTestId("schedule-item");
    await item.waitFor();
    assert.match(await item.innerText(), new RegExp(`Ping \\[\\[ping-`));
    assert.equal(await item.getByTestId("schedule-when").innerText(), "Every 2 seconds");
    await until(async () => /\((in \d+ s|now)\)/.test(await item.getByTestId("schedule-next").innerText()), { message: "no next run in seconds" });
    const [stored] = (await api(`/api/threads/${thread.id}/schedules`)).schedules;
    assert.equal(stored.every, 2);
    assert.equal(stored.timezone, TIMEZONE);
    assert.equal(stored.name, name);
    made.a.schedule = stored;
    await screenshot(page, "40-schedule-settings");

    // It fires into the open thread: its messages come with a clock and the schedule's name, and are answered.
    await panel.getByTestId("thread-settings-close").click();
    await panel.waitFor({ state: "detached" });
    await until(async () => (await firedInPage(page).count()) >= 2, { timeout: 15_000, message: "the schedule did not fire twice into the open thread" });
    const first = firedInPage(page).first();
    assert.match(await first.innerText(), new RegExp(`Say hello`));
    assert.equal((await first.getByTestId("schedule-badge").innerText()).replace(/^Scheduled:\s*/, ""), name);
    await page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"]').first().waitFor({ timeout: 15_000 });
    await screenshot(page, "40-schedule-fired");

    // Paused, it fires no more.
    await page.getByTestId("open-settings").click();
    await item.getByTestId("schedule-toggle").click();
    await until(async () => (await item.getAttribute("data-enabled")) === "false", { message: "the schedule did not pause" });
    assert.equal(await item.getByTestId("schedule-next").innerText(), "Paused");
    assert.equal((await api(`/api/threads/${thread.id}/schedules`)).schedules[0].enabled, false);
    await sleep(1_000);
    const firedSoFar = (await scheduledMessages(thread.id)).length;
    await sleep(4_500);
    assert.equal((await scheduledMessages(thread.id)).length, firedSoFar, "a paused schedule fired");

    // Edited: a new name and every 10 minutes.
    await item.getByTestId("schedule-edit").click();
    const edit = panel.getByTestId("schedule-form");
    assert.equal(await edit.getByTestId("schedule-every-count").inputValue(), "2");
    await edit.getByTestId("schedule-name").fill(`${name} (edited)`);
    await edit.getByTestId("schedule-every-count").fill("10");
    await edit.getByTestId("schedule-every-unit").selectOption("minutes");
    await edit.getByTestId("schedule-save").click();
    await edit.waitFor({ state: "detached" });
    await until(async () => (await item.getByTestId("schedule-when").innerText()) === "Every 10 minutes", { message: "the edit did not show" });
    const [edited] = (await api(`/api/threads/${thread.id}/schedules`)).schedules;
    assert.equal(edited.every, 600);
    assert.equal(edited.name, `${name} (edited)`);
    assert.equal(edited.enabled, false, "an edit resumed it");
    assert.deepEqual(page.errors, []);
  });

  it("(b) puts an unread dot on another thread whose schedule fired while a different thread was open, until it is opened", async () => {
    const open = await newThread("Schedules, the open one");
    const other = await newThread(`Schedules B ${marker("b")}`);
    const { page } = await carolPage(`/t/${open.id}`);
    await waitForChatReady(page);
    await row(page, other.id).waitFor();
    assert.equal(await row(page, other.id).getAttribute("data-unread"), null, "a thread nothing happened in has a dot");

    const { schedule } = await api(`/api/threads/${other.id}/schedules`, { body: { prompt: "Check the plants", name: "Once for B", at: Date.now() + 3_000 } });
    made.b = { thread: other, schedule };
    // The sidebar learns of it from the list (GET /api/threads), read again every 12 s while visible.
    await until(async () => (await row(page, other.id).getAttribute("data-unread")) === "true", {
      timeout: 35_000,
      interval: 250,
      message: "no unread dot on the thread whose schedule fired",
    });
    await row(page, other.id).getByTestId("unread-dot").waitFor();
    assert.equal(await row(page, open.id).getAttribute("data-unread"), null, "the open thread has a dot");
    assert.equal((await scheduledMessages(other.id)).length, 1);
    await screenshot(page, "40-unread-dot");

    // Opened, it is seen, and stays seen after a reload.
    await row(page, other.id).locator(".thread-link").click();
    await waitForChatReady(page);
    await until(async () => (await row(page, other.id).getAttribute("data-unread")) === null, { message: "the dot stayed on the opened thread" });
    assert.equal((await firedInPage(page).getByTestId("schedule-badge").innerText()).replace(/^Scheduled:\s*/, ""), "Once for B");
    await page.goto(`${OFFLINE_APP_URL}/t/${open.id}`);
    await waitForChatReady(page);
    await row(page, other.id).waitFor();
    await sleep(500);
    assert.equal(await row(page, other.id).getAttribute("data-unread"), null, "the dot came back after a reload");
    assert.deepEqual(page.errors, []);
  });

  it("(c) lists both schedules on the Scheduled page, soonest first, with their threads; resumes and deletes one", async () => {
    assert.ok(made.a?.schedule && made.b?.schedule, "the schedules of (a) and (b) were not made");
    const { page } = await carolPage("/");
    await page.getByTestId("nav-scheduled").click();
    await page.waitForURL(/\/scheduled$/);
    const rowOf = (s) => page.locator(`[data-testid="scheduled-row"][data-schedule-id="${s.id}"]`);
    const [a, b] = [made.a, made.b];
    await rowOf(a.schedule).waitFor();
    await rowOf(b.schedule).waitFor();
    const link = async (s) => ({ href: await rowOf(s).getByTestId("scheduled-thread-link").getAttribute("href"), text: await rowOf(s).getByTestId("scheduled-thread-link").innerText() });
    assert.deepEqual(await link(a.schedule), { href: `/t/${a.thread.id}`, text: a.thread.name });
    assert.deepEqual(await link(b.schedule), { href: `/t/${b.thread.id}`, text: b.thread.name });
    assert.equal(await rowOf(a.schedule).getByTestId("schedule-next").innerText(), "Paused");
    assert.equal(await rowOf(b.schedule).getByTestId("schedule-next").innerText(), "Done (it ran once)");

    // Resumed, (a)'s runs again within 10 minutes (its phase is its edit's): it comes first, as the server orders them.
    await rowOf(a.schedule).getByTestId("schedule-toggle").click();
    await until(async () => (await rowOf(a.schedule).getAttribute("data-enabled")) === "true", { message: "the schedule did not resume" });
    assert.match(await rowOf(a.schedule).getByTestId("schedule-next").innerText(), /\(in \d+ min\)/);
    const order = await page.getByTestId("scheduled-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-schedule-id")));
    const { schedules } = await api("/api/schedules");
    assert.deepEqual(order, schedules.map((s) => s.id));
    assert.ok(order.indexOf(a.schedule.id) < order.indexOf(b.schedule.id), "the armed schedule is not first");
    await screenshot(page, "40-scheduled-page");
    // A one-time schedule that ran has nothing to pause.
    assert.equal(await rowOf(b.schedule).getByTestId("schedule-toggle").count(), 0);

    // Deleted (after a confirmation), it leaves the page and the server.
    await rowOf(a.schedule).getByTestId("schedule-delete").click();
    await rowOf(a.schedule).getByTestId("schedule-delete-confirm").click();
    await rowOf(a.schedule).waitFor({ state: "detached" });
    assert.deepEqual((await api("/api/schedules")).schedules.map((s) => s.id), [b.schedule.id]);

    await rowOf(b.schedule).getByTestId("scheduled-thread-link").click();
    await page.waitForURL(new RegExp(`/t/${b.thread.id}$`));
    assert.deepEqual(page.errors, []);
  });

  it("notifies, once asked to, of a scheduled run that ends while the tab is in the background", async () => {
    const thread = await newThread("Schedules, notified");
    const { context, page } = await newPage({ timezoneId: TIMEZONE });
    // The browser's Notification, recorded; the tab's visibility, as the test says.
    await context.addInitScript(() => {
      window.__notices = [];
      window.__asked = 0;
      class RecordedNotification {
        static permission = "default";
        static async requestPermission() {
          window.__asked += 1;
          RecordedNotification.permission = "granted";
          return "granted";
        }
        constructor(title, options) {
          window.__notices.push({ title, ...options });
        }
        close() {}
      }
      window.Notification = RecordedNotification;
      Object.defineProperty(Document.prototype, "visibilityState", { get: () => (window.__hidden ? "hidden" : "visible"), configurable: true });
    });
    await signIn(page, token, `/t/${thread.id}`);
    await waitForChatReady(page);
    const control = page.getByTestId("notifications");
    assert.equal(await control.getAttribute("data-state"), "off");
    await page.getByTestId("notifications-toggle").click();
    await until(async () => (await control.getAttribute("data-state")) === "on", { message: "notifications did not turn on" });
    assert.equal(await page.evaluate(() => window.__asked), 1, "the permission was not asked once");

    await page.evaluate(() => (window.__hidden = true));
    await api(`/api/threads/${thread.id}/schedules`, { body: { prompt: "Water the plants", name: "Plants", at: Date.now() + 2_000 } });
    const notices = await until(
      async () => {
        const shown = await page.evaluate(() => window.__notices);
        return shown.length ? shown : false;
      },
      { timeout: 20_000, message: "no notice of the scheduled run" },
    );
    assert.equal(notices[0].title, "Scheduled run finished: Plants");
    assert.equal(notices[0].body, "Schedules, notified");
    assert.deepEqual(page.errors, []);
  });

  it("(d) by the API: an every-2-seconds schedule fires at least twice in 9 s, and never again once deleted", async () => {
    const thread = await newThread("Schedules, by the API");
    const { schedule } = await api(`/api/threads/${thread.id}/schedules`, { body: { prompt: "Tick", every: 2 } });
    assert.equal(schedule.every, 2);
    await sleep(9_000);
    const fired = await scheduledMessages(thread.id);
    assert.ok(fired.length >= 2, `it fired ${fired.length} time(s) in 9 s`);
    assert.ok(fired.every((m) => m.metadata.scheduleId === schedule.id && m.metadata.scheduleName === "Tick"));

    await api(`/api/schedules/${schedule.id}`, { method: "DELETE" });
    const atDelete = (await scheduledMessages(thread.id)).length;
    await sleep(5_000);
    assert.equal((await scheduledMessages(thread.id)).length, atDelete, "a deleted schedule fired");
    assert.ok(!(await api("/api/schedules")).schedules.some((s) => s.id === schedule.id), "GET /api/schedules still lists it");
  });
});
