// The files a thread's code wrote leave it with the thread: in its export (listed, and in JSON with
// files=embed their bytes), and in a share when its owner chooses ({ codeFiles: true }); a share made
// without them keeps the code and its output, and serves none of the files.
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { pngOf } from "../images";
import { api, createThread, json, marker, script, settle, Socket } from "../helpers";

afterEach(() => settle());

async function threadWithChart() {
  const thread = await createThread();
  const ws = await Socket.open(thread.id);
  const png = pngOf(40, 30);
  const m = marker("chart");
  await script(m, [{ kind: "code", command: "python3 plot.py", stdout: "saved\n", returnCode: 0, files: [{ name: "chart.png", mediaType: "image/png", base64: png }], answer: "Here it is." } as any]);
  await api(`/api/threads/${thread.id}/messages`, { body: { content: `plot ${m}` } });
  await ws.waitForRunEnd(1, 20_000);
  ws.close();
  const [file] = (await json(api(`/api/threads/${thread.id}/files`))).files;
  return { thread, png, file };
}

const sharedAnswer = (shared: any) => shared.messages.find((x: any) => x.role === "assistant" && x.kind === "text");

describe("the files the code wrote, exported and shared", () => {
  it("the export lists them, its JSON holds their bytes with files=embed, and its Markdown shows the code", async () => {
    const { thread, png, file } = await threadWithChart();
    const listed = await json(api(`/api/threads/${thread.id}/export?format=json`));
    expect(listed.files).toEqual([file]);
    const answer = listed.messages.find((x: any) => x.role === "assistant");
    expect(answer.metadata.codeRuns[0]).toMatchObject({ input: { command: "python3 plot.py" }, stdout: "saved\n", files: [file] });

    const embedded = await json(api(`/api/threads/${thread.id}/export?format=json&files=embed`));
    expect(embedded.files).toEqual([{ ...file, data: png }]);

    const markdown = await (await api(`/api/threads/${thread.id}/export`)).text();
    expect(markdown).toContain("### Code\n\n```bash\npython3 plot.py\n```");
    expect(markdown).toContain("Output:\n\n```\nsaved\n\n```");
    expect(markdown).toContain(`## Files the code wrote\n\n- chart.png (image/png, ${file.bytes} B): \`/api/threads/${thread.id}/files/${file.id}\``);
    expect((await api(`/api/threads/${thread.id}/export?files=zip`)).status).toBe(400);
  });

  it("a share holds them only where its owner chose, and serves them from the share's own route", async () => {
    const { thread, png, file } = await threadWithChart();
    const plain = (await json(api(`/api/threads/${thread.id}/shares`, { method: "POST" }))).share;
    const withFiles = (await json(api(`/api/threads/${thread.id}/shares`, { body: { codeFiles: true } }))).share;
    expect((await api(`/api/threads/${thread.id}/shares`, { body: { codeFiles: "yes" } })).status).toBe(400);

    const without = await json(SELF.fetch(`https://app.test/api/shared/${plain.id}`));
    expect(sharedAnswer(without).metadata.codeRuns[0]).toMatchObject({ input: { command: "python3 plot.py" }, stdout: "saved\n", files: [] });
    expect((await SELF.fetch(`https://app.test/api/shared/${plain.id}/files/${file.id}`)).status).toBe(404);

    const shared = await json(SELF.fetch(`https://app.test/api/shared/${withFiles.id}`));
    expect(sharedAnswer(shared).metadata.codeRuns[0].files).toEqual([expect.objectContaining({ id: file.id, name: "chart.png", mediaType: "image/png", bytes: file.bytes })]);
    // Nothing in the copy names the owner's thread.
    expect(JSON.stringify(shared)).not.toContain(thread.id);
    const res = await SELF.fetch(`https://app.test/api/shared/${withFiles.id}/files/${file.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(btoa(String.fromCharCode(...new Uint8Array(await res.arrayBuffer())))).toBe(png);
  });
});
