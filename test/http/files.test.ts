// Attachments: uploaded to R2, checked, sent to the model byte for byte, deleted with their thread.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, createThread, marker, messagesOf, settle, Socket, upstreamRequests, userObject } from "../helpers";
import { callApp, countRows, expectError, tokenUsers } from "./util";
import { DOT_PNG, pngOf } from "../images";

afterEach(() => settle());

/**
 * A thread whose requests carry what the model reads and nothing more: its code execution is off, so
 * no file goes to the code's container besides (test/thread/code-files.test.ts has those).
 */
async function modelOnlyThread() {
  const thread = await createThread();
  await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { codeExecution: false } });
  return thread;
}

// A minimal PDF and a text file (images.ts has the 1×1 PNG).
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const TEXT = new TextEncoder().encode("name,score\nada,3\n");
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const raw = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

async function upload(threadId: string, bytes: Uint8Array, type: string, name = "file", token?: string) {
  return SELF.fetch(`https://app.test/api/threads/${threadId}/attachments?name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { "content-type": type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: bytes,
  });
}

async function uploaded(threadId: string, bytes: Uint8Array, type: string, name: string) {
  const res = await upload(threadId, bytes, type, name);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json<any>()).attachment;
}

describe("uploading and reading back", () => {
  it("stores a DOT_PNG, a PDF and a CSV, answers their records, and gives the bytes back", async () => {
    const thread = await createThread();
    const png = await uploaded(thread.id, DOT_PNG, "image/png", "dot.png");
    expect(png).toEqual({ id: expect.stringMatching(/^att_/), threadId: thread.id, name: "dot.png", mediaType: "image/png", bytes: DOT_PNG.byteLength, createdAt: expect.any(Number) });
    for (const [a, bytes] of [[png, DOT_PNG], [await uploaded(thread.id, PDF, "application/pdf", "doc.pdf"), PDF], [await uploaded(thread.id, TEXT, "text/csv", "scores.csv"), TEXT]] as const) {
      const res = await api(`/api/threads/${thread.id}/attachments/${a.id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(a.mediaType);
      expect(res.headers.get("content-disposition")).toBe(`inline; filename="${a.name}"`);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    }
  });

  it("sends each file to the model before the text, byte for byte, and keeps them in later turns", async () => {
    const thread = await modelOnlyThread();
    const [png, pdf, csv] = [await uploaded(thread.id, DOT_PNG, "image/png", "dot.png"), await uploaded(thread.id, PDF, "application/pdf", "doc.pdf"), await uploaded(thread.id, TEXT, "text/csv", "scores.csv")];
    const m = marker("files");
    const ws = await Socket.open(thread.id);
    const res = await api(`/api/threads/${thread.id}/messages`, { body: { content: `look ${m}`, attachments: [png.id, pdf.id, csv.id] } });
    expect(res.status).toBe(202);
    expect((await res.json<any>()).message.attachments.map((a: any) => a.id)).toEqual([png.id, pdf.id, csv.id]);
    await ws.waitForRunEnd(1);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `and now ${m}` } });
    await ws.waitForRunEnd(2);
    const [first, second] = await upstreamRequests(m);
    const expected = [
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(DOT_PNG) } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: b64(PDF) }, title: "doc.pdf" },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "name,score\nada,3\n" }, title: "scores.csv" },
    ];
    expect(first.body.messages[0].content.slice(0, 3)).toEqual(expected);
    expect(first.body.messages[0].content[3].text).toContain(`look ${m}`);
    expect(second.body.messages[0].content.slice(0, 3)).toEqual(expected);
    const listed = (await messagesOf(thread.id, "?kinds=text")).messages[0];
    expect(listed.attachments.map((a: any) => a.name)).toEqual(["dot.png", "doc.pdf", "scores.csv"]);
    ws.close();
  });
});

describe("files the model would refuse", () => {
  // The API refuses a request for one image past its limits, and a conversation's images go again
  // with every later request: sent as they are, each of these would fail every run of the thread.
  it("an image within the upload limit but past the model's (5 MB of base64, 8000 px) goes as a note, and the thread goes on", async () => {
    const thread = await modelOnlyThread();
    const heavy = await uploaded(thread.id, raw(pngOf(1200, 900, 4_500_000)), "image/png", "heavy.png");
    const wide = await uploaded(thread.id, raw(pngOf(9500, 400)), "image/png", "panorama.png");
    const fine = await uploaded(thread.id, DOT_PNG, "image/png", "dot.png");
    const m = marker("too-big");
    const ws = await Socket.open(thread.id);
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: `look ${m}`, attachments: [heavy.id, wide.id, fine.id] } })).status).toBe(202);
    expect((await ws.waitForRunEnd(1)).at(-1)!.event).toBe("pipeline:complete");
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: `and now ${m}` } })).status).toBe(202);
    expect((await ws.waitForRunEnd(2)).at(-1)!.event).toBe("pipeline:complete");
    for (const request of await upstreamRequests(m)) {
      expect(request.body.messages[0].content.slice(0, 3)).toEqual([
        { type: "text", text: "[An image was left out: it is 5.7 MB encoded, past the model's 5 MB.]" },
        { type: "text", text: "[An image was left out: it is 9500 pixels on a side, past the model's 8000.]" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: b64(DOT_PNG) } },
      ]);
    }
    ws.close();
  });

  it("past 24 MiB of files in a request (the API takes 32 MB in all), the oldest go as notes, and every run completes", async () => {
    // Eight photos of 4.7 MB encoded each, in two messages: 37 MB, which the API would refuse whole.
    const thread = await modelOnlyThread();
    const m = marker("heavy-photos");
    const ws = await Socket.open(thread.id);
    for (const n of [1, 2]) {
      const photos = [];
      for (let i = 0; i < 4; i++) photos.push(await uploaded(thread.id, raw(pngOf(1600, 1200, 3_500_000 + n * 10 + i)), "image/png", `photo${n}-${i}.png`));
      expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: `look ${m}`, attachments: photos.map((p) => p.id) } })).status).toBe(202);
      expect((await ws.waitForRunEnd(n, 20_000)).at(-1)!.event).toBe("pipeline:complete");
    }
    const last = (await upstreamRequests(m)).at(-1)!.body;
    const blocks = last.messages.flatMap((x: any) => x.content);
    expect(blocks.filter((b: any) => b.type === "image")).toHaveLength(5);
    expect(blocks.slice(0, 3)).toEqual(Array(3).fill({ type: "text", text: "[An image was left out: a request takes at most 32 MB, and newer files came first.]" }));
    ws.close();
  });

  it("past 20 images in a thread, the oldest over 2000 px go as notes, and every run completes", async () => {
    const thread = await modelOnlyThread();
    const photos = [];
    for (let i = 0; i < 21; i++) photos.push(await uploaded(thread.id, raw(pngOf(4032, 3024)), "image/png", `photo${i}.png`));
    const m = marker("many");
    const ws = await Socket.open(thread.id);
    for (const [n, batch] of [photos.slice(0, 10), photos.slice(10, 20), photos.slice(20)].entries()) {
      expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: `more ${m}`, attachments: batch.map((p) => p.id) } })).status).toBe(202);
      expect((await ws.waitForRunEnd(n + 1)).at(-1)!.event).toBe("pipeline:complete");
    }
    const last = (await upstreamRequests(m)).at(-1)!.body;
    const blocks = last.messages.flatMap((x: any) => x.content);
    expect(blocks.filter((b: any) => b.type === "image")).toHaveLength(20);
    expect(blocks[0]).toEqual({ type: "text", text: "[An image was left out: past 20 images a request takes only those of at most 2000 pixels a side.]" });
    ws.close();
  });
});

describe("files the model cannot take", () => {
  it("a broken image (refused with no path) or PDF (refused with one) goes as a note from then on; the rest stay, and the thread goes on", async () => {
    const thread = await modelOnlyThread();
    const good = await uploaded(thread.id, DOT_PNG, "image/png", "dot.png");
    const broken = await uploaded(thread.id, raw(pngOf(0, 0)), "image/png", "broken.png");
    const cut = await uploaded(thread.id, new TextEncoder().encode("%PDF-1.4 cut short"), "application/pdf", "cut.pdf");
    const m = marker("refused");
    const ws = await Socket.open(thread.id);
    const say = async (n: number, content: string, attachments: string[]) => {
      expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: `${content} ${m}`, attachments } })).status).toBe(202);
      const end = (await ws.waitForRunEnd(n)).at(-1)!;
      expect(end.event, JSON.stringify(end.data)).toBe("pipeline:complete");
    };
    await say(1, "a dot", [good.id]);
    await say(2, "two more", [broken.id, cut.id]);
    await say(3, "and now", []);
    const requests = (await upstreamRequests(m)).map((r) => r.body.messages);
    // The second message: refused twice (the image with no path, then the PDF with one), then taken.
    expect(requests).toHaveLength(5);
    const files = (messages: any[]) => messages.flatMap((x: any) => x.content).filter((b: any) => b.type !== "text" || b.text.startsWith("[A"));
    const taken = [
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(DOT_PNG) } },
      { type: "text", text: "[An image was left out: the model could not take it (Could not process image).]" },
      { type: "text", text: "[A document (cut.pdf) was left out: the model could not take it (The PDF specified was not valid.).]" },
    ];
    expect(files(requests[3])).toEqual(taken);
    // The next message's request goes with the notes at once.
    expect(files(requests[4])).toEqual(taken);
    ws.close();
  });
});

describe("refusals, with nothing stored", () => {
  it("415 for a type not taken, or bytes that are not what the type says", async () => {
    const thread = await createThread();
    await expectError(await upload(thread.id, DOT_PNG, "image/svg+xml"), 415, "unsupported_media_type");
    await expectError(await upload(thread.id, PDF, "image/png"), 415, "unsupported_media_type");
    await expectError(await upload(thread.id, DOT_PNG, "application/pdf"), 415, "unsupported_media_type");
    await expectError(await upload(thread.id, DOT_PNG, "text/plain"), 415, "unsupported_media_type");
    expect(await countRows("attachments", "thread_id = ?", thread.id)).toBe(0);
  });

  it("413 past 5 MiB for an image and 10 MiB otherwise", async () => {
    const thread = await createThread();
    const bigPng = new Uint8Array(5 * 1024 * 1024 + 1);
    bigPng.set(DOT_PNG);
    await expectError(await upload(thread.id, bigPng, "image/png"), 413, "too_large");
    const bigText = new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61);
    await expectError(await upload(thread.id, bigText, "text/plain"), 413, "too_large");
    const fine = new Uint8Array(6 * 1024 * 1024).fill(0x61);
    expect((await upload(thread.id, fine, "text/plain")).status).toBe(201);
  });

  it("413 when the user's storage quota would be passed", async () => {
    const { users, tokenEnv } = tokenUsers("quota");
    const quotaEnv = { ...tokenEnv, USER_STORAGE_QUOTA_BYTES: String(DOT_PNG.byteLength * 2) };
    const call = (path: string, opts: any = {}) => callApp(quotaEnv, path, { ...opts, token: users.quota.token });
    const thread = (await (await call("/api/threads", { body: {} })).json<any>()).thread;
    const put = () => callApp(quotaEnv, `/api/threads/${thread.id}/attachments`, { token: users.quota.token, body: DOT_PNG as any, headers: { "content-type": "image/png" } });
    expect((await put()).status).toBe(201);
    expect((await put()).status).toBe(201);
    await expectError(await put(), 413, "too_large");
  });

  it("holds the storage quota under parallel uploads: what passes fits, and a refused upload leaves no bytes", async () => {
    const { users, tokenEnv } = tokenUsers("racer");
    const quotaEnv = { ...tokenEnv, USER_STORAGE_QUOTA_BYTES: String(DOT_PNG.byteLength * 3) };
    const call = (path: string, opts: any = {}) => callApp(quotaEnv, path, { ...opts, token: users.racer.token });
    const thread = (await (await call("/api/threads", { body: {} })).json<any>()).thread;
    const put = () => call(`/api/threads/${thread.id}/attachments`, { body: DOT_PNG as any, headers: { "content-type": "image/png" } });
    // Read-then-write let every one of these through: each read saw the quota unused.
    const statuses = (await Promise.all(Array.from({ length: 8 }, put))).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 413)).toHaveLength(5);
    // What the user's object charged, as the quota's single writer.
    const used = await runInDurableObject(userObject(users.racer.id), (_room, state) => state.storage.sql.exec<{ n: number }>("SELECT sum(bytes) AS n FROM attachments").one().n);
    expect(used).toBe(DOT_PNG.byteLength * 3);
    const stored = await env.FILES.list({ prefix: `${users.racer.id}/` });
    expect(stored.objects).toHaveLength(3);
  });

  it("400 for an unknown, foreign or other thread's attachment; 413 for more than 10", async () => {
    const { users, as } = tokenUsers("alice", "bob");
    const alice = as(users.alice);
    const a1 = (await (await alice("/api/threads", { body: {} })).json<any>()).thread;
    const a2 = (await (await alice("/api/threads", { body: {} })).json<any>()).thread;
    const other = (await (await alice(`/api/threads/${a2.id}/attachments`, { body: DOT_PNG as any, headers: { "content-type": "image/png" } })).json<any>()).attachment;
    const bobThread = await createThread();
    const bobs = await uploaded(bobThread.id, DOT_PNG, "image/png", "x.png");
    for (const ids of [["att_nope"], [other.id], [bobs.id]]) {
      const res = await alice(`/api/threads/${a1.id}/messages`, { body: { content: "with files", attachments: ids } });
      await expectError(res, 400, "invalid_request");
    }
    const eleven = Array.from({ length: 11 }, () => other.id);
    const many = await expectError(await alice(`/api/threads/${a1.id}/messages`, { body: { content: "with files", attachments: eleven } }), 413, "too_large");
    expect(many.message).toContain("at most 10");
    expect((await (await alice(`/api/threads/${a1.id}/messages`)).json<any>()).messages).toHaveLength(0);
    // Nor can anyone read a file through another thread, or another user's.
    await expectError(await alice(`/api/threads/${a1.id}/attachments/${other.id}`), 404, "not_found");
    await expectError(await alice(`/api/threads/${bobThread.id}/attachments/${bobs.id}`), 404, "not_found");
  });
});

describe("deleting a thread", () => {
  it("deletes its files' bytes and records", async () => {
    const thread = await createThread();
    const a = await uploaded(thread.id, DOT_PNG, "image/png", "gone.png");
    expect((await env.FILES.list({ prefix: `local/${thread.id}/` })).objects).toHaveLength(1);
    expect((await api(`/api/threads/${thread.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await env.FILES.list({ prefix: `local/${thread.id}/` })).objects).toHaveLength(0);
    expect(await countRows("attachments", "id = ?", a.id)).toBe(0);
  });
});
