// Context files are bounded per user (USER_CONTEXT_FILES_MAX, USER_CONTEXT_BYTES_MAX), checked and
// charged in one step: past either, a write is 413 too_large and nothing is stored, however many
// writes come at once.
import { describe, expect, it } from "vitest";
import { callApp, expectError, tokenUsers, type Env } from "./util";
import { userObject } from "../helpers";

function quotaUser(files: number, bytes: number) {
  const { users, tokenEnv } = tokenUsers("writer");
  const quotaEnv: Env = { ...tokenEnv, USER_CONTEXT_FILES_MAX: String(files), USER_CONTEXT_BYTES_MAX: String(bytes) };
  const put = (path: string, content: string) => callApp(quotaEnv, `/api/context/${path}`, { method: "PUT", body: { content }, token: users.writer.token });
  // What the user's object holds (the primary store; D1 gets it after).
  const stored = async () => (await userObject(users.writer.id).contextForRun()).map(({ path, content }) => ({ path, content }));
  return { put, stored };
}

describe("context file quotas", () => {
  it("refuse a file past the count and a write past the bytes, keeping what was there", async () => {
    const { put, stored } = quotaUser(3, 40);
    for (const path of ["a.md", "b.md", "c.md"]) expect((await put(path, "ten bytes.")).status).toBe(200);
    const fourth = await expectError(await put("d.md", "x"), 413, "too_large");
    expect(fourth.message).toContain("3 files");
    // Rewriting a file counts its new size instead of its old one.
    expect((await put("a.md", "twenty bytes of it..")).status).toBe(200);
    await expectError(await put("b.md", "x".repeat(21)), 413, "too_large");
    expect(await stored()).toEqual([
      { path: "a.md", content: "twenty bytes of it.." },
      { path: "b.md", content: "ten bytes." },
      { path: "c.md", content: "ten bytes." },
    ]);
  });

  it("hold under writes made at once: exactly as many as fit are stored", async () => {
    const { put, stored } = quotaUser(3, 1_000);
    const statuses = (await Promise.all(Array.from({ length: 8 }, (_, i) => put(`f${i}.md`, `file ${i}`)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 413)).toHaveLength(5);
    expect(await stored()).toHaveLength(3);
  });
});
