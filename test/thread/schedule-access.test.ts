// A schedule whose owner no longer has access to the deployment (token mode: their token is gone from
// AUTH_TOKENS) does not fire: the fire is dropped and the schedule paused, as the schedules API shows.
// Another user's schedule in the same deployment fires as before. The thread objects read the
// deployment's settings at each fire; the test changes them for its objects, and back.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../worker/env";
import { settle, threadObject, until } from "../helpers";
import { createThreadVia, env, tokenUsers } from "../http/util";

afterEach(() => settle());

/** The settings the thread objects see, changed for the length of `work`. */
async function withSettings(changes: Partial<Env>, work: () => Promise<void>): Promise<void> {
  const objects = env as unknown as Record<string, unknown>;
  const before = Object.fromEntries(Object.keys(changes).map((k) => [k, objects[k]]));
  Object.assign(objects, changes);
  try {
    await work();
  } finally {
    Object.assign(objects, before);
  }
}

async function dueNow(threadId: string, scheduleId: string): Promise<void> {
  await runInDurableObject(threadObject(threadId), (_r: DurableObject, state) => {
    state.storage.sql.exec("UPDATE schedules SET next_run_at = ? WHERE id = ?", Date.now(), scheduleId);
  });
}

describe("a schedule whose owner lost access", () => {
  it("drops the fire and pauses the schedule (GET /api/schedules shows it paused); a user who kept access fires as before", async () => {
    const { users, as } = tokenUsers("leaver", "stayer");
    const made = await Promise.all(
      (["leaver", "stayer"] as const).map(async (name) => {
        const call = as(users[name]);
        const thread = await createThreadVia(call);
        const res = await call(`/api/threads/${thread.id}/schedules`, { body: { prompt: `while away ${name}`, every: 3600 } });
        return { call, thread, schedule: (await res.json<any>()).schedule };
      }),
    );
    // The leaver's token is revoked: the deployment knows only the stayer's.
    await withSettings({ AUTH_MODE: "token", AUTH_TOKENS: `${users.stayer.token}:${users.stayer.id}` }, async () => {
      for (const { thread, schedule } of made) {
        await dueNow(thread.id, schedule.id);
        await runDurableObjectAlarm(threadObject(thread.id));
      }
    });
    const [leaver, stayer] = made;
    const messages = async (m: (typeof made)[number]) => (await (await m.call(`/api/threads/${m.thread.id}/messages?kinds=text`)).json<any>()).messages;
    expect(await messages(leaver)).toEqual([]);
    const [paused] = (await (await leaver.call("/api/schedules")).json<any>()).schedules;
    expect(paused).toMatchObject({ id: leaver.schedule.id, enabled: false, nextRunAt: null, lastStatus: "failed" });
    await until(() => messages(stayer), (list) => list.some((x: any) => x.source === "schedule"));
    const [going] = (await (await stayer.call("/api/schedules")).json<any>()).schedules;
    expect(going).toMatchObject({ enabled: true });
    expect(going.nextRunAt).toBeGreaterThan(Date.now());
  });
});
