// A thread's attachment too long to read whole (past 50,000 tokens) gets a project's treatment: each
// request carries the passages of it that best match the question, as search results the answer
// cites (by the thread, the file and the place), not the whole file.
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, createThread, json, marker, script, settle, Socket, upstreamRequests } from "../helpers";

afterEach(() => settle());

const FACT = "The harbour crane may lift at most 38 tonnes in winds under 40 km/h.";
const OTHER = "Visitors sign in at the east gate and wear a yellow vest.";

/** About 240,000 characters of Markdown in 160 sections; two of them hold the facts. */
function manual(): string {
  return Array.from({ length: 160 }, (_, i) => {
    const extra = i === 97 ? `${FACT} ` : i === 12 ? `${OTHER} ` : "";
    return `# Section ${i + 1}\n\n${extra}${`Routine paragraph ${i + 1} about schedules, forms and the usual paperwork of the port office. `.repeat(16)}`;
  }).join("\n\n");
}

describe("a long attachment", () => {
  it("goes as its passages that match each question, cited by thread, file and place", async () => {
    const thread = await createThread();
    const text = manual();
    expect(text.length / 4).toBeGreaterThan(50_000);
    const res = await SELF.fetch(`https://app.test/api/threads/${thread.id}/attachments?name=port-manual.md`, { method: "POST", headers: { "content-type": "text/markdown" }, body: text });
    const { attachment } = await res.json<any>();
    const ws = await Socket.open(thread.id);

    const m1 = marker("crane");
    await script(m1, [{ kind: "blocks", blocks: [{ type: "text", text: "38 tonnes, in winds under 40 km/h.", citations: [{ searchResult: 0 }] }] } as any]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `How much may the harbour crane lift? ${m1}`, attachments: [attachment.id] } });
    await ws.waitForRunEnd(1);
    const [first] = await upstreamRequests(m1);
    const content = first.body.messages[0].content;
    expect(content.some((b: any) => b.type === "document")).toBe(false);
    expect(content.find((b: any) => b.type === "text" && b.text.includes("too long to read whole")).text).toContain("port-manual.md");
    const results = content.filter((b: any) => b.type === "search_result");
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(5);
    expect(results[0]).toMatchObject({ source: `knowledge:thread/${thread.id}/${attachment.id}?heading=Section+98`, title: "port-manual.md (Section 98)" });
    expect(results[0].content[0].text).toContain(FACT);
    expect(JSON.stringify(first.body).length).toBeLessThan(text.length / 4);

    const { messages } = await json(api(`/api/threads/${thread.id}/messages`));
    const answer = messages.find((x: any) => x.role === "assistant" && x.kind === "text");
    expect(answer.metadata.citations).toEqual([
      { projectId: "", threadId: thread.id, fileId: attachment.id, name: "port-manual.md", location: { heading: "Section 98" }, citedText: expect.stringContaining(FACT) },
    ]);

    // The next question, without the file: its passages are the new question's.
    const m2 = marker("gate");
    await script(m2, [{ kind: "text", text: "At the east gate." }]);
    await api(`/api/threads/${thread.id}/messages`, { body: { content: `Where do visitors sign in? ${m2}` } });
    await ws.waitForRunEnd(2);
    const [second] = await upstreamRequests(m2);
    const again = second.body.messages[0].content.filter((b: any) => b.type === "search_result");
    expect(again[0].content[0].text).toContain(OTHER);
    ws.close();
  });
});
