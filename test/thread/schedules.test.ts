// Schedules (PROTOCOL.md, "Schedules"): each kind of time fires from the thread's alarm, a missed
// time fires once, pause/edit/delete hold, a restart loses nothing, the per-user maximum holds under
// parallel creates, the spend cap refuses a fire cleanly, and the model's tool makes one that fires.
// The tests drive the alarm (runDurableObjectAlarm); a time "passes" by moving a schedule's next run.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { nextRun, nextRunAfterFire } from "../../worker/lib/schedule-time";
import { timeProblem } from "../../worker/thread/scheduler";
import type { ThreadRoom } from "../../worker/thread/room";
import { api, createThread, env, json, marker, messagesOf, script, settle, Socket, threadObject, until, userObject } from "../helpers";
import { createThreadVia, openSocketVia, tokenUsers } from "../http/util";

afterEach(() => settle());


/** As if the schedule's time had come `agoMs` ago (the alarm then finds it due). */
async function dueSince(threadId: string, scheduleId: string, agoMs = 0): Promise<void> {
  await runInDurableObject(threadObject(threadId), (_r: DurableObject, state) => {
    state.storage.sql.exec("UPDATE schedules SET next_run_at = ? WHERE id = ?", Date.now() - agoMs, scheduleId);
  });
}

async function create(threadId: string, body: Record<string, unknown>) {
  const res = await api(`/api/threads/${threadId}/schedules`, { body });
  return { status: res.status, ...(await json(res)) };
}

const scheduled = async (threadId: string) => (await messagesOf(threadId, "?kinds=text")).messages.filter((m: any) => m.source === "schedule");

describe("firing", () => {
  it("an interval fires on its alarm: schedule:fired, then the message (source schedule), then its run; the next time keeps its phase", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker("every");
    await script(m, [{ kind: "text", text: "tick answered" }]);
    const { schedule } = await create(thread.id, { prompt: `tick ${m}`, every: 2 });
    expect(schedule).toMatchObject({ every: 2, at: null, cron: null, timezone: "UTC", enabled: true, lastRunAt: null, lastStatus: null });
    expect(schedule.nextRunAt - schedule.createdAt).toBe(2_000);
    await new Promise((r) => setTimeout(r, schedule.nextRunAt - Date.now() + 50));
    expect(await runDurableObjectAlarm(threadObject(thread.id))).toBe(true);
    await ws.waitForRunEnd(1);
    const [fired] = ws.events("schedule:fired");
    const [message] = ws.events("chat:message").filter((f) => f.data.message.source === "schedule");
    expect(fired.data).toEqual({ threadId: thread.id, scheduleId: schedule.id, messageId: message.data.message.id });
    expect(fired.seq!).toBeLessThan(message.seq!);
    expect(message.data.message).toMatchObject({ role: "user", content: `tick ${m}`, metadata: { scheduleId: schedule.id, scheduleName: `tick ${m}` } });
    const [after] = (await json(await api(`/api/threads/${thread.id}/schedules`))).schedules;
    expect(after.lastRunAt).toBeGreaterThanOrEqual(schedule.nextRunAt);
    expect((after.nextRunAt - schedule.nextRunAt) % 2_000).toBe(0);
    expect(await until(async () => (await json(await api(`/api/threads/${thread.id}/schedules`))).schedules[0].lastStatus, (s) => s === "completed")).toBe("completed");
    ws.close();
  });

  it("a one-time schedule fires once and disarms; a cron one fires and moves to its next minute", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const once = (await create(thread.id, { prompt: "once", at: Date.now() + 600 })).schedule;
    const cron = (await create(thread.id, { prompt: "each minute", cron: "* * * * *", timezone: "Europe/Paris" })).schedule;
    expect(cron.nextRunAt % 60_000).toBe(0);
    await new Promise((r) => setTimeout(r, 700));
    await dueSince(thread.id, cron.id);
    await runDurableObjectAlarm(threadObject(thread.id));
    await ws.waitForRunEnd(2);
    expect((await scheduled(thread.id)).map((m: any) => m.content).sort()).toEqual(["each minute", "once"]);
    const byId = Object.fromEntries((await json(await api(`/api/threads/${thread.id}/schedules`))).schedules.map((s: any) => [s.id, s]));
    expect(byId[once.id].nextRunAt).toBeNull();
    expect(byId[cron.id].nextRunAt).toBeGreaterThan(Date.now());
    expect(byId[cron.id].nextRunAt % 60_000).toBe(0);
    // Disarmed: the alarm again fires nothing of it, and resuming it without a new time is refused.
    await runDurableObjectAlarm(threadObject(thread.id));
    expect(await scheduled(thread.id)).toHaveLength(2);
    const resumed = await api(`/api/schedules/${once.id}`, { method: "PATCH", body: { enabled: true } });
    expect(resumed.status).toBe(400);
    expect((await json(resumed)).error.message).toMatch(/time has passed/);
    const again = await json(await api(`/api/schedules/${once.id}`, { method: "PATCH", body: { enabled: true, at: Date.now() + 60_000 } }));
    expect(again.schedule.nextRunAt).toBeGreaterThan(Date.now());
    ws.close();
  });

  it("times missed during an outage fire once, not once each", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const { schedule } = await create(thread.id, { prompt: "missed", every: 2 });
    // A minute down: thirty of its times went by.
    await dueSince(thread.id, schedule.id, 60_000);
    await runDurableObjectAlarm(threadObject(thread.id));
    await ws.waitForRunEnd(1);
    expect(await scheduled(thread.id)).toHaveLength(1);
    const [after] = (await json(await api(`/api/threads/${thread.id}/schedules`))).schedules;
    expect(after.nextRunAt).toBeGreaterThan(Date.now());
    ws.close();
  });

  it("survives its object's restart", async () => {
    const thread = await createThread();
    const { schedule } = await create(thread.id, { prompt: "after a restart", every: 2 });
    await abortAllDurableObjects();
    await dueSince(thread.id, schedule.id);
    expect(await runDurableObjectAlarm(threadObject(thread.id))).toBe(true);
    await until(() => scheduled(thread.id), (list) => list.length === 1);
    await until(async () => (await json(await api(`/api/threads/${thread.id}`))).thread.headId, Boolean);
  });
});

describe("changes", () => {
  it("pause, edit and delete take effect at once", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const { schedule } = await create(thread.id, { prompt: "first words", every: 2 });
    const patch = (body: Record<string, unknown>) => api(`/api/schedules/${schedule.id}`, { method: "PATCH", body });

    const paused = await json(await patch({ enabled: false }));
    expect(paused.schedule).toMatchObject({ enabled: false, nextRunAt: null });
    await dueSince(thread.id, schedule.id);
    await runDurableObjectAlarm(threadObject(thread.id));
    expect(await scheduled(thread.id)).toEqual([]);

    const edited = (await json(await patch({ enabled: true, prompt: "second words", every: 3600 }))).schedule;
    expect(edited).toMatchObject({ enabled: true, prompt: "second words", every: 3600 });
    expect(edited.nextRunAt).toBeGreaterThan(Date.now() + 3_500_000);
    await dueSince(thread.id, schedule.id);
    await runDurableObjectAlarm(threadObject(thread.id));
    await ws.waitForRunEnd(1);
    expect((await scheduled(thread.id)).map((m: any) => m.content)).toEqual(["second words"]);

    expect((await api(`/api/schedules/${schedule.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await json(await api("/api/schedules"))).schedules.map((s: any) => s.id)).not.toContain(schedule.id);
    await runInDurableObject(threadObject(thread.id), (_r: DurableObject, state) => {
      expect(state.storage.sql.exec("SELECT count(*) AS n FROM schedules").one().n).toBe(0);
    });
    await runDurableObjectAlarm(threadObject(thread.id));
    expect(await scheduled(thread.id)).toHaveLength(1);
    expect((await api(`/api/schedules/${schedule.id}`, { method: "DELETE" })).status).toBe(404);
    ws.close();
  });

  it("refuses a bad time: 400 naming it, and nothing is made", async () => {
    const thread = await createThread();
    const bad = [
      { prompt: "p" },
      { prompt: "p", every: 2, cron: "* * * * *" },
      { prompt: "p", at: Date.now() - 1_000 },
      { prompt: "p", every: 1 },
      { prompt: "p", cron: "61 * * * *" },
      { prompt: "p", cron: "* * * *" },
      { prompt: "p", cron: "0 9 * * *", timezone: "Mars/Olympus" },
      { prompt: "   ", every: 60 },
    ];
    for (const body of bad) {
      const res = await create(thread.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.error.code).toBe("invalid_request");
    }
    expect((await json(await api(`/api/threads/${thread.id}/schedules`))).schedules).toEqual([]);
  });
});

describe("limits", () => {
  it("the per-user maximum holds under parallel creates across threads", async () => {
    const { users, as } = tokenUsers("scheduler");
    const call = as(users.scheduler);
    const threads = await Promise.all([1, 2, 3].map(async () => (await (await call("/api/threads", { body: {} })).json<any>()).thread));
    const statuses = await Promise.all(
      Array.from({ length: 56 }, (_, i) => call(`/api/threads/${threads[i % 3].id}/schedules`, { body: { prompt: `p${i}`, every: 3600 } }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    expect((await (await call("/api/schedules")).json<any>()).schedules).toHaveLength(50);
  });

  it("fires do not use up the person's per-minute limit on posts", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    await runInDurableObject(threadObject(thread.id), (r: ThreadRoom) => void (r.faults.limits.posts = env.TIGHT_LIMITER));
    const { schedule } = await create(thread.id, { prompt: "often", every: 2 });
    for (let i = 1; i <= 4; i++) {
      await dueSince(thread.id, schedule.id);
      await runDurableObjectAlarm(threadObject(thread.id));
      await ws.waitForRunEnd(i);
    }
    expect(await scheduled(thread.id)).toHaveLength(4);
    // The tight limiter (3 a minute) is the person's still: their message goes through.
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: "mine" } })).status).toBe(202);
    await ws.waitForRunEnd(5);
    ws.close();
  });

  it("a user's schedules start at most USER_UNATTENDED_RUNS_PER_DAY (50) runs a day across their threads; past it a fire fails and the person still posts", async () => {
    const { users, as, tokenEnv } = tokenUsers("busy");
    const call = as(users.busy);
    const threads = await Promise.all([1, 2].map(() => createThreadVia(call)));
    const sockets = await Promise.all(threads.map((t) => openSocketVia(tokenEnv, `/api/threads/${t.id}/ws`, { authorization: `Bearer ${users.busy.token}` })));
    const schedules = await Promise.all(
      threads.map(async (t) => (await (await call(`/api/threads/${t.id}/schedules`, { body: { prompt: "unattended", every: 2 } })).json<any>()).schedule),
    );
    const firedIn = async (threadId: string) =>
      (await (await call(`/api/threads/${threadId}/messages?kinds=text&limit=500`)).json<any>()).messages.filter((x: any) => x.source === "schedule" && x.role === "user");
    const fire = async (i: number) => {
      await dueSince(threads[i].id, schedules[i].id);
      await runDurableObjectAlarm(threadObject(threads[i].id));
    };
    // 25 fires in each thread: 50 runs, every one answered.
    for (let n = 1; n <= 25; n++) {
      for (const i of [0, 1]) {
        await fire(i);
        await sockets[i].waitForRunEnd(n);
      }
    }
    for (const t of threads) expect(await firedIn(t.id)).toHaveLength(25);
    // The 51st, in either thread, is refused: no message, lastStatus failed, the schedule goes on.
    for (const i of [0, 1]) {
      await fire(i);
      expect(await firedIn(threads[i].id)).toHaveLength(25);
      const [after] = (await (await call(`/api/threads/${threads[i].id}/schedules`)).json<any>()).schedules;
      expect(after).toMatchObject({ lastStatus: "failed", enabled: true });
    }
    // What the person posts is not unattended: it runs.
    expect((await call(`/api/threads/${threads[0].id}/messages`, { body: { content: "mine" } })).status).toBe(202);
    await sockets[0].waitForRunEnd(26);
    for (const s of sockets) s.close();
  });

  it("the spend cap refuses a fire cleanly: no message, lastStatus failed, and the schedule goes on", async () => {
    const { users, as } = tokenUsers("capped");
    const call = as(users.capped);
    const thread = (await (await call("/api/threads", { body: {} })).json<any>()).thread;
    const schedule = (await (await call(`/api/threads/${thread.id}/schedules`, { body: { prompt: "costly", every: 2 } })).json<any>()).schedule;
    // $60 spent today, past the tests' $50 cap.
    await userObject(users.capped.id).settle({ runId: "run_spent", threadId: thread.id, at: Date.now() }, 60);
    await dueSince(thread.id, schedule.id);
    await runDurableObjectAlarm(threadObject(thread.id));
    const [after] = (await (await call(`/api/threads/${thread.id}/schedules`)).json<any>()).schedules;
    expect(after).toMatchObject({ lastStatus: "failed", enabled: true });
    expect(after.nextRunAt).toBeGreaterThan(Date.now());
    expect((await (await call(`/api/threads/${thread.id}/messages`)).json<any>()).messages).toEqual([]);
  });
});

/** The tool:approval frame of `toolUseId`, once the run asks. */
async function askedFor(ws: Socket, toolUseId: string) {
  const frames = await ws.waitFor((f) => f.some((x) => x.event === "tool:approval" && x.data.toolUseId === toolUseId), 10_000, "tool:approval");
  return frames.find((x) => x.event === "tool:approval" && x.data.toolUseId === toolUseId)!.data;
}

/** Waits for the run to ask about `toolUseId`, then decides it as the thread's owner. */
async function approve(call: (path: string, opts?: any) => Promise<Response>, ws: Socket, threadId: string, toolUseId: string, yes: boolean) {
  const asked = await askedFor(ws, toolUseId);
  const res = await call(`/api/threads/${threadId}/runs/${asked.runId}/approvals/${toolUseId}`, { body: { approve: yes } });
  expect(res.status).toBe(200);
}

describe("the schedule plugin", () => {
  it("the model's schedule__create makes a schedule that fires, read in the thread's timezone", async () => {
    const { users, as, tokenEnv } = tokenUsers("planner");
    const call = as(users.planner);
    const thread = (await (await call("/api/threads", { body: { timezone: "Asia/Tokyo" } })).json<any>()).thread;
    expect(thread.timezone).toBe("Asia/Tokyo");
    const m = marker("plan");
    await script(m, [
      { kind: "tool_use", tools: [{ name: "schedule__create", input: { prompt: `water the plants ${m}`, cron: "30 7 * * *" }, id: "toolu_sched" }] },
      { kind: "text", text: "Scheduled." },
    ]);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.planner.token}` });
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `remind me every morning ${m}` } })).status).toBe(202);
    await approve(call, ws, thread.id, "toolu_sched", true);
    ws.close();
    const [schedule] = await until(async () => (await (await call(`/api/threads/${thread.id}/schedules`)).json<any>()).schedules, (s) => s.length === 1);
    expect(schedule).toMatchObject({ cron: "30 7 * * *", timezone: "Asia/Tokyo", prompt: `water the plants ${m}` });
    // 07:30 in Tokyo is 22:30 UTC.
    expect(new Date(schedule.nextRunAt).toISOString()).toMatch(/T22:30:00.000Z$/);
    // The schedule is listed mid-run; the fire waits for the run's answer, or that answer lands after
    // the fire's message (settle() knows only threads made by createThread).
    await until(
      async () => (await (await call(`/api/threads/${thread.id}/messages?kinds=text`)).json<any>()).messages,
      (list) => list.at(-1)?.content === "Scheduled.",
    );
    await settle();
    await dueSince(thread.id, schedule.id);
    await runDurableObjectAlarm(threadObject(thread.id));
    const texts = await until(
      async () => (await (await call(`/api/threads/${thread.id}/messages?kinds=text`)).json<any>()).messages,
      (list) => list.at(-1).role === "assistant" && list.some((x: any) => x.source === "schedule"),
    );
    // The fire's message, then the run's answer to it.
    const fired = texts.findIndex((x: any) => x.source === "schedule");
    expect(texts.slice(fired).map((x: any) => [x.role, x.source])).toEqual([["user", "schedule"], ["assistant", "assistant"]]);
    expect(texts[fired].content).toBe(`water the plants ${m}`);
  });

  it("the model's schedule__create waits for the user's approval, as an MCP tool that asks does: nothing is made until then, and nothing if declined", async () => {
    const { users, as, tokenEnv } = tokenUsers("asker");
    const call = as(users.asker);
    const thread = await createThreadVia(call);
    const ws = await openSocketVia(tokenEnv, `/api/threads/${thread.id}/ws`, { authorization: `Bearer ${users.asker.token}` });
    const m = marker("ask");
    await script(m, [
      { kind: "tool_use", tools: [{ name: "schedule__create", input: { prompt: `yes ${m}`, every_seconds: 3600 }, id: "toolu_yes" }] },
      { kind: "text", text: "Scheduled." },
      { kind: "tool_use", tools: [{ name: "schedule__create", input: { prompt: `no ${m}`, every_seconds: 3600 }, id: "toolu_no" }] },
      { kind: "text", text: "Not then." },
    ]);
    const list = async () => (await (await call("/api/schedules")).json<any>()).schedules;
    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `every hour ${m}` } })).status).toBe(202);
    const asked = await askedFor(ws, "toolu_yes");
    expect(asked).toMatchObject({ threadId: thread.id, toolName: "schedule__create", input: { prompt: `yes ${m}`, every_seconds: 3600 } });
    // Waiting: the thread carries the question (the sidebar's badge), and no schedule exists yet.
    const waiting = (await (await call(`/api/threads/${thread.id}`)).json<any>()).thread;
    expect(waiting.pendingApprovals).toMatchObject([{ toolUseId: "toolu_yes", toolName: "schedule__create" }]);
    expect(await list()).toEqual([]);
    await approve(call, ws, thread.id, "toolu_yes", true);
    await ws.waitForRunEnd(1);
    expect(await list()).toMatchObject([{ prompt: `yes ${m}`, every: 3600, enabled: true }]);

    expect((await call(`/api/threads/${thread.id}/messages`, { body: { content: `and another ${m}` } })).status).toBe(202);
    await approve(call, ws, thread.id, "toolu_no", false);
    await ws.waitForRunEnd(2);
    expect((await list()).map((s: any) => s.prompt)).toEqual([`yes ${m}`]);
    const result = ws.events("pipeline:stream").find((f) => f.data.type === "tool_result" && f.data.toolUseId === "toolu_no");
    expect(result?.data).toMatchObject({ isError: true, content: expect.stringMatching(/declined/) });
    ws.close();
  });

  it("/schedule in plain English makes one, and answers what it made or why not", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: "/schedule every weekday at 8:30am check the build" } })).status).toBe(202);
    await ws.waitForRunEnd(1);
    const [schedule] = await until(async () => (await json(await api(`/api/threads/${thread.id}/schedules`))).schedules, (s) => s.length === 1);
    expect(schedule).toMatchObject({ cron: "30 8 * * 1-5", prompt: "check the build", timezone: "UTC" });
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: "/schedule whenever you like do things" } })).status).toBe(202);
    await ws.waitForRunEnd(2);
    const notices = await until(
      async () => (await messagesOf(thread.id, "?kinds=text")).messages.filter((m: any) => m.role === "system" && m.source === "schedule"),
      (list) => list.length === 2,
    );
    expect(notices[0].content).toMatch(/^Scheduled: sch_/);
    expect(notices[1].content).toMatch(/^Not scheduled: say when, then what/);
    ws.close();
  });
});

describe("a /schedule the model writes", () => {
  it("makes its schedule paused, for the person to turn on: it never fires before they do", async () => {
    const thread = await createThread();
    const ws = await Socket.open(thread.id);
    const m = marker("written");
    await script(m, [{ kind: "text", text: `I will remind you.\n/schedule every day at 9:00 water the plants ${m}` }]);
    expect((await api(`/api/threads/${thread.id}/messages`, { body: { content: `remind me daily ${m}` } })).status).toBe(202);
    await ws.waitForRunEnd(1);
    const [schedule] = await until(async () => (await json(await api(`/api/threads/${thread.id}/schedules`))).schedules, (s) => s.length === 1);
    expect(schedule).toMatchObject({ cron: "0 9 * * *", enabled: false, nextRunAt: null });
    const [notice] = await until(
      async () => (await messagesOf(thread.id, "?kinds=text")).messages.filter((x: any) => x.role === "system" && x.source === "schedule"),
      (list) => list.length === 1,
    );
    expect(notice.content).toMatch(/^Scheduled by the assistant, paused until you turn it on: sch_/);
    await dueSince(thread.id, schedule.id);
    await runDurableObjectAlarm(threadObject(thread.id));
    expect((await scheduled(thread.id)).filter((x: any) => x.role === "user")).toEqual([]);
    // Turned on by its person, it is armed.
    const on = await json(await api(`/api/schedules/${schedule.id}`, { method: "PATCH", body: { enabled: true } }));
    expect(on.schedule.nextRunAt).toBeGreaterThan(Date.now());
    ws.close();
  });
});

describe("cron across daylight-saving changes", () => {
  it("keeps the wall-clock time in two timezones", () => {
    // New York springs forward on 2026-03-08: 09:00 is 14:00Z before, 13:00Z after.
    const ny = [Date.parse("2026-03-07T00:00:00Z")];
    for (let i = 0; i < 2; i++) ny.push(nextRun({ cron: "0 9 * * *" }, "America/New_York", ny.at(-1)!, 0)!);
    expect(ny.slice(1).map((t) => new Date(t).toISOString())).toEqual(["2026-03-07T14:00:00.000Z", "2026-03-08T13:00:00.000Z"]);
    // Berlin falls back on 2026-10-25: 09:00 is 07:00Z before, 08:00Z after.
    const berlin = [Date.parse("2026-10-24T00:00:00Z")];
    for (let i = 0; i < 2; i++) berlin.push(nextRun({ cron: "0 9 * * *" }, "Europe/Berlin", berlin.at(-1)!, 0)!);
    expect(berlin.slice(1).map((t) => new Date(t).toISOString())).toEqual(["2026-10-24T07:00:00.000Z", "2026-10-25T08:00:00.000Z"]);
  });
});



describe("the shortest interval holds for every kind of schedule", () => {
  const floor = { scheduleMinIntervalS: 300 };
  const now = Date.parse("2026-03-01T00:00:00Z");

  it("refuses a cron expression that fires more often than SCHEDULE_MIN_INTERVAL_S, as a short every is", () => {
    expect(timeProblem({ every: 60 }, "UTC", floor, now)).toMatch(/at least 300 seconds/);
    expect(timeProblem({ cron: "* * * * *" }, "UTC", floor, now)).toMatch(/60 seconds apart.*every 300 seconds/);
    expect(timeProblem({ cron: "*/2 9 * * 1-5" }, "Europe/Paris", floor, now)).toMatch(/120 seconds apart/);
    // Most of its fires are a day apart; two are a minute apart, and that is what counts.
    expect(timeProblem({ cron: "0,1 9 * * *" }, "UTC", floor, now)).toMatch(/60 seconds apart/);
    for (const cron of ["*/5 * * * *", "0 9 * * 1-5", "30 7 * * *", "0 0 29 2 *"]) expect(timeProblem({ cron }, "UTC", floor, now)).toBeNull();
  });

  it("a fire's next time is never sooner than the shortest interval after it, even across a daylight-saving change", () => {
    // 01:59 and 03:00 in Paris are 61 minutes apart on the wall clock, and a minute apart on
    // 2026-03-29, when 02:00 springs to 03:00: the fire after the 01:59 one is 03:59.
    const cron = { cron: "0,59 1,3 * * *" };
    const due = Date.parse("2026-03-29T00:59:00Z");
    expect(new Date(nextRun(cron, "Europe/Paris", due, 0)!).toISOString()).toBe("2026-03-29T01:00:00.000Z");
    expect(new Date(nextRunAfterFire(cron, "Europe/Paris", due, due + 1_000, 0, 300_000)!).toISOString()).toBe("2026-03-29T01:59:00.000Z");
    // An interval keeps its phase: a late fire's next time is its next whole interval.
    expect(nextRunAfterFire({ every: 300 }, "UTC", now + 300_000, now + 310_000, now, 300_000)).toBe(now + 600_000);
  });
});
