import type { ApiKey } from "@protocol";
import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiKeysQuery, createApiKey } from "./apiKeys";

const SECRET = "eo_AbC1234-the-rest-of-it";
const made: ApiKey = { id: "key_new", name: "my script", prefix: SECRET.slice(0, 10), createdAt: 2_000, lastUsedAt: null };
const old: ApiKey = { id: "key_old", name: "old", prefix: "eo_Zzz9999", createdAt: 1_000, lastUsedAt: 1_500 };

beforeEach(() => {
  vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
    if (init.method === "POST") return Response.json({ key: made, secret: SECRET }, { status: 201 });
    return Response.json({ keys: [made, old] });
  });
});
afterEach(() => vi.unstubAllGlobals());

describe("making a key", () => {
  it("lists the key at once, newest first, and hands the secret to the caller alone", async () => {
    const qc = new QueryClient();
    qc.setQueryData(apiKeysQuery.queryKey, [old]);
    const answer = await createApiKey(qc, "my script");
    expect(answer).toEqual({ key: made, secret: SECRET });
    expect(qc.getQueryData(apiKeysQuery.queryKey)?.map((k) => k.id)).toEqual(["key_new", "key_old"]);
  });

  it("leaves the secret nowhere in the query client: queries, mutations, their variables", async () => {
    const qc = new QueryClient();
    await qc.fetchQuery(apiKeysQuery);
    await createApiKey(qc, "my script");
    await qc.refetchQueries();
    const everything = JSON.stringify({
      queries: qc.getQueryCache().getAll().map((q) => q.state),
      mutations: qc.getMutationCache().getAll().map((m) => m.state),
    });
    expect(everything).toContain("key_new");
    expect(everything).not.toContain(SECRET);
  });
});
