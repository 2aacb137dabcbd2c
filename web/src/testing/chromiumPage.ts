/// <reference types="node" />
// A real browser for the unit tests of code that needs a DOM (the web tests otherwise run in plain
// Node, which has none): one of the app's modules bundled by Vite, loaded into a blank page of a
// made-up origin in Chromium, with every request the page makes recorded. Chromium is the one the
// browser suite uses (CHROMIUM_PATH, default /usr/bin/chromium); without it the tests are skipped.

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { build, type Rolldown } from "vite";
import { afterAll, beforeAll } from "vitest";

const executablePath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const hasChromium = existsSync(executablePath);

/** The page's origin: nothing answers it but this file. */
export const PAGE_ORIGIN = "http://unit.test";

/** `entry` (a path from web/) as one script that sets `window[globalName]` to its exports. */
async function bundle(entry: string, globalName: string): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: "silent",
    root: fileURLToPath(new URL("../..", import.meta.url)),
    build: {
      write: false,
      minify: false,
      lib: { entry: fileURLToPath(new URL(`../../${entry}`, import.meta.url)), formats: ["iife"], name: globalName },
    },
  });
  const output = (Array.isArray(result) ? result[0] : result) as Rolldown.RolldownOutput;
  return output.output[0].code;
}

export interface ChromiumPage {
  page: Page;
  /** Every URL the page asked for, other than its own document and script. */
  requests: string[];
  close(): Promise<void>;
}

export async function openChromiumPage(entry: string, globalName: string): Promise<ChromiumPage> {
  const script = await bundle(entry, globalName);
  const browser: Browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu"] });
  const page = await browser.newPage();
  const requests: string[] = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    // UTF-8 said outright: without it the page reads the script's "…" and "•" as windows-1252.
    if (url === `${PAGE_ORIGIN}/`) return route.fulfill({ contentType: "text/html; charset=utf-8", body: "<!doctype html><title>unit</title><body></body>" });
    if (url === `${PAGE_ORIGIN}/module.js`) return route.fulfill({ contentType: "text/javascript; charset=utf-8", body: script });
    requests.push(url);
    return route.fulfill({ status: 404, body: "" });
  });
  await page.goto(`${PAGE_ORIGIN}/`);
  await page.addScriptTag({ url: "/module.js" });
  return { page, requests, close: () => browser.close() };
}

/**
 * `entry` open in Chromium for the tests of the describe block that calls this: opened before its
 * first test (a minute allowed to bundle and launch), closed after its last.
 */
export function chromiumPageForSuite(entry: string, globalName: string): ChromiumPage {
  let opened: ChromiumPage | undefined;
  beforeAll(async () => {
    opened = await openChromiumPage(entry, globalName);
  }, 60_000);
  afterAll(async () => {
    await opened?.close();
  });
  const open = () => {
    if (!opened) throw new Error(`${entry} is not open in Chromium yet`);
    return opened;
  };
  return {
    get page() {
      return open().page;
    },
    get requests() {
      return open().requests;
    },
    close: () => open().close(),
  };
}
