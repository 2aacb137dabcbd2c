// DATA_JURISDICTION: every object (the thread's, the user's) is reached through the jurisdiction's
// namespace; a value that is not a jurisdiction is refused, never ignored. (workerd has no
// jurisdictions: the namespaces here note the call and answer as the plain namespace does.)
import { describe, expect, it } from "vitest";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { app } from "../../worker/http/app";
import { hintFrom } from "../../worker/lib/placement";
import { callApp, env } from "./util";

/** The namespace, noting each jurisdiction it is asked for. */
function noting(namespace: DurableObjectNamespace, asked: string[]): DurableObjectNamespace {
  return new Proxy(namespace, {
    get(target, name) {
      if (name === "jurisdiction") return (j: string) => (asked.push(j), target);
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("DATA_JURISDICTION", () => {
  it("reaches the thread's object and the user's through the jurisdiction's namespace, on every route", async () => {
    const asked = { threads: [] as string[], users: [] as string[] };
    const eu = { ...env, DATA_JURISDICTION: "eu", THREAD_ROOM: noting(env.THREAD_ROOM, asked.threads), USER_ROOM: noting(env.USER_ROOM, asked.users) };
    const made = await callApp(eu, "/api/threads", { body: { name: "kept in the EU" } });
    expect(made.status).toBe(201);
    const { thread } = await made.json<any>();
    expect((await callApp(eu, `/api/threads/${thread.id}`)).status).toBe(200);
    expect((await (await callApp(eu, "/api/threads")).json<any>()).threads.map((t: any) => t.id)).toContain(thread.id);
    expect(new Set(asked.threads)).toEqual(new Set(["eu"]));
    expect(new Set(asked.users)).toEqual(new Set(["eu"]));
    expect(asked.threads.length).toBeGreaterThanOrEqual(2);
  });

  it("works on this runtime, which has no jurisdictions (wrangler dev): the objects are made as usual", async () => {
    const made = await callApp({ ...env, DATA_JURISDICTION: "eu" }, "/api/threads", { body: { name: "local" } });
    expect(made.status).toBe(201);
  });

  it("refuses a value that is not a jurisdiction rather than place objects outside it", async () => {
    const res = await callApp({ ...env, DATA_JURISDICTION: "mars" }, "/api/threads", { body: {} });
    expect(res.status).toBe(500);
    expect((await res.json<any>()).error.code).toBe("internal");
  });
});

describe("location hints", () => {
  const from = (cf: Record<string, string>) => new Request("https://app.test/api/threads", { cf } as RequestInit);

  it("place a person's new objects near where their request came from", () => {
    expect(hintFrom(env, from({ continent: "EU", longitude: "2.35" }))).toBe("weur");
    expect(hintFrom(env, from({ continent: "EU", longitude: "30.5" }))).toBe("eeur");
    expect(hintFrom(env, from({ continent: "NA", longitude: "-122.4" }))).toBe("wnam");
    expect(hintFrom(env, from({ continent: "NA", longitude: "-74.0" }))).toBe("enam");
    expect(hintFrom(env, from({ continent: "AS", longitude: "139.7" }))).toBe("apac");
    expect(hintFrom(env, from({ continent: "AS", longitude: "46.7" }))).toBe("me");
    expect(hintFrom(env, from({ continent: "OC", longitude: "151.2" }))).toBe("oc");
    expect(hintFrom(env, new Request("https://app.test/"))).toBeUndefined();
  });

  it("go with the thread a request creates", async () => {
    const options: unknown[] = [];
    const THREAD_ROOM = new Proxy(env.THREAD_ROOM, {
      get(target, name) {
        if (name === "get") return (id: DurableObjectId, opts?: unknown) => (options.push(opts), target.get(id, opts as DurableObjectNamespaceGetDurableObjectOptions));
        const value = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const request = new Request("https://app.test/api/threads", { method: "POST", headers: { "content-type": "application/json" }, body: "{}", cf: { continent: "EU", longitude: "2.35" } } as RequestInit);
    const ctx = createExecutionContext();
    const res = await app.fetch(request, { ...env, THREAD_ROOM }, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(201);
    expect(options[0]).toEqual({ locationHint: "weur" });
  });

  it("are not given inside a jurisdiction, which places the objects itself", () => {
    expect(hintFrom({ ...env, DATA_JURISDICTION: "eu" }, from({ continent: "EU", longitude: "2.35" }))).toBeUndefined();
  });
});
