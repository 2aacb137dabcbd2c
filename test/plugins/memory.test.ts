// The memory tool: its commands on a user's memories/ context files, paths that cannot leave that
// folder, notes kept across threads and seen on the Context page, and kept out of the injected context.
import { describe, expect, it } from "vitest";
import { contextQuotaMessage, type ContextQuota } from "../../worker/lib/context-quota";
import type { OwnerPort } from "../../worker/plugins/ports";
import { ownerMemoryFiles } from "../../worker/plugins/memory";
import { MemoryError, runMemoryCommand, storagePath, type MemoryFiles, type MemoryInput } from "../../worker/plugins/memory/commands";
import { marker, script, upstreamRequests, userObject } from "../helpers";
import { freshUser, newThread } from "./util";

/** The commands' files in a Map: the same rules, without D1. */
function mapFiles(initial: Record<string, string> = {}): MemoryFiles & { all: Map<string, string> } {
  const all = new Map(Object.entries(initial));
  return {
    all,
    list: async (prefix) => [...all.keys()].filter((p) => p.startsWith(prefix)).sort().map((path) => ({ path, bytes: all.get(path)!.length })),
    read: async (path) => all.get(path) ?? null,
    write: async (path, content) => void all.set(path, content),
    remove: async (paths) => paths.forEach((p) => all.delete(p)),
  };
}

const run = (files: MemoryFiles, input: MemoryInput) => runMemoryCommand(files, input);

describe("memory commands", () => {
  it("create, view (folder and file, with a range), str_replace, insert, rename, delete", async () => {
    const files = mapFiles({ "notes.md": "not a memory" });
    expect((await run(files, { command: "view", path: "/memories" })).text).toContain("(none yet)");
    expect(await run(files, { command: "create", path: "/memories/people/ada.md", file_text: "Ada likes tea.\nShe lives in Zürich." })).toEqual({
      text: "File created successfully at: /memories/people/ada.md",
      changed: ["memories/people/ada.md"],
    });
    expect((await run(files, { command: "view", path: "/memories" })).text).toContain("/memories/people/ada.md");
    expect((await run(files, { command: "view", path: "/memories/people/ada.md" })).text).toContain("     1\tAda likes tea.\n     2\tShe lives in Zürich.");
    expect((await run(files, { command: "view", path: "/memories/people/ada.md", view_range: [2, -1] })).text).not.toContain("Ada likes tea.");
    await run(files, { command: "str_replace", path: "/memories/people/ada.md", old_str: "tea", new_str: "coffee" });
    await run(files, { command: "insert", path: "/memories/people/ada.md", insert_line: 0, insert_text: "# Ada" });
    expect(files.all.get("memories/people/ada.md")).toBe("# Ada\nAda likes coffee.\nShe lives in Zürich.");
    await run(files, { command: "rename", old_path: "/memories/people/ada.md", new_path: "/memories/ada.md" });
    expect([...files.all.keys()].sort()).toEqual(["memories/ada.md", "notes.md"]);
    expect((await run(files, { command: "delete", path: "/memories/ada.md" })).changed).toEqual(["memories/ada.md"]);
    expect([...files.all.keys()]).toEqual(["notes.md"]);
  });

  it("answers mistakes as errors the model can fix", async () => {
    const files = mapFiles({ "memories/a.md": "x x" });
    const fails = (input: MemoryInput) => expect(run(files, input)).rejects.toThrow(MemoryError);
    await fails({ command: "view", path: "/memories/missing.md" });
    await fails({ command: "str_replace", path: "/memories/a.md", old_str: "x", new_str: "y" }); // twice in the file
    await fails({ command: "str_replace", path: "/memories/a.md", old_str: "z", new_str: "y" });
    await fails({ command: "insert", path: "/memories/a.md", insert_line: 9, insert_text: "y" });
    await fails({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/a.md" });
    await fails({ command: "delete", path: "/memories" });
    await fails({ command: "create", path: "/memories/big.md", file_text: "x".repeat(200_001) });
    await fails({ command: "explode", path: "/memories/a.md" } as never);
    expect(files.all.get("memories/a.md")).toBe("x x");
  });

  it("refuses every path that would leave /memories, before reading anything", async () => {
    const files = mapFiles({ "secret.md": "the owner's other file", "memories/a.md": "a" });
    const bad = [
      "/memories/../secret.md",
      "/memories/./a.md",
      "/memories/x/../../secret.md",
      "../secret.md",
      "/secret.md",
      "/etc/passwd",
      "memories/a.md",
      "/memoriesX/a.md",
      "/memories/a\\..\\secret.md",
      "/memories/%2e%2e/secret.md",
      "/memories//a.md",
      "/memories/a.md\u0000",
      "",
    ];
    for (const path of bad) {
      expect(() => storagePath(path), path).toThrow(MemoryError);
      await expect(run(files, { command: "view", path })).rejects.toThrow(MemoryError);
      await expect(run(files, { command: "create", path, file_text: "pwned" })).rejects.toThrow(MemoryError);
    }
    await expect(run(files, { command: "rename", old_path: "/memories/a.md", new_path: "/memories/../secret.md" })).rejects.toThrow(MemoryError);
    expect(files.all.get("secret.md")).toBe("the owner's other file");
    expect(storagePath("/memories/")).toBe("memories");
  });
});

const ROOMY = { files: 1_000, bytes: 1024 * 1024 };


/** The owner's files in their object, as the plugin reaches them, within `quota` (the deployment's is larger). */
function ownerFiles(owner: string, quota: ContextQuota = ROOMY): OwnerPort["files"] {
  const user = userObject(owner);
  return {
    under: (prefix) => user.contextFilesUnder(prefix),
    get: (path) => user.contextFile(path),
    put: (path, content) => user.putContextFile(path, content, quota),
    remove: (paths) => user.deleteContextFiles(paths),
  };
}

const paths = async (owner: string) => (await userObject(owner).contextFiles()).map((f) => f.path);

describe("the memory tool's files in the owner's object", () => {
  it("a folder's listing and delete reach the paths under it exactly: no other case, no `_` as any character", async () => {
    const owner = `memory-prefix-${crypto.randomUUID()}`;
    const others = ["memories/A_B/upper.md", "memories/axb/wildcard.md", "memories/a_b.md"];
    const port = ownerFiles(owner);
    for (const path of ["memories/a_b/inside.md", ...others]) await port.put(path, `text of ${path}`);
    const files = ownerMemoryFiles(port, "over quota");
    expect(await files.list("memories/a_b/")).toEqual([{ path: "memories/a_b/inside.md", bytes: "text of memories/a_b/inside.md".length }]);
    const listing = (await run(files, { command: "view", path: "/memories/a_b" })).text;
    expect(listing).toContain("/memories/a_b/inside.md");
    for (const path of others) expect(listing).not.toContain(path);
    expect(await run(files, { command: "delete", path: "/memories/a_b" })).toEqual({ text: "Successfully deleted /memories/a_b", changed: ["memories/a_b/inside.md"] });
    expect(await paths(owner)).toEqual([...others].sort());
  });
});

describe("the memory tool in runs", () => {
  it("writes the owner's notes, which show on the Context page live and reach the next thread, but no one else's", async () => {
    const alice = freshUser("alice");
    const bob = freshUser("bob");
    const first = await newThread(alice.call);
    const ws = await alice.socket(first.id);
    const m = marker("remember");
    await script(m, [
      { kind: "tool_use", tools: [{ name: "memory", input: { command: "create", path: "/memories/prefs.md", file_text: "Prefers metric units." } }] },
      { kind: "text", text: "Noted." },
    ]);
    const post = await alice.call(`/api/threads/${first.id}/messages`, { body: { content: `Remember: metric units. ${m}` } });
    expect(post.status).toBe(202);
    await ws.waitForRunEnd();
    const changed = ws.events("context:changed")[0]?.data;
    expect(changed).toEqual({ threadId: first.id, paths: ["memories/prefs.md"] });
    const result = ws.events("pipeline:stream").map((f) => f.data).find((d) => d.type === "tool_result");
    expect(result).toMatchObject({ toolName: "memory", isError: false, content: "File created successfully at: /memories/prefs.md" });
    const page = await (await alice.call("/api/context")).json<any>();
    expect(page.files.map((f: any) => f.path)).toContain("memories/prefs.md");
    // The request offered the API's own memory tool.
    expect((await upstreamRequests(m))[0].body.tools).toContainEqual({ type: "memory_20250818", name: "memory" });
    ws.close();

    // Another thread of Alice's reads the note through the tool; it is not injected into the prompt.
    const second = await newThread(alice.call);
    const ws2 = await alice.socket(second.id);
    const recall = marker("recall");
    await script(recall, [
      { kind: "tool_use", tools: [{ name: "memory", input: { command: "view", path: "/memories/prefs.md" } }] },
      { kind: "text", text: "You prefer metric units." },
    ]);
    await alice.call(`/api/threads/${second.id}/messages`, { body: { content: `What do I prefer? ${recall}` } });
    await ws2.waitForRunEnd();
    const viewed = ws2.events("pipeline:stream").map((f) => f.data).find((d) => d.type === "tool_result");
    expect(viewed.content).toContain("Prefers metric units.");
    const [request] = await upstreamRequests(recall);
    expect(JSON.stringify(request.body.system ?? "")).not.toContain("Prefers metric units.");
    ws2.close();

    // Bob's memory is his own.
    const bobs = await newThread(bob.call);
    const ws3 = await bob.socket(bobs.id);
    const peek = marker("peek");
    await script(peek, [
      { kind: "tool_use", tools: [{ name: "memory", input: { command: "view", path: "/memories/prefs.md" } }] },
      { kind: "text", text: "Nothing there." },
    ]);
    await bob.call(`/api/threads/${bobs.id}/messages`, { body: { content: `peek ${peek}` } });
    await ws3.waitForRunEnd();
    const denied = ws3.events("pipeline:stream").map((f) => f.data).find((d) => d.type === "tool_result");
    expect(denied).toMatchObject({ isError: true, content: expect.stringContaining("does not exist") });
    ws3.close();
  });

  it("a path outside /memories is an error result, and nothing else of the owner's is touched", async () => {
    const carol = freshUser("carol");
    expect((await carol.call("/api/context/notes.md", { method: "PUT", body: { content: "keep me" } })).status).toBe(200);
    const thread = await newThread(carol.call);
    const ws = await carol.socket(thread.id);
    const m = marker("escape");
    await script(m, [
      { kind: "tool_use", tools: [{ name: "memory", input: { command: "create", path: "/memories/../notes.md", file_text: "overwritten" } }] },
      { kind: "text", text: "Oops." },
    ]);
    await carol.call(`/api/threads/${thread.id}/messages`, { body: { content: m } });
    await ws.waitForRunEnd();
    const result = ws.events("pipeline:stream").map((f) => f.data).find((d) => d.type === "tool_result");
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining("not allowed") });
    expect((await (await carol.call("/api/context/notes.md")).json<any>()).file.content).toBe("keep me");
    expect(ws.events("context:changed")).toEqual([]);
    ws.close();
  });

  it("a note that would pass the owner's quota is a tool error, and nothing is written", async () => {
    const owner = `memory-quota-${crypto.randomUUID()}`;
    const files = ownerMemoryFiles(ownerFiles(owner, { files: 2, bytes: 100 }), contextQuotaMessage({ files: 2, bytes: 100 }));
    expect((await run(files, { command: "create", path: "/memories/a.md", file_text: "first" })).changed).toEqual(["memories/a.md"]);
    expect((await run(files, { command: "create", path: "/memories/b.md", file_text: "second" })).changed).toEqual(["memories/b.md"]);
    await expect(run(files, { command: "create", path: "/memories/c.md", file_text: "third" })).rejects.toThrow(/2 files/);
    await expect(run(files, { command: "create", path: "/memories/a.md", file_text: "x".repeat(101) })).rejects.toThrow(/2 files or 0.1 KiB/);
    expect((await userObject(owner).contextFiles()).map((f) => [f.path, f.bytes])).toEqual([["memories/a.md", 5], ["memories/b.md", 6]]);
  });
});
