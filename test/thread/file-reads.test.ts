// A run's files are bounded before they are read: what fits a request (images of at most 5 MB of
// base64, files within 24 MiB, the newest first) is chosen by the sizes stored with the files, and only
// that is read from R2. Twenty project images of 3.5 MB (4.7 MB as base64) would be 93 MB encoded; the
// run reads the five that fit, and the rest go as notes, as before.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ThreadRoom } from "../../worker/thread/room";
import { marker, script, settle, threadObject, upstreamRequests } from "../helpers";
import { openSocketVia, tokenUsers } from "../http/util";
import { pngOf } from "../images";

afterEach(() => settle());

const decoded = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** Notes the keys and sizes of what a thread's run reads from R2 (its file blocks' bucket, wrapped in place). */
async function watchReads(threadId: string): Promise<{ key: string; bytes: number }[]> {
  const reads: { key: string; bytes: number }[] = [];
  await runInDurableObject(threadObject(threadId), (room: ThreadRoom) => {
    const files = (room.parts.queue as any).parts.files;
    const bucket: R2Bucket = files.bucket;
    files.bucket = new Proxy(bucket, {
      get: (target, name) => {
        if (name !== "get") return Reflect.get(target, name, target);
        return async (key: string, ...rest: unknown[]) => {
          const object = await (target.get as Function).call(target, key, ...rest);
          if (object) reads.push({ key, bytes: object.size });
          return object;
        };
      },
    });
  });
  return reads;
}

describe("a run's files", () => {
  it("are chosen by their stored sizes before any is read: twenty 3.5 MB project images, five read and sent, fifteen notes", async () => {
    const { users, as, tokenEnv } = tokenUsers("reader");
    const call = as(users.reader);
    const { project } = await (await call("/api/projects", { body: { name: "Photos" } })).json<any>();
    const image = decoded(pngOf(1000, 800, 3_500_000));
    for (let i = 0; i < 20; i++) {
      const res = await call(`/api/projects/${project.id}/files?name=photo-${i}.png`, { body: image as any, headers: { "content-type": "image/png" } });
      expect(res.status, await res.clone().text()).toBe(201);
    }
    const thread = (await (await call("/api/threads", { body: { projectId: project.id, name: "Album" } })).json<any>()).thread;
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.reader.token}` });
    const reads = await watchReads(thread.id);
    const m = marker("reads");
    await script(m, [{ kind: "text", text: "Nice photos." }]);
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `what is in them? ${m}` } })).status).toBe(202);
    await ws.waitForRunEnd(1, 30_000);
    ws.close();

    const [request] = (await upstreamRequests(m)).filter((r) => r.body.tools?.length);
    const blocks = request.body.messages[0].content as any[];
    const sent = blocks.filter((b) => b.type === "image");
    const notes = blocks.filter((b) => b.type === "text" && b.text.startsWith("[An image was left out"));
    expect(sent).toHaveLength(5);
    expect(notes).toHaveLength(15);
    expect(new Set(notes.map((b) => b.text))).toEqual(new Set(["[An image was left out: a request takes at most 32 MB, and newer files came first.]"]));
    // What the run read of R2 for its files is what it sent: five images, no more.
    const sentBytes = sent.reduce((n, b) => n + decoded(b.source.data).byteLength, 0);
    const readBytes = reads.reduce((n, r) => n + r.bytes, 0);
    expect(reads).toHaveLength(5);
    expect(readBytes).toBeLessThanOrEqual(sentBytes);
  }, 60_000);
});
