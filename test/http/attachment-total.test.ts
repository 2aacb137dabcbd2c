// A message's attachments together are at most MAX_ATTACHMENT_BYTES_PER_MESSAGE (20 MiB): past it a
// post, /api/chat, a send frame and an edit are 413 `too_large`, and nothing is stored.
import { afterEach, describe, expect, it } from "vitest";
import { MAX_ATTACHMENT_BYTES_PER_MESSAGE } from "../../protocol";
import { settle } from "../helpers";
import { createThreadVia, expectError, openSocketVia, tokenUsers } from "./util";

afterEach(() => settle());

describe("a message's attachments in all", () => {
  it("take at most 20 MiB: past it every path answers 413 and stores nothing; at it the message runs", async () => {
    const { users, tokenEnv, as } = tokenUsers("heavy");
    const call = as(users.heavy);
    const thread = await createThreadVia(call);
    const upload = async (size: number) => {
      const res = await call(`/api/threads/${thread.id}/attachments?name=f.txt`, { body: new Uint8Array(size).fill(0x61), headers: { "content-type": "text/plain" } });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json<any>()).attachment.id as string;
    };
    const half = MAX_ATTACHMENT_BYTES_PER_MESSAGE / 2;
    const [a, b] = [await upload(half), await upload(half)];
    const over = [a, b, await upload(1)];

    await expectError(await call(`/api/threads/${thread.id}/messages`, { body: { content: "too much", attachments: over } }), 413, "too_large");
    await expectError(await call("/api/chat", { body: { threadId: thread.id, content: "too much", attachments: over } }), 413, "too_large");
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.heavy.token}` });
    ws.send({ type: "send", content: "too much", clientMessageId: "c-over", attachments: over });
    const frames = await ws.waitFor((f) => f.some((x) => x.event === "error"), 10_000, "the send's refusal");
    expect(frames.find((x) => x.event === "error")!.data).toMatchObject({ code: "too_large", clientMessageId: "c-over" });

    const accepted = await call(`/api/threads/${thread.id}/messages`, { body: { content: "just fits", attachments: [a, b] } });
    expect(accepted.status, await accepted.clone().text()).toBe(202);
    const { message } = await accepted.json<any>();
    await expectError(await call(`/api/threads/${thread.id}/messages/${message.id}/edit`, { body: { content: "too much", attachments: over } }), 413, "too_large");
    await ws.waitForRunEnd(1, 60_000);
    expect(ws.events("pipeline:complete")).toHaveLength(1);
    const { messages } = await (await call(`/api/threads/${thread.id}/messages`)).json<any>();
    expect(messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["just fits"]);
    ws.close();
  }, 120_000);
});
