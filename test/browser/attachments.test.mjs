// Files with a message: dropped on the chat, uploaded with progress, refused with a reason, sent to
// the model, shown in the bubble, opened full size.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { createThread, marker, openThread, screenshot, send, until, upstreamRequests, useBrowser, userMessage, waitForReply } from "./helpers.mjs";
import { dropFiles, gradientPng } from "./files.mjs";

const { it, newPage } = useBrowser();

/** The image blocks of the user turns the model was sent for requests holding `match`. */
async function imagesSentFor(match) {
  const requests = await upstreamRequests(match);
  return requests.flatMap((r) =>
    (r.body.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === "image") : [])),
  );
}

describe("attachments", () => {
  it("attaches an image dropped on the chat, sends it to the model and shows it in the bubble", async () => {
    const { page } = await newPage();
    const thread = await createThread("attachments");
    const m = marker("image");
    const png = gradientPng();
    await openThread(page, thread.id);

    // While the file is held over the chat, the chat says where it goes.
    await dropFiles(page, '[data-testid="chat-view"]', [{ name: "gradient.png", type: "image/png", bytes: png }], async () => {
      await page.locator(".drop-overlay").waitFor();
      await screenshot(page, "22-drop-overlay");
    });
    await page.locator(".drop-overlay").waitFor({ state: "detached" });

    // It uploads, with a thumbnail in the composer, and the message waits for it.
    const upload = page.locator('[data-testid="upload"][data-name="gradient.png"]');
    await upload.waitFor();
    await until(async () => (await upload.getAttribute("data-status")) === "done", { message: "the upload never finished" });
    assert.equal(await upload.locator("img.upload-thumb").count(), 1);

    await send(page, `What is in this picture? ${m}`);
    await waitForReply(page, `Echo: What is in this picture? ${m}`);
    assert.equal(await page.getByTestId("upload").count(), 0, "the composer kept the sent file");

    // The model got the image before the text, as the bytes uploaded.
    const images = await imagesSentFor(m);
    assert.equal(images.length, 1);
    assert.equal(images[0].source.media_type, "image/png");
    assert.equal(images[0].source.data, png.toString("base64"));

    // The bubble shows the thumbnail, loaded through the API.
    const bubbleImage = userMessage(page, m).last().getByTestId("attachment-image").locator("img");
    await bubbleImage.waitFor();
    await until(() => bubbleImage.evaluate((img) => img.complete && img.naturalWidth === 96), { message: "the thumbnail never loaded" });
    assert.match(await bubbleImage.getAttribute("src"), /^blob:/);
    await screenshot(page, "23-image-in-bubble");

    // A click opens it full size; Escape closes it.
    await userMessage(page, m).last().getByTestId("attachment-image").click();
    const lightbox = page.getByTestId("lightbox");
    await lightbox.locator("img").waitFor();
    await screenshot(page, "24-lightbox");
    await page.keyboard.press("Escape");
    await lightbox.waitFor({ state: "detached" });
    assert.deepEqual(page.errors, []);
  });

  it("shows next to each file why it cannot go, and holds the message until it is removed", async () => {
    const { page } = await newPage();
    const thread = await createThread("refused files");
    await openThread(page, thread.id);

    // A type the server does not take is refused at once; bytes that are not what their type says
    // are refused by the server (415); a text file goes through.
    await page.getByTestId("file-input").setInputFiles([
      { name: "tool.exe", mimeType: "application/x-msdownload", buffer: Buffer.from("MZ") },
      { name: "fake.png", mimeType: "image/png", buffer: Buffer.from("this is not a png") },
      { name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\n\nsome text") },
    ]);
    const item = (name) => page.locator(`[data-testid="upload"][data-name="${name}"]`);
    await until(async () => (await item("fake.png").getAttribute("data-status")) === "failed", { message: "the fake PNG was not refused" });
    await until(async () => (await item("notes.md").getAttribute("data-status")) === "done", { message: "the text file did not upload" });
    assert.match(await item("tool.exe").getByTestId("upload-error").innerText(), /cannot be sent/);
    assert.match(await item("fake.png").getByTestId("upload-error").innerText(), /not image\/png/);

    await page.getByTestId("composer").fill("Read my notes");
    assert.equal(await page.getByTestId("send").isDisabled(), true, "Send went with failed files attached");
    assert.match(await page.getByTestId("composer-waiting").innerText(), /Remove the files/);
    await screenshot(page, "25-refused-files");

    await item("tool.exe").getByTestId("upload-remove").click();
    await item("fake.png").getByTestId("upload-remove").click();
    await page.getByTestId("send").click();
    await waitForReply(page, "Echo: Read my notes");
    const chip = userMessage(page, "Read my notes").last().getByTestId("attachment-file");
    assert.match(await chip.innerText(), /notes\.md/);

    // A click opens the file in a new tab, as text.
    const [tab] = await Promise.all([page.context().waitForEvent("page"), chip.click()]);
    await until(() => tab.url().startsWith("blob:"), { message: `the new tab never showed the file: ${tab.url()}` });
    await until(async () => (await tab.locator("body").innerText()).includes("# Notes"), { message: "the tab does not show the file's text" });
    await tab.close();
    assert.deepEqual(page.errors, []);
  });

  it("attaches an image pasted into the composer, and leaves the text alone", async () => {
    const { page } = await newPage();
    const thread = await createThread("pasted image");
    await openThread(page, thread.id);
    const composer = page.getByTestId("composer");
    await composer.fill("Look:");
    await composer.evaluate((el, base64) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], "image.png", { type: "image/png" }));
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, gradientPng(32, 32).toString("base64"));
    const upload = page.locator('[data-testid="upload"][data-name="image.png"]');
    await until(async () => (await upload.getAttribute("data-status")) === "done", { message: "the pasted image did not upload" });
    assert.equal(await composer.inputValue(), "Look:");
    assert.deepEqual(page.errors, []);
  });
});
