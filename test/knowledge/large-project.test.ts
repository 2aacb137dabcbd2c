// Issue 36's measure of retrieval: a project of 200 documents (about 20 MB of text, Markdown, Word
// documents and a PDF of 40 pages). A question whose answer is only on page 37 of the PDF retrieves
// that passage among the top 5; the request carries it as a search result, and the answer's citation
// names the file and the page.
import { afterEach, describe, expect, it } from "vitest";
import { docx, prose } from "../extract/ooxml-builder";
import { pdfOf } from "../extract/pdf-fixture";
import { api, createThread, json, marker, script, settle, Socket, upstreamRequests } from "../helpers";

afterEach(() => settle());

const ANSWER = "The Lindqvist valve must be torqued to 42 newton metres after every pressure test.";

/** 40 pages of manual, the answer on page 37 alone. */
function manual(): Uint8Array {
  return pdfOf(
    Array.from({ length: 40 }, (_, i) => [
      `Maintenance manual, page ${i + 1}.`,
      ...(i + 1 === 37 ? [ANSWER] : [`Routine checks for section ${i + 1}: filters, seals and gauges are inspected monthly.`]),
      ...prose(60, i + 7).match(/.{1,90}(\s|$)/g)!.map((l) => l.trim()),
    ]),
  );
}

async function put(projectId: string, name: string, body: BodyInit, type: string) {
  const res = await api(`/api/projects/${projectId}/files?name=${encodeURIComponent(name)}`, { body, headers: { "content-type": type } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json<any>()).file;
}

describe("retrieval in a large project", () => {
  it("200 documents, about 20 MB of text: page 37's passage comes back among the top 5 and is cited by file and page", { timeout: 240_000 }, async () => {
    const { project } = await json(api("/api/projects", { body: { name: "Plant" } }));
    let chars = 0;
    for (let i = 0; i < 199; i++) {
      const text = prose(20_000, i + 100);
      chars += text.length;
      if (i % 4 === 0) await put(project.id, `report-${i}.docx`, docx([{ heading: `Report ${i}` }, ...text.match(/.{1,4000}(\s|$)/g)!.map((p) => ({ p }))]), "application/vnd.openxmlformats-officedocument.wordprocessingml.document");
      else await put(project.id, `notes-${i}.md`, `# Notes ${i}\n\n${text}`, "text/markdown");
    }
    const pdf = await put(project.id, "manual.pdf", manual(), "application/pdf");
    const { files } = await json(api(`/api/projects/${project.id}/files`));
    expect(files).toHaveLength(200);
    expect(files.every((f: any) => f.status === "ready")).toBe(true);
    expect(chars).toBeGreaterThan(18_000_000);
    expect(pdf).toMatchObject({ pages: 40 });

    const question = "What torque does the Lindqvist valve need after a pressure test?";
    const { results } = await json(api(`/api/projects/${project.id}/search?q=${encodeURIComponent(question)}&limit=5`));
    const hit = results.findIndex((r: any) => r.fileId === pdf.id && r.location.page === 37);
    expect(hit).toBeGreaterThanOrEqual(0);
    expect(hit).toBeLessThan(5);

    const thread = await createThread({ projectId: project.id });
    const ws = await Socket.open(thread.id);
    const m = marker("valve");
    await script(m, [{ kind: "blocks", blocks: [{ type: "text", text: "Torque it to 42 N·m.", citations: [{ searchResult: hit }] }] } as any]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `${question} ${m}` } });
    await ws.waitForRunEnd(1, 30_000);
    const [request] = await upstreamRequests(m);
    const passages = request.body.messages[0].content.filter((b: any) => b.type === "search_result");
    expect(passages[hit]).toMatchObject({ source: `knowledge:${project.id}/${pdf.id}?page=37`, title: "manual.pdf (page 37)" });
    expect(passages[hit].content[0].text).toContain("Lindqvist valve");
    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    const answer = messages.find((x: any) => x.role === "assistant" && x.kind === "text");
    expect(answer.metadata.citations).toEqual([{ projectId: project.id, fileId: pdf.id, name: "manual.pdf", location: { page: 37 }, citedText: expect.stringContaining("Lindqvist") }]);
    ws.close();
  });
});
