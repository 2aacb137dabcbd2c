import { describe, expect, it } from "vitest";
import { api, createThread, json, Socket } from "./helpers";

describe("smoke", () => {
  it("answers health and runs a message end to end", async () => {
    const health = await json(api("/api/health"));
    expect(health).toMatchObject({ ok: true, model: { provider: "anthropic" } });
    const thread = await createThread({ name: "smoke" });
    const ws = await Socket.open(thread.id);
    const res = await api(`/api/threads/${thread.id}/messages`, { body: { content: "hello there" } });
    expect(res.status).toBe(202);
    await ws.waitForRunEnd();
    console.log(ws.frames.map((f) => `${f.seq ?? "-"} ${f.event} ${JSON.stringify(f.data).slice(0, 100)}`).join("\n"));
    expect(ws.events("pipeline:complete")).toHaveLength(1);
  });
});
