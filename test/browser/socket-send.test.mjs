// A message goes over the thread's open socket (a `send` frame, answered by `accepted`), not by
// POST. When the socket is cut after the server stored the message and before its `accepted`
// reaches the page, the page posts it again with the same clientMessageId: the server answers with
// the message it stored, and the message shows once and is answered once.
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  api,
  assistantTexts,
  createThread,
  marker,
  openThread,
  screenshot,
  script,
  send,
  sleep,
  THREAD_SOCKET,
  until,
  upstreamRequests,
  useBrowser,
  userMessage,
  waitForChatReady,
  waitForReply,
} from "./helpers.mjs";

const { it, newPage } = useBrowser();

/**
 * Passes the page's thread sockets through to the Worker, noting each `send` frame. After `cutNext()`,
 * the next send reaches the server, but nothing the server sends back reaches the page: the page's
 * socket is closed once the server's `accepted` for it has arrived (kept in `held`).
 */
async function cuttableSockets(page) {
  const state = { opened: 0, sends: [], held: [], cutArmed: false, cutDone: false };
  await page.routeWebSocket(THREAD_SOCKET, (ws) => {
    state.opened++;
    const server = ws.connectToServer();
    let holding = false;
    ws.onMessage((raw) => {
      const frame = JSON.parse(String(raw));
      if (frame.type === "send") {
        state.sends.push(frame);
        if (state.cutArmed) [state.cutArmed, holding] = [false, true];
      }
      server.send(raw);
    });
    server.onMessage((raw) => {
      if (!holding) return ws.send(raw);
      const frame = JSON.parse(String(raw));
      state.held.push(frame);
      if (frame.event === "accepted") {
        state.cutDone = true;
        void ws.close({ code: 1011, reason: "cut before accepted" });
      }
    });
  });
  return { state, cutNext: () => (state.cutArmed = true) };
}

/** The page's POSTs of messages to the thread, with their answers. */
function watchPosts(page) {
  const posts = [];
  page.on("response", async (res) => {
    const req = res.request();
    if (req.method() !== "POST" || !/\/api\/threads\/[^/]+\/messages$/.test(new URL(req.url()).pathname)) return;
    posts.push({ body: req.postDataJSON(), status: res.status(), answer: await res.json().catch(() => null) });
  });
  return posts;
}

describe("sending over the socket", () => {
  it("sends over the open socket; cut before its accepted, the message is posted again, shown once and answered once", async () => {
    const { page } = await newPage();
    const { state, cutNext } = await cuttableSockets(page);
    const posts = watchPosts(page);
    const thread = await createThread("socket send");
    await openThread(page, thread.id);

    // An open socket carries the message: no POST.
    const first = marker("over-socket");
    await script(first, [{ kind: "text", text: "Heard over the socket." }]);
    await send(page, `First ${first}`);
    await waitForReply(page, "Heard over the socket.");
    assert.equal(state.sends.length, 1);
    assert.deepEqual(posts, [], "a message was posted while the socket was open");

    // The server stores the next one, and the socket is cut before the page hears back.
    const m = marker("cut");
    const reply = "Answered once, after the cut.";
    await script(m, [{ kind: "text", text: reply }]);
    cutNext();
    await send(page, `Second ${m}`);
    await until(() => state.cutDone, { message: "the server never accepted the send" });
    const accepted = state.held.find((f) => f.event === "accepted").data;
    assert.equal(accepted.clientMessageId, state.sends[1].clientMessageId);
    assert.equal(accepted.duplicate, false);

    // The page posts it with the same clientMessageId: the server answers with the stored message.
    await until(() => posts.length === 1 && posts[0].answer, { message: "the message was not posted after the cut" });
    assert.equal(posts[0].body.clientMessageId, accepted.clientMessageId);
    assert.equal(posts[0].status, 200);
    assert.equal(posts[0].answer.message.id, accepted.message.id);

    await waitForReply(page, reply);
    await waitForChatReady(page);
    assert.ok(state.opened >= 2, "the socket did not reconnect");
    await sleep(500);
    assert.equal(await userMessage(page, m).count(), 1, "the message shows other than once");
    assert.equal(await page.locator("[data-pending]").count(), 0, "a message is still pending");
    assert.equal((await assistantTexts(page).allInnerTexts()).filter((t) => t.trim() === reply).length, 1);
    await screenshot(page, "29-socket-cut-before-accepted");

    const { messages } = await api(`/api/threads/${thread.id}/messages`);
    const ours = messages.filter((msg) => msg.role === "user" && msg.content.includes(m));
    assert.deepEqual(ours.map((msg) => msg.id), [accepted.message.id]);
    const answers = messages.filter((msg) => msg.role === "assistant" && msg.parentId === accepted.message.id);
    assert.equal(answers.length, 1, "the message was answered other than once");
    assert.equal(answers[0].content, reply);
    assert.equal((await upstreamRequests(m)).length, 1, "the model was asked other than once");
    assert.equal(posts.length, 1);
    assert.deepEqual(page.errors, []);
  });
});
