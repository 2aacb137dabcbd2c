// The Worker serves the app with a Content-Security-Policy that allows no inline script or style
// and no other origin. The app must work under it: every test fails on a violation (helpers.mjs);
// this file checks that the policy is there at all, and that such a violation is noticed.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { APP_URL, until, useBrowser } from "./helpers.mjs";

const { it, newPage } = useBrowser();

describe("Content-Security-Policy", () => {
  it("comes with the page, a deep link and the app's script, and the app is styled under it", async () => {
    const { page } = await newPage();
    for (const path of ["/t/thr_nowhere", "/usage", "/"]) {
      const response = await page.goto(`${APP_URL}${path}`);
      const headers = response.headers();
      assert.match(headers["content-security-policy"] ?? "", /script-src 'self'/, `no CSP on ${path}`);
      assert.doesNotMatch(headers["content-security-policy"], /unsafe-inline|unsafe-eval/);
      assert.equal(headers["x-content-type-options"], "nosniff");
      assert.equal(headers["x-frame-options"], "DENY");
      assert.equal(headers["referrer-policy"], "no-referrer");
    }
    const script = await page.locator("script[src]").first().getAttribute("src");
    const asset = await fetch(new URL(script, APP_URL));
    assert.equal(asset.headers.get("x-content-type-options"), "nosniff");

    // The stylesheet applied: the page has the app's own background and font, not the browser's.
    await page.getByTestId("composer").waitFor();
    const look = await page.evaluate(() => ({ font: getComputedStyle(document.body).fontFamily, bg: getComputedStyle(document.body).backgroundColor }));
    assert.doesNotMatch(look.font, /^"?Times/);
    assert.notEqual(look.bg, "rgba(0, 0, 0, 0)");
    assert.deepEqual(page.errors, []);
  });

  it("is enforced, and a violation is noticed", async () => {
    const { page } = await newPage();
    await page.goto(APP_URL);
    await page.getByTestId("composer").waitFor();
    // What a sanitizer that let something through would do: the policy stops it, the suite notices.
    await page.evaluate(() => {
      const img = document.createElement("img");
      img.src = "https://tracker.example/pixel.gif";
      document.body.append(img);
    });
    await until(() => page.cspViolations.length > 0, { message: "the policy's refusal was not reported" });
    assert.match(page.cspViolations[0], /img-src/);
    page.cspViolations.length = 0; // noticed on purpose: this test does not fail on it
    assert.deepEqual(page.errors, []);
  });
});
