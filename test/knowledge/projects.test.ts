// A project's knowledge (PROTOCOL.md, "Knowledge"): its files' text extracted, cut into passages and
// indexed in the owner's object; searched; sent whole while it fits the model's share of the window,
// retrieved past it (passages as search results before the model call, project__search after), and
// cited by file and place. Against the fake upstream, which cites search results as the API does.
import { afterEach, describe, expect, it } from "vitest";
import { api, createThread, json, marker, script, settle, Socket, systemText, until, upstreamRequests } from "../helpers";
import { numberedPdf } from "../extract/pdf-fixture";
import { callApp, expectError, tokenUsers } from "../http/util";

afterEach(() => settle());

async function project(name = "Handbook") {
  return (await json(api("/api/projects", { body: { name } }))).project;
}

async function put(projectId: string, name: string, body: BodyInit, type: string) {
  return api(`/api/projects/${projectId}/files?name=${encodeURIComponent(name)}`, { body, headers: { "content-type": type } });
}

/** A Markdown handbook of `sections` sections, each about 1,500 characters, one of them holding `fact`. */
function handbook(sections: number, fact: { at: number; text: string }): string {
  const filler = (i: number) => `Section ${i} covers routine matters: schedules, rooms, supplies and the usual paperwork. `.repeat(18);
  return Array.from({ length: sections }, (_, i) => `# Part ${i + 1}\n\n${i + 1 === fact.at ? `${fact.text} ` : ""}${filler(i + 1)}`).join("\n\n");
}

const FACT = "The emergency generator is tested every second Tuesday at 07:30 by the facilities team.";

describe("a project's knowledge", () => {
  it("indexes a document as it is uploaded, lists its status and passages, and searches it by heading", async () => {
    const p = await project();
    const res = await put(p.id, "handbook.md", handbook(6, { at: 4, text: FACT }), "text/markdown");
    expect(res.status).toBe(201);
    const { file } = await res.json<any>();
    expect(file).toMatchObject({ name: "handbook.md", status: "ready", passages: expect.any(Number) });
    expect(file.passages).toBeGreaterThanOrEqual(6);
    expect((await json(api(`/api/projects/${p.id}/files`))).files).toEqual([file]);

    const { results } = await json(api(`/api/projects/${p.id}/search?q=${encodeURIComponent("when is the generator tested?")}&limit=3`));
    expect(results[0]).toMatchObject({ fileId: file.id, name: "handbook.md", location: { heading: "Part 4" }, text: expect.stringContaining(FACT) });
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0].score).toBeGreaterThan(0);
    await expectError(await api(`/api/projects/${p.id}/search`), 400, "invalid_request");
    // Its bytes, for a citation chip to open.
    const bytes = await api(`/api/projects/${p.id}/files/${file.id}`);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-type")).toBe("text/markdown");
    expect(await bytes.text()).toContain(FACT);
    expect((await api(`/api/projects/${p.id}/files/pfl_nothere`)).status).toBe(404);
    await expectError(await api(`/api/projects/${p.id}/search?q=x&limit=21`), 400, "invalid_request");
  });

  it("refuses a file it cannot read (422) or past the project's bounds (413), and keeps nothing of it", async () => {
    const p = await project("Bounds");
    // A ZIP's header, then nothing a Word document holds.
    const broken = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await expectError(await put(p.id, "broken.docx", broken, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"), 422, "unprocessable");
    await expectError(await put(p.id, "notes.docx", "plain words", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"), 415, "unsupported_media_type");
    expect((await json(api(`/api/projects/${p.id}/files`))).files).toEqual([]);

    const { users, tokenEnv, as } = tokenUsers("few");
    const fewEnv = { ...tokenEnv, PROJECT_FILES_MAX: "2" };
    const mine = (await (await as(users.few)("/api/projects", { body: { name: "Two at most" } })).json<any>()).project;
    const upload = (name: string) => callApp(fewEnv, `/api/projects/${mine.id}/files?name=${name}`, { token: users.few.token, body: `# ${name}\n\nwords`, headers: { "content-type": "text/markdown" } });
    expect((await upload("a.md")).status).toBe(201);
    expect((await upload("b.md")).status).toBe(201);
    const third = await expectError(await upload("c.md"), 413, "too_large");
    expect(third.message).toContain("2 files");

    // The text a document, and a project, may hold; the time a parse may take. Past each: 422, nothing kept.
    const tight = { ...tokenEnv, DOCUMENT_MAX_CHARS: "1000", PROJECT_MAX_CHARS: "2500", DOCUMENT_PARSE_MS: "1" };
    const other = (await (await as(users.few)("/api/projects", { body: { name: "Tight" } })).json<any>()).project;
    const send = (name: string, body: BodyInit, type = "text/markdown") =>
      callApp(tight, `/api/projects/${other.id}/files?name=${name}`, { token: users.few.token, body, headers: { "content-type": type } });
    expect((await expectError(await send("long.md", "word ".repeat(400)), 422, "unprocessable")).message).toContain("1,000 characters");
    expect((await send("one.md", "word ".repeat(190))).status).toBe(201);
    expect((await send("two.md", "word ".repeat(190))).status).toBe(201);
    expect((await expectError(await send("three.md", "word ".repeat(190)), 422, "unprocessable")).message).toContain("2,500 characters");
    expect((await expectError(await send("slow.pdf", numberedPdf(30), "application/pdf"), 422, "unprocessable")).message).toMatch(/longer than/);
    const kept = (await (await as(users.few)(`/api/projects/${other.id}/files`)).json<any>()).files;
    expect(kept.map((f: any) => f.name)).toEqual(["one.md", "two.md"]);
  });

  it("extracts a large file after the upload's answer: processing, then failed with the reason, and processes it again on request", async () => {
    const p = await project("Later");
    // A PDF's header, then 600 KiB that no PDF reader can open: taken at upload (its type is right), failed after.
    const bytes = new Uint8Array(600 * 1024).fill(0x20);
    bytes.set(new TextEncoder().encode("%PDF-1.7\n"));
    const res = await put(p.id, "scan.pdf", bytes, "application/pdf");
    expect(res.status).toBe(201);
    expect((await res.json<any>()).file.status).toBe("processing");
    const failed = await until(
      async () => (await json(api(`/api/projects/${p.id}/files`))).files[0],
      (f: any) => f.status !== "processing",
    );
    expect(failed).toMatchObject({ status: "failed", error: expect.stringContaining("PDF") });
    expect((await json(api(`/api/projects/${p.id}/search?q=anything`))).results).toEqual([]);

    const again = await api(`/api/projects/${p.id}/files/${failed.id}/reprocess`, { method: "POST" });
    expect(again.status).toBe(202);
    expect((await again.json<any>()).file).toMatchObject({ id: failed.id, status: "processing" });
    const after = await until(
      async () => (await json(api(`/api/projects/${p.id}/files`))).files[0],
      (f: any) => f.status !== "processing",
    );
    expect(after.status).toBe("failed");
    expect((await api(`/api/projects/${p.id}/files/pfl_nothere/reprocess`, { method: "POST" })).status).toBe(404);
  });

  it("sends a project whole while it fits the model's share of the window, and retrieves from it past that, citing file and place", async () => {
    const p = await project("Facilities");
    // About 45,000 characters: whole for a 200,000-token window, past a quarter of claude-fake-small's 25,000.
    const { file } = await (await put(p.id, "facilities.md", handbook(30, { at: 17, text: FACT }), "text/markdown")).json<any>();
    expect(file.status).toBe("ready");

    const whole = await createThread({ projectId: p.id });
    const ws1 = await Socket.open(whole.id);
    const m1 = marker("whole");
    await script(m1, [{ kind: "text", text: "Every second Tuesday." }]);
    await api(`/api/threads/${whole.id}/messages`, { body: { content: `When is the generator tested? ${m1}` } });
    await ws1.waitForRunEnd(1);
    const [wholeRequest] = await upstreamRequests(m1);
    expect(systemText(wholeRequest.body)).toContain(FACT);
    expect((wholeRequest.body.tools ?? []).some((t: any) => t.name === "project__search")).toBe(false);
    ws1.close();

    const small = await createThread({ projectId: p.id, model: "claude-fake-small" });
    const ws2 = await Socket.open(small.id);
    const m2 = marker("retrieved");
    await script(m2, [{ kind: "blocks", blocks: [{ type: "text", text: "It is tested every second Tuesday at 07:30.", citations: [{ searchResult: 0 }] }] } as any]);
    await api(`/api/threads/${small.id}/messages`, { body: { content: `When is the generator tested? ${m2}` } });
    await ws2.waitForRunEnd(1);
    const [request] = await upstreamRequests(m2);
    expect(systemText(request.body)).not.toContain(FACT);
    expect(systemText(request.body)).toContain("project__search");
    expect(request.body.tools.some((t: any) => t.name === "project__search")).toBe(true);
    const results = request.body.messages[0].content.filter((b: any) => b.type === "search_result");
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(5);
    expect(results[0]).toMatchObject({ source: `knowledge:${p.id}/${file.id}?heading=Part+17`, title: "facilities.md (Part 17)", citations: { enabled: true } });
    expect(results[0].content[0].text).toContain(FACT);

    const { messages } = await json(api(`/api/threads/${small.id}/messages`));
    const answer = messages.find((x: any) => x.role === "assistant" && x.kind === "text");
    expect(answer.metadata.citations).toEqual([{ projectId: p.id, fileId: file.id, name: "facilities.md", location: { heading: "Part 17" }, citedText: expect.stringContaining(FACT) }]);
    // Document citations are not web citations.
    expect(answer.metadata.web).toBeUndefined();
    ws2.close();
  });

  it("project__search looks further: its passages come back as search results the answer cites", async () => {
    const p = await project("Search tool");
    const { file } = await (await put(p.id, "rooms.md", handbook(30, { at: 23, text: "Room 4B holds the spare projector and its cables." }), "text/markdown")).json<any>();
    const thread = await createThread({ projectId: p.id, model: "claude-fake-small" });
    const ws = await Socket.open(thread.id);
    const m = marker("search-tool");
    await script(m, [
      { kind: "tool_use", tools: [{ name: "project__search", input: { query: "spare projector", limit: 2 } }] } as any,
      { kind: "blocks", blocks: [{ type: "text", text: "In room 4B.", citations: [{ searchResult: 0 }] }] } as any,
    ]);
    // Words no passage holds: nothing is retrieved before the call, so the tool's results are the request's first.
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `Zebras? ${m}` } });
    await ws.waitForRunEnd(1);
    const requests = await upstreamRequests(m);
    expect(requests).toHaveLength(2);
    expect(requests[0].body.messages[0].content.some((b: any) => b.type === "search_result")).toBe(false);
    const toolResult = requests[1].body.messages.at(-1).content.find((b: any) => b.type === "tool_result");
    expect(toolResult.content.every((b: any) => b.type === "search_result")).toBe(true);
    expect(toolResult.content[0]).toMatchObject({ source: `knowledge:${p.id}/${file.id}?heading=Part+23` });
    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    const answer = messages.find((x: any) => x.role === "assistant" && x.kind === "text");
    expect(answer.metadata.citations[0]).toMatchObject({ fileId: file.id, location: { heading: "Part 23" } });
    ws.close();
  });
});
