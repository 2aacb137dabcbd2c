// The model catalog (worker/invoker/catalog.ts): the Models API's list, held per isolate for a day and
// refreshed in the background; the built-in list when the API cannot be reached or answers an error.
//
// The fake upstream's control API records only POST /v1/messages, not GET /v1/models, so the Models
// API's requests are counted here on the SDK client itself: a real client (as the worker builds it)
// talking to the fake over HTTP, through a fetch that notes every request it makes. The module takes
// the time as `catalog(client, now)`, which is how a day (or the retry pause) is made to pass; the
// moment of a fetch it stamps with the real clock.
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelInfo } from "../../protocol";
import { BUILT_IN_MODELS, catalog, forgetCatalog, modelInfo, unknownModel } from "../../worker/invoker/catalog";
import { api, env, json } from "../helpers";
import { callApp } from "../http/util";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** What the fake's Models API lists (test/fake-upstream/models.mjs), in its order. */
const FAKE_IDS = ["claude-sonnet-4-6", "claude-opus-4-6", "claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5", "claude-fake-plain", "claude-fake-small"];
const BUILT_IN_IDS = BUILT_IN_MODELS.map((m) => m.id);

/** A port nothing listens on: the connection is refused at once. */
const NOWHERE = "http://127.0.0.1:9";

/**
 * An SDK client to `baseURL` whose Models API requests are counted. `edit` may change a models
 * page before the SDK reads it (the fake's own list is fixed); `fail` makes the next requests throw
 * as a network failure would.
 */
function modelsClient(baseURL = env.ANTHROPIC_BASE_URL!, edit?: (page: any) => any) {
  const requests: string[] = [];
  const state = { fail: false, edit };
  const client = new Anthropic({
    apiKey: "test-key",
    baseURL,
    maxRetries: 0,
    fetch: async (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      requests.push(new URL(url).pathname);
      if (state.fail) throw new TypeError("fetch failed");
      const res = await fetch(input, init);
      if (!state.edit || !res.ok) return res;
      const page = state.edit(await res.json());
      return new Response(JSON.stringify(page), { status: 200, headers: { "content-type": "application/json" } });
    },
  });
  return { client, requests, state };
}

const ids = (models: ModelInfo[]) => models.map((m) => m.id);

/** Lets a background refresh (a few local HTTP round trips) finish. */
async function settled(requests: string[], count: number) {
  const deadline = Date.now() + 5_000;
  while (requests.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  // The request went out; the SDK still reads the page and the module stores it.
  await new Promise((r) => setTimeout(r, 100));
}

// The catalog is module state of this isolate (the worker's too): leave it as the next lookup fetches anew.
afterEach(() => forgetCatalog());

describe("the built-in fallback", () => {
  it("serves the built-in list when the Models API cannot be reached", async () => {
    forgetCatalog();
    const { client, requests } = modelsClient(NOWHERE);
    const models = await catalog(client);
    expect(models).toEqual(BUILT_IN_MODELS);
    expect(requests).toEqual(["/v1/models"]);
    // A model the API would have listed but the built-in list does not know is built as an unknown one.
    expect(await modelInfo(client, "claude-fake-small")).toEqual(unknownModel("claude-fake-small"));
    expect(await modelInfo(client, "claude-haiku-4-5")).toMatchObject({ contextWindow: 200_000, thinking: ["enabled"], compaction: false });
  });

  it("serves the built-in list when the Models API answers an error (a server without the models route: 404)", async () => {
    forgetCatalog();
    // The fake answers 404 for any route it does not know, as a compatible server without /v1/models does.
    const { client, requests } = modelsClient(`${env.ANTHROPIC_BASE_URL}/no-models-here`);
    expect(await catalog(client)).toEqual(BUILT_IN_MODELS);
    expect(requests).toEqual(["/no-models-here/v1/models"]);
  });

  it("serves the built-in list when the API lists no model it can use (every one retired)", async () => {
    forgetCatalog();
    const { client } = modelsClient(undefined, (page) => ({ ...page, data: page.data.map((m: any) => ({ ...m, lifecycle: "retired" })) }));
    expect(await catalog(client)).toEqual(BUILT_IN_MODELS);
  });

  it("does not ask again for ten minutes after a failure, then asks (and takes the API's list once it answers)", async () => {
    forgetCatalog();
    const { client, requests, state } = modelsClient();
    state.fail = true;
    expect(await catalog(client)).toEqual(BUILT_IN_MODELS);
    expect(requests).toHaveLength(1);
    state.fail = false;
    // Within the pause: the built-in list, from memory.
    expect(await catalog(client, Date.now() + 5 * MINUTE)).toEqual(BUILT_IN_MODELS);
    expect(await catalog(client, Date.now() + 9 * MINUTE)).toEqual(BUILT_IN_MODELS);
    expect(requests).toHaveLength(1);
    // Past it: the lookup answers at once with what it holds, and asks the API in the background.
    expect(await catalog(client, Date.now() + 11 * MINUTE)).toEqual(BUILT_IN_MODELS);
    await settled(requests, 2);
    expect(requests).toHaveLength(2);
    expect(ids(await catalog(client))).toEqual(FAKE_IDS);
    expect(requests).toHaveLength(2);
  });

  it("reaches the app: GET /api/models lists the built-in models while the Models API is away", async () => {
    forgetCatalog();
    const away = { ...env, ANTHROPIC_BASE_URL: NOWHERE };
    const res = await callApp(away, "/api/models");
    expect(res.status).toBe(200);
    expect(ids((await res.json<{ models: ModelInfo[] }>()).models)).toEqual(BUILT_IN_IDS);
    // The failure is held for the isolate: the deployment's own upstream is not asked meanwhile.
    expect(ids((await json<{ models: ModelInfo[] }>(callApp(env, "/api/models"))).models)).toEqual(BUILT_IN_IDS);
    forgetCatalog();
    expect(ids((await json<{ models: ModelInfo[] }>(callApp(env, "/api/models"))).models)).toEqual(FAKE_IDS);
  });
});

describe("the cache", () => {
  it("fetches on first use, from the API, with each model's capabilities", async () => {
    forgetCatalog();
    const { client, requests } = modelsClient();
    const models = await catalog(client);
    expect(ids(models)).toEqual(FAKE_IDS);
    expect(requests).toEqual(["/v1/models"]);
    expect(models.find((m) => m.id === "claude-fake-small")).toEqual({
      id: "claude-fake-small",
      displayName: "Fake model with a small window",
      contextWindow: 25_000,
      maxOutputTokens: 4_096,
      thinking: ["enabled"],
      compaction: false,
      codeExecution: null,
    });
    expect(models.find((m) => m.id === "claude-sonnet-4-6")).toMatchObject({ codeExecution: "code_execution_20260521" });
    expect(models.find((m) => m.id === "claude-haiku-4-5")).toMatchObject({ codeExecution: "code_execution_20250825" });
    expect(models.find((m) => m.id === "claude-fake-plain")).toMatchObject({ thinking: [], contextWindow: 32_000 });
  });

  it("leaves out retired models", async () => {
    forgetCatalog();
    const { client } = modelsClient(undefined, (page) => ({
      ...page,
      data: page.data.map((m: any) => (m.id === "claude-opus-4-5" ? { ...m, lifecycle: "retired" } : m)),
    }));
    expect(ids(await catalog(client))).toEqual(FAKE_IDS.filter((id) => id !== "claude-opus-4-5"));
  });

  it("does not call the Models API again within a day, however many lookups", async () => {
    forgetCatalog();
    const { client, requests } = modelsClient();
    // Concurrent first lookups share one request.
    const [a, b, c] = await Promise.all([catalog(client), catalog(client), modelInfo(client, "claude-fake-plain")]);
    expect(ids(a)).toEqual(FAKE_IDS);
    expect(b).toBe(a);
    expect(c.contextWindow).toBe(32_000);
    expect(requests).toHaveLength(1);
    for (const later of [0, MINUTE, HOUR, 12 * HOUR, DAY - 5 * MINUTE]) {
      expect(await catalog(client, Date.now() + later)).toBe(a);
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(requests).toHaveLength(1);
  });
});

describe("the daily refresh", () => {
  it("after a day, answers from memory at once and refreshes in the background, once", async () => {
    forgetCatalog();
    const first = modelsClient();
    const before = await catalog(first.client);
    expect(ids(before)).toEqual(FAKE_IDS);

    // A day later the API lists one model fewer (claude-fake-plain retired).
    const later = modelsClient(undefined, (page) => ({ ...page, data: page.data.filter((m: any) => m.id !== "claude-fake-plain") }));
    const tomorrow = Date.now() + DAY + MINUTE;
    // Two lookups past the day: both answer the held list, and only one refresh goes out.
    const [x, y] = await Promise.all([catalog(later.client, tomorrow), catalog(later.client, tomorrow)]);
    expect(x).toBe(before);
    expect(y).toBe(before);
    await settled(later.requests, 1);
    expect(later.requests).toEqual(["/v1/models"]);

    const after = await catalog(later.client);
    expect(ids(after)).toEqual(FAKE_IDS.filter((id) => id !== "claude-fake-plain"));
    expect(await modelInfo(later.client, "claude-fake-plain")).toEqual(unknownModel("claude-fake-plain"));
    // The refresh restarted the day: no further request until another one has passed.
    expect(await catalog(later.client, Date.now() + DAY - MINUTE)).toBe(after);
    await new Promise((r) => setTimeout(r, 100));
    expect(later.requests).toHaveLength(1);
    expect(first.requests).toHaveLength(1);
  });

  // A failed background refresh must not take away, for ten minutes, the models the API offered.
  it("a failed daily refresh keeps the list the API last gave", async () => {
    forgetCatalog();
    const { client, requests, state } = modelsClient();
    const before = await catalog(client);
    expect(ids(before)).toEqual(FAKE_IDS);
    state.fail = true;
    expect(await catalog(client, Date.now() + DAY + MINUTE)).toBe(before);
    await settled(requests, 2);
    expect(requests).toHaveLength(2);
    expect(ids(await catalog(client))).toEqual(FAKE_IDS);
  });

  it("the offline model (no client) always has the built-in list and asks nothing", async () => {
    forgetCatalog();
    expect(await catalog(null)).toBe(BUILT_IN_MODELS);
    expect(await catalog(null, Date.now() + 2 * DAY)).toBe(BUILT_IN_MODELS);
    expect(await modelInfo(null, "claude-sonnet-4-6")).toEqual(BUILT_IN_MODELS[0]);
    // And GET /api/models (the deployment's upstream) still answers the API's list after it.
    expect(ids((await json<{ models: ModelInfo[] }>(api("/api/models"))).models)).toEqual(FAKE_IDS);
  });
});
