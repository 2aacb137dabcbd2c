// The API keys page's form and one-time secret (rendered to markup: no DOM needed).
import type { ApiKey } from "@protocol";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api";
import { KEY_LIMIT_TEXT } from "../lib/apiKeys";
import { NewApiKeyForm } from "./NewApiKeyForm";
import { NewApiKeySecret } from "./NewApiKeySecret";

const form = (error: unknown, creating = false) => renderToStaticMarkup(createElement(NewApiKeyForm, { creating, error, onCreate: () => {} }));
const key: ApiKey = { id: "key_1", name: "my script", prefix: "eo_AbC1234", createdAt: 1_000, lastUsedAt: null };

describe("the new key's form", () => {
  it("has a labelled name field and no error at first", () => {
    const html = form(null);
    expect(html).toMatch(/<label[^>]*for="([^"]+)"[^>]*>Name<\/label>/);
    const labelFor = /<label[^>]*for="([^"]+)"/.exec(html)![1];
    expect(html).toContain(`id="${labelFor}"`);
    expect(html).not.toContain('role="alert"');
  });

  it("says the key limit in plain words on a 429", () => {
    const html = form(new ApiError(429, "rate_limited", "You have 20 keys: revoke one to make another"));
    expect(html).toContain('data-testid="api-key-limit"');
    expect(html).toContain(KEY_LIMIT_TEXT);
  });

  it("shows the server's other refusals with their issues", () => {
    const html = form(new ApiError(400, "invalid_request", "Invalid body", [{ path: "name", message: "Too long", code: "too_big" }]));
    expect(html).toContain('data-testid="api-error"');
    expect(html).toContain("Invalid body");
    expect(html).toContain("Too long");
  });

  it("cannot be sent twice while a key is being made", () => {
    expect(form(null, true)).toMatch(/<button type="submit"[^>]*disabled=""[^>]*>Creating…<\/button>/);
  });
});

describe("the one-time secret's panel", () => {
  it("shows the whole secret, a Copy button and the warning that it will not be shown again", () => {
    const html = renderToStaticMarkup(createElement(NewApiKeySecret, { apiKey: key, secret: "eo_AbC1234xyz", onDismiss: () => {} }));
    expect(html).toContain('data-testid="api-key-secret">eo_AbC1234xyz</code>');
    expect(html).toContain(">Copy</button>");
    expect(html).toContain("won’t be shown again");
    expect(html).toContain("Done, I have copied it");
  });
});
