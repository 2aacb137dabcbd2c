// A share shows the conversation and nothing of the system: its snapshot (what its link answers, and
// its readers' copy in R2) names no owner's object, no thread (its own, a task's), no task, no other
// branch's message.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { placed } from "../../worker/lib/placement";
import { api, createThread, json, marker, messagesOf, script, settle, Socket, until } from "../helpers";
import { env } from "./util";

// The validator plugin's model call would take the task's scripted answers (its marker is in the prompt).
const validator = (enabled: boolean) => api("/api/plugins/validator", { method: "PATCH", body: { enabled } });
beforeAll(() => validator(false));
afterAll(() => validator(true));
afterEach(() => settle());

/** A thread that delegated a task (and heard of its end), then had its last message edited: two branches. */
async function delegatedAndEdited() {
  const [p, c] = [marker("p"), marker("c")];
  await script(c, [{ kind: "text", text: "The summary." }]);
  await script(p, [
    { kind: "text", text: `On it.\n/delegate summarise the report ${c}` },
    { kind: "text", text: "Noted the task's outcome." },
    { kind: "text", text: "First answer to the follow-up." },
    { kind: "text", text: "Answer to the edited follow-up." },
  ]);
  const parent = await createThread({ name: "Delegating" });
  const ws = await Socket.open(parent.id);
  await api(`/api/threads/${parent.id}/messages`, { body: { content: `please delegate ${p}` } });
  const [task] = await until(
    async () => (await json<{ tasks: any[] }>(api(`/api/tasks?threadId=${parent.id}`))).tasks,
    (t) => t.length > 0 && t[0].status === "completed",
    15_000,
  );
  await ws.waitFor((f) => f.filter((x) => x.event === "pipeline:complete").length >= 2, 15_000, "the parent's reaction");
  const { message: followUp } = await json<any>(api(`/api/threads/${parent.id}/messages`, { body: { content: `and then? ${p}` } }));
  await ws.waitForRunEnd(3, 15_000);
  const { message: edited } = await json<any>(api(`/api/threads/${parent.id}/messages/${followUp.id}/edit`, { body: { content: `and then, really? ${p}` } }));
  await ws.waitForRunEnd(4, 15_000);
  ws.close();
  return { parent, task, followUp, edited };
}

describe("a share's snapshot", () => {
  it("holds the conversation only: no owner's object id, no thread's or task's id, no sibling's id", async () => {
    const { parent, task, followUp, edited } = await delegatedAndEdited();
    // What the owner sees of the branch does name them all (so the test below looks for something there).
    const own = JSON.stringify((await messagesOf(parent.id)).messages);
    expect(own).toContain(task.threadId);
    expect(own).toContain(followUp.id);

    const { share } = await json<any>(api(`/api/threads/${parent.id}/shares`, { method: "POST" }));
    const answered = await (await api(`/api/shared/${share.id}`)).text();
    const copy = await (await env.FILES.get(`shares/${share.id}/share.json`))!.text();
    const shared = JSON.parse(answered);
    // The conversation is there: the task's news, the edited message and its answer.
    const contents = shared.messages.map((m: any) => m.content).join("\n");
    expect(contents).toContain("The summary.");
    expect(contents).toContain("Answer to the edited follow-up.");
    expect(shared.messages.map((m: any) => m.id)).toContain(edited.id);

    const ownerObject = placed(env, env.USER_ROOM).idFromName("local").toString();
    const system = { ownerObject, thread: parent.id, taskThread: task.threadId, task: task.id, sibling: followUp.id };
    for (const text of [answered, copy]) {
      for (const [what, id] of Object.entries(system)) expect(text.includes(id), `${what} ${id} in the snapshot`).toBe(false);
    }
    expect(shared.messages.filter((m: any) => m.siblings)).toEqual([]);
  });
});
