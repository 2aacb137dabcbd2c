// Code execution's files in (PROTOCOL.md, "Code execution"): a thread's attachments and its project's
// files reach the code's container as container_upload blocks, each uploaded to the Files API once; a
// file only code reads (a workbook) goes there alone; a file the Files API refuses, or one the code
// wrote that it will not give, is a note or a skipped file, and the run completes. Against the fake.
import { env, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { xlsx, xlsxParts, zipParts } from "../extract/ooxml-builder";
import { api, createThread, json, marker, script, settle, Socket, until, upstream, upstreamRequests } from "../helpers";

afterEach(() => settle());

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

async function attach(threadId: string, body: BodyInit, type: string, name: string) {
  const res = await SELF.fetch(`https://app.test/api/threads/${threadId}/attachments?name=${encodeURIComponent(name)}`, { method: "POST", headers: { "content-type": type }, body });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json<any>()).attachment;
}

/** Sends `content` with `attachments`, whose answer runs code once; the requests it made. */
async function send(threadId: string, ws: Socket, runs: number, content: string, attachments: string[] = [], step: Record<string, unknown> = {}) {
  await script(content, [{ kind: "code", command: "python3 analyse.py", stdout: "ok\n", returnCode: 0, answer: "Done.", ...step } as any]);
  expect((await api(`/api/threads/${threadId}/messages`, { body: { content, attachments } })).status).toBe(202);
  await ws.waitForRunEnd(runs, 20_000);
  return upstreamRequests(content);
}

const uploadsOf = (body: any) => body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "container_upload");
const textsOf = (body: any) => body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "text").map((b: any) => b.text);
const uploadsNamed = async (name: string) => (await upstream.files()).files.filter((f) => f.filename === name && f.source === "upload");

describe("files in", () => {
  it("a CSV attachment goes to the container once: two runs use it, and it is uploaded once", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const name = `scores-${crypto.randomUUID().slice(0, 8)}.csv`;
    const csv = await attach(thread.id, "name,score\nada,3\nbob,5\n", "text/csv", name);
    const first = await send(thread.id, ws, 1, `mean of the scores ${marker("csv1")}`, [csv.id]);
    const [uploadedFile] = await uploadsNamed(name);
    expect(uploadedFile).toMatchObject({ filename: name, mime_type: "text/csv", size_bytes: 23 });
    // The model reads it (a text document) and its code has it (the upload).
    expect(uploadsOf(first[0].body)).toEqual([{ type: "container_upload", file_id: uploadedFile.id }]);
    expect(first[0].body.messages[0].content.some((b: any) => b.type === "document" && b.source.data.includes("ada,3"))).toBe(true);
    expect((await upstream.containers()).find((c) => c.files.includes(uploadedFile.id))).toBeTruthy();

    const second = await send(thread.id, ws, 2, `now the median ${marker("csv2")}`);
    expect(uploadsOf(second[0].body)).toEqual([{ type: "container_upload", file_id: uploadedFile.id }]);
    expect(await uploadsNamed(name)).toHaveLength(1);
    ws.close();
  });

  it("a workbook: the model reads its rows and the code has it; past 200 KB it goes to the container alone (with code off, a note)", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const name = `sales-${crypto.randomUUID().slice(0, 8)}.xlsx`;
    const small = xlsx([{ name: "Q1", rows: [["region", "sales"], ["north", 120], ["south", 95]] }, { name: "Q2", rows: [["region", "sales"], ["north", 140]] }]);
    const book = await attach(thread.id, small, XLSX, name);
    expect(book.mediaType).toBe(XLSX);
    const [request] = await send(thread.id, ws, 1, `sum the sales ${marker("xlsx")}`, [book.id]);
    const [up] = await uploadsNamed(name);
    expect(uploadsOf(request.body)).toEqual([{ type: "container_upload", file_id: up.id }]);
    const read = request.body.messages[0].content.find((b: any) => b.type === "document");
    expect(read).toMatchObject({ title: name, source: { type: "text" } });
    expect(read.source.data).toContain("north");
    expect(read.source.data).toContain("Q2");

    const bigName = `ledger-${crypto.randomUUID().slice(0, 8)}.xlsx`;
    const rows = Array.from({ length: 4_000 }, (_, i) => [`entry ${i} ${crypto.randomUUID()}`, i * 3.25, `account ${i % 97}`]);
    const big = zipParts(xlsxParts([{ name: "Ledger", rows }]), 0);
    expect(big.byteLength).toBeGreaterThan(200_000);
    const ledger = await attach(thread.id, big, XLSX, bigName);
    const [alone] = await send(thread.id, ws, 2, `total the ledger ${marker("xlsx-big")}`, [ledger.id]);
    const [bigUp] = await uploadsNamed(bigName);
    expect(uploadsOf(alone.body)).toContainEqual({ type: "container_upload", file_id: bigUp.id });
    expect(textsOf(alone.body).some((t: string) => t.includes(bigName) && t.includes("in the code's container"))).toBe(true);
    expect(alone.body.messages.at(-1).content.some((b: any) => b.type === "document" && b.title === bigName)).toBe(false);

    await api(`/api/threads/${thread.id}`, { method: "PATCH", body: { codeExecution: false } });
    const m = marker("xlsx-off");
    await script(m, [{ kind: "text", text: "I cannot read it." }]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd(3);
    const [off] = await upstreamRequests(m);
    expect(uploadsOf(off.body)).toEqual([]);
    expect(textsOf(off.body).some((t: string) => t.includes(bigName) && t.includes("only code can read it"))).toBe(true);
    ws.close();
  });

  it("bytes that are not a workbook or JSON are refused (415, or 422 for a ZIP without a workbook), and JSON is taken", async () => {
    const thread = await createThread();
    const bad = await SELF.fetch(`https://app.test/api/threads/${thread.id}/attachments?name=a.xlsx`, { method: "POST", headers: { "content-type": XLSX }, body: "not a zip" });
    expect(bad.status).toBe(415);
    // A ZIP, but no workbook in it: 422, and nothing kept.
    const notBook = await SELF.fetch(`https://app.test/api/threads/${thread.id}/attachments?name=b.xlsx`, { method: "POST", headers: { "content-type": XLSX }, body: zipParts({ "hello.txt": "hi" }) });
    expect(notBook.status).toBe(422);
    const badJson = await SELF.fetch(`https://app.test/api/threads/${thread.id}/attachments?name=a.json`, { method: "POST", headers: { "content-type": "application/json" }, body: "{ nope" });
    expect(badJson.status).toBe(415);
    expect((await attach(thread.id, '{"a": [1, 2]}', "application/json", "a.json")).mediaType).toBe("application/json");
  });

  it("a project's files reach the container of its threads' runs, uploaded once for all of them", async () => {
    const { project } = await json(api("/api/projects", { body: { name: "Data" } }));
    const name = `rates-${crypto.randomUUID().slice(0, 8)}.csv`;
    const put = await api(`/api/projects/${project.id}/files?name=${name}`, { body: "year,rate\n2024,3.1\n", headers: { "content-type": "text/csv" } });
    expect(put.status).toBe(201);
    for (const [i, label] of ["p1", "p2"].entries()) {
      const thread = await createThread({ projectId: project.id });
      const ws = await Socket.open(thread.id);
      const [request] = await send(thread.id, ws, 1, `plot the rates ${marker(label)}`);
      const [up] = await uploadsNamed(name);
      expect(uploadsOf(request.body), `thread ${i + 1}`).toEqual([{ type: "container_upload", file_id: up.id }]);
      ws.close();
    }
    expect(await uploadsNamed(name)).toHaveLength(1);
  });

  it("deleting the thread, or the project's file, deletes their uploads from the Files API", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const name = `gone-${crypto.randomUUID().slice(0, 8)}.csv`;
    const csv = await attach(thread.id, "a,b\n1,2\n", "text/csv", name);
    await send(thread.id, ws, 1, `read ${marker("del-thread")}`, [csv.id]);
    expect(await uploadsNamed(name)).toHaveLength(1);
    ws.close();
    expect((await api(`/api/threads/${thread.id}`, { method: "DELETE" })).status).toBe(204);
    await until(() => uploadsNamed(name), (files) => files.length === 0);

    const { project } = await json(api("/api/projects", { body: { name: "Gone" } }));
    const pname = `pgone-${crypto.randomUUID().slice(0, 8)}.csv`;
    const { file } = await json(api(`/api/projects/${project.id}/files?name=${pname}`, { body: "x,y\n", headers: { "content-type": "text/csv" } }));
    const inProject = await createThread({ projectId: project.id });
    const ws2 = await Socket.open(inProject.id);
    await send(inProject.id, ws2, 1, `read ${marker("del-pfile")}`);
    expect(await uploadsNamed(pname)).toHaveLength(1);
    ws2.close();
    expect((await api(`/api/projects/${project.id}/files/${file.id}`, { method: "DELETE" })).status).toBe(204);
    await until(() => uploadsNamed(pname), (files) => files.length === 0);
  });

  it("an upload the Files API no longer has is a note for that request, and the next run uploads the file again", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const name = `lost-${crypto.randomUUID().slice(0, 8)}.csv`;
    const csv = await attach(thread.id, "a,b\n1,2\n", "text/csv", name);
    await send(thread.id, ws, 1, `first ${marker("lost1")}`, [csv.id]);
    const [first] = await uploadsNamed(name);
    const deleted = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/files/${first.id}`, { method: "DELETE", headers: { "x-api-key": "test-key" } });
    expect(deleted.status).toBe(200);

    const second = await send(thread.id, ws, 2, `second ${marker("lost2")}`);
    // Refused for the lost upload, then sent again with a note in its place; the run completes.
    expect(second).toHaveLength(2);
    expect(uploadsOf(second[1].body)).toEqual([]);
    expect(textsOf(second[1].body).some((t: string) => t.includes("the Files API no longer had it"))).toBe(true);
    expect(ws.events("pipeline:complete")).toHaveLength(2);

    const [third] = await send(thread.id, ws, 3, `third ${marker("lost3")}`);
    const again = (await uploadsNamed(name)).filter((f) => f.id !== first.id);
    expect(again).toHaveLength(1);
    expect(uploadsOf(third.body)).toEqual([{ type: "container_upload", file_id: again[0].id }]);
    ws.close();
  });

  it("a file the Files API refuses is a note in the request, and the run completes", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const name = `huge-${crypto.randomUUID().slice(0, 8)}.csv`;
    await upstream.failFiles({ filename: name, status: 413, type: "request_too_large", message: "File exceeds the maximum allowed size." });
    const csv = await attach(thread.id, "a,b\n1,2\n", "text/csv", name);
    const [request] = await send(thread.id, ws, 1, `look ${marker("refused")}`, [csv.id]);
    expect(uploadsOf(request.body)).toEqual([]);
    expect(textsOf(request.body).some((t: string) => t.includes(`${name} (8 B) could not be put in the code's container`))).toBe(true);
    expect(ws.events("pipeline:complete")).toHaveLength(1);
    ws.close();
  });
});

describe("files out, when the Files API fails", () => {
  it("a file the code wrote that the Files API will not give is skipped with the reason; the run completes", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const id = `file_011Fail${crypto.randomUUID().replaceAll("-", "")}`;
    await upstream.failFiles({ id, status: 500 });
    const files = [{ id, name: "report.csv", text: "a,b\n" }];
    await send(thread.id, ws, 1, `write it ${marker("fail-out")}`, [], { files });
    const [output] = ws.events("code:output").map((f) => f.data);
    expect(output).toMatchObject({ stdout: "ok\n", returnCode: 0, files: [], skipped: [{ name: id, reason: "the Files API did not give it" }] });
    expect(ws.events("pipeline:complete")).toHaveLength(1);
    expect((await json(api(`/api/threads/${thread.id}/files`))).files).toEqual([]);
    ws.close();
  });

  it("a code run the API failed (its error code) is told as an error, and the answer goes on", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await send(thread.id, ws, 1, `run long ${marker("timeout")}`, [], { errorCode: "execution_time_exceeded", answer: "It ran too long." });
    const [output] = ws.events("code:output").map((f) => f.data);
    expect(output).toMatchObject({ error: "execution_time_exceeded", files: [] });
    expect(ws.events("pipeline:complete")).toHaveLength(1);
    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    const answer = messages.find((x: any) => x.role === "assistant" && x.kind === "text");
    expect(answer.content).toBe("It ran too long.");
    expect(answer.metadata.codeRuns).toEqual([expect.objectContaining({ toolUseId: output.toolUseId, toolName: "bash_code_execution", input: { command: "python3 analyse.py" }, error: "execution_time_exceeded" })]);
    ws.close();
  });
});
