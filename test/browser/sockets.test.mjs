// A thread's socket opens with a one-use ticket, never a token in its URL; every reconnect takes a
// new ticket; a socket closed because its credential expired (4001) reconnects once /api/health
// says the user is still signed in, and shows the sign-in state when it says they are not.
import assert from "node:assert/strict";
import { describe } from "node:test";
import WebSocket from "ws";
import {
  APP_URL,
  OFFLINE_APP_URL,
  api,
  createThread,
  marker,
  openThread,
  screenshot,
  script,
  send,
  THREAD_SOCKET,
  signIn,
  until,
  useBrowser,
  waitForChatReady,
  waitForReply,
} from "./helpers.mjs";
import { OFFLINE_USERS } from "./offline-app.mjs";

const { it, newPage } = useBrowser();

/**
 * Passes the page's thread sockets through to the Worker, keeping each one (`ws.url()`, and
 * `ws.close()` to close it from the server's side as the Worker would), and notes in order the
 * requests that take part in (re)connecting: GET /api/health and POST /api/ws-ticket.
 */
async function watchSockets(page) {
  const sockets = [];
  const steps = [];
  await page.routeWebSocket(THREAD_SOCKET, (ws) => {
    sockets.push(ws);
    steps.push("socket");
    ws.connectToServer();
  });
  page.on("request", (req) => {
    const path = new URL(req.url()).pathname;
    if (path === "/api/health" || path === "/api/ws-ticket") steps.push(`${req.method()} ${path}`);
  });
  return { sockets, steps };
}

const ticketOf = (url) => new URL(url).searchParams.get("ticket");

/** Opens `url` as the Worker's socket from Node: answers the upgrade's status (101: it opened). */
function upgradeStatus(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once("open", () => {
      ws.close();
      resolve(101);
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode);
      ws.terminate();
    });
    ws.once("error", reject);
  });
}

describe("thread sockets", () => {
  it("open with a one-use ticket, a new one at every reconnect, and come back after a 4001", async () => {
    const { page } = await newPage();
    const { sockets, steps } = await watchSockets(page);
    const thread = await createThread("socket tickets");
    await openThread(page, thread.id);

    const first = sockets[0].url();
    assert.ok(ticketOf(first), `no ticket in ${first}`);
    assert.ok(!new URL(first).searchParams.has("token"), `a token in ${first}`);
    assert.match(first, /[?&]since=\d+/);
    // The ticket opened this socket: it opens no other.
    assert.equal(await upgradeStatus(first), 401);

    // The Worker closes the socket: its credential expired.
    const before = steps.length;
    sockets[0].close({ code: 4001, reason: "credential expired" });
    await until(() => sockets.length === 2, { message: "the socket did not reconnect after a 4001" });
    assert.deepEqual(steps.slice(before), ["GET /api/health", "POST /api/ws-ticket", "socket"]);
    const second = sockets[1].url();
    assert.ok(ticketOf(second) && ticketOf(second) !== ticketOf(first), "the reconnect did not take a new ticket");
    await waitForChatReady(page);

    // An ordinary drop reconnects with a new ticket too, without asking who is signed in.
    const beforeDrop = steps.length;
    sockets[1].close({ code: 1011, reason: "going away" });
    await until(() => sockets.length === 3, { message: "the socket did not reconnect after a drop" });
    assert.deepEqual(steps.slice(beforeDrop), ["POST /api/ws-ticket", "socket"]);
    assert.notEqual(ticketOf(sockets[2].url()), ticketOf(second));
    await waitForChatReady(page);

    // The reconnected socket carries the thread's events.
    const m = marker("after-4001");
    await script(m, [{ kind: "text", text: "Still here after the reconnect." }]);
    await send(page, `Are you there? ${m}`);
    await waitForReply(page, "Still here after the reconnect.");
    assert.deepEqual(page.errors, []);
  });

  it("never put the token in a socket URL in token mode", async () => {
    const { alice } = OFFLINE_USERS;
    const { thread } = await api("/api/threads", { app: OFFLINE_APP_URL, token: alice.token, body: { name: "alice's socket" } });
    const { page } = await newPage();
    const opened = [];
    page.on("websocket", (ws) => opened.push(ws.url()));
    await signIn(page, alice.token, `/t/${thread.id}`);
    await waitForChatReady(page);
    assert.equal(opened.length, 1);
    assert.ok(ticketOf(opened[0]), `no ticket in ${opened[0]}`);
    assert.ok(!opened[0].includes("token=") && !opened[0].includes(alice.token), `the token is in ${opened[0]}`);
    assert.deepEqual(page.errors, []);
  });

  it("show the sign-in form when the credential expired and /api/health refuses it", async () => {
    const { alice } = OFFLINE_USERS;
    const { thread } = await api("/api/threads", { app: OFFLINE_APP_URL, token: alice.token, body: { name: "alice's expiring socket" } });
    const { page } = await newPage();
    const { sockets, steps } = await watchSockets(page);
    await signIn(page, alice.token, `/t/${thread.id}`);
    await waitForChatReady(page);
    await page.getByTestId("composer").fill("a draft that outlives the token");
    const draftKey = `orchestrator:alice:draft:${thread.id}`;
    await until(() => page.evaluate((k) => localStorage.getItem(k), draftKey), { message: "the draft was not kept" });

    // The token is no longer accepted (as when it was revoked), and the Worker closes the socket.
    await page.route("**/api/**", (route) =>
      route.fulfill({ status: 401, json: { error: { code: "unauthorized", message: "Sign in again" } } }),
    );
    const before = steps.length;
    sockets[0].close({ code: 4001, reason: "credential expired" });
    await page.getByTestId("sign-in").waitFor();
    assert.match(await page.getByTestId("sign-in-reason").innerText(), /no longer accepted/);
    assert.equal(steps[before], "GET /api/health");
    assert.equal(sockets.length, 1, "a socket opened without a valid credential");
    const stored = await page.evaluate(() => Object.fromEntries(Object.entries(localStorage)));
    assert.equal(stored["orchestrator:alice:token"], undefined, "the refused token was kept");
    assert.equal(stored[draftKey], "a draft that outlives the token", "the user's draft was lost");
    await screenshot(page, "14-credential-expired");
    assert.deepEqual(page.errors, []);
  });
});

describe("the app without sign-in", () => {
  it("says there is no sign-in, and offers no Sign out", async () => {
    const { page } = await newPage();
    await page.goto(APP_URL);
    await page.getByTestId("account").waitFor();
    assert.match(await page.getByTestId("account").innerText(), /No sign-in/);
    assert.equal(await page.getByTestId("sign-out").count(), 0);
    assert.deepEqual(page.errors, []);
  });
});
