// Titles: a thread still called "New thread" is named after its first exchange; a given name stays.
import { afterEach, describe, expect, it } from "vitest";
import { firstWords } from "../../worker/plugins/titles";
import { api, json, marker, script, settle, Socket, until, upstreamRequests } from "../helpers";

afterEach(() => settle());

describe("titles", () => {
  it("names a new thread from its first exchange with a short model call, and tells every tab", async () => {
    const { thread } = await json<any>(api("/api/threads", { body: {} }));
    expect(thread.name).toBe("New thread");
    const m = marker("title");
    await script(m, [{ kind: "text", text: "Paris." }, { kind: "text", text: "“Capital of France.”" }]);
    const ws = await Socket.open(thread.id);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `What is the capital of France? ${m}` } });
    const frames = await ws.waitFor((f) => f.some((x) => x.event === "thread:updated" && x.data.thread.name !== "New thread"));
    expect(frames.find((x) => x.event === "thread:updated" && x.data.thread.name !== "New thread")!.data.thread.name).toBe("Capital of France");
    const [, titleRequest] = await upstreamRequests(m);
    expect(titleRequest.body.system[0].text).toContain("You name chat threads");
    expect(titleRequest.body.max_tokens).toBe(30);
    expect(titleRequest.body.thinking).toBeUndefined();
    expect((await json<any>(api(`/api/threads/${thread.id}`))).thread.name).toBe("Capital of France");
    // The title's cost is on the books as a run of its own.
    const titleRuns = async () => (await json<any>(api(`/api/metrics?threadId=${thread.id}`))).runs.filter((r: any) => r.status === "title").length;
    await until(titleRuns, (n) => n === 1);
    // Only the first exchange names it.
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `And of Italy? ${m}` } });
    await ws.waitForRunEnd(2);
    expect(await upstreamRequests(m)).toHaveLength(3);
    ws.close();
  });

  it("never renames a thread a person named", async () => {
    const { thread } = await json<any>(api("/api/threads", { body: { name: "Mine" } }));
    const m = marker("named");
    const ws = await Socket.open(thread.id);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `hello ${m}` } });
    await ws.waitForRunEnd(1);
    expect(await upstreamRequests(m)).toHaveLength(1);
    expect((await json<any>(api(`/api/threads/${thread.id}`))).thread.name).toBe("Mine");
    ws.close();
  });

  it("offline, takes the first words of the question", () => {
    expect(firstWords("  How do I   bake bread without yeast at home today?")).toBe("How do I bake bread without");
  });
});
