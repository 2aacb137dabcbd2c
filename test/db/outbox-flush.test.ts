// An outbox's flush against the real D1, from a real object's SQLite: a row D1 refuses goes to the dead
// letters and the rows behind it flow on; a D1 that is away keeps every row waiting, retried with a
// jittered backoff; and an outbox whose sink stays away keeps to its bound, the oldest put aside.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { d1Sink, type MirrorRows } from "../../worker/db/mirror";
import { Alarms } from "../../worker/lib/alarms";
import type { Logger } from "../../worker/lib/logger";
import { Outbox } from "../../worker/lib/outbox";
import { OutboxFlush, refusesRow, type Sink } from "../../worker/lib/outbox-flush";
import { env, threadObject } from "../helpers";

interface Line {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

function recorder(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  const logger: Logger = { info: at("info"), warn: at("warn"), error: at("error"), with: () => logger };
  return { logger, lines };
}

function thread(ownerId: string, id: string, fields: Partial<MirrorRows["thread_directory"][number]> = {}): MirrorRows["thread_directory"][number] {
  return { id, ownerId, kind: "general", name: `thread ${id}`, status: "active", parentThreadId: null, lastActivity: 1_000, createdAt: 1_000, updatedAt: 1_000, ...fields };
}

/** A sink that is away: what a network failure or a D1 outage looks like to a flush. */
const away: Sink = {
  async write() {
    throw new Error("D1 is down");
  },
};

/** `fn` with a real outbox in a fresh object's SQLite, and its flush to `sink`. */
function withOutbox<T>(sink: Sink | null, fn: (o: { outbox: Outbox; flush: OutboxFlush; lines: Line[]; storage: DurableObjectStorage }) => Promise<T>, limit?: number): Promise<T> {
  return runInDurableObject(threadObject(`outbox-flush-${crypto.randomUUID()}`), async (_room, state) => {
    const outbox = new Outbox(state.storage.sql, "outbox_test");
    const { logger, lines } = recorder();
    const flush = new OutboxFlush(outbox, sink ?? d1Sink(env.DB), new Alarms(state.storage), logger, "D1", limit);
    try {
      return await fn({ outbox, flush, lines, storage: state.storage });
    } finally {
      // The retry's alarm is the test's, not the object's.
      await state.storage.deleteAlarm();
    }
  });
}

const owned = async (owner: string) =>
  (await env.DB.prepare("SELECT id FROM thread_directory WHERE owner_id = ? ORDER BY id").bind(owner).all<{ id: string }>()).results.map((r) => r.id);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("outbox flush", () => {
  it("puts a row D1 refuses in the dead letters and writes the rows around it", async () => {
    const owner = `dead-${crypto.randomUUID().slice(0, 8)}`;
    const [good1, bad, good2] = [1, 2, 3].map((i) => `thr_${owner}_${i}`);
    await withOutbox(null, async ({ outbox, flush, lines, storage }) => {
      outbox.put("thread_directory", good1, thread(owner, good1));
      // NOT NULL: D1 refuses this one however often it is sent.
      outbox.put("thread_directory", bad, thread(owner, bad, { name: null as unknown as string }));
      outbox.put("thread_directory", good2, thread(owner, good2));

      expect(await flush.flush()).toBe(2);
      expect(await owned(owner)).toEqual([good1, good2]);
      expect(outbox.size()).toBe(0);
      const dead = outbox.deadLetters(10);
      expect(dead.map((d) => [d.table, d.key, d.row.id])).toEqual([["thread_directory", bad, bad]]);
      expect(dead[0].error).toMatch(/NOT NULL constraint failed/);
      expect(flush.state()).toEqual({ waiting: 0, dead: 1 });
      expect(lines.filter((l) => l.level === "warn")).toEqual([expect.objectContaining({ fields: expect.objectContaining({ table: "thread_directory", key: bad, error: dead[0].error }) })]);
      // Done for good: no retry is asked for.
      expect(await storage.getAlarm()).toBeNull();
    });
  });

  it("keeps every row waiting while D1 is away, and retries within [base/2, base] the first time", async () => {
    await withOutbox(away, async ({ outbox, flush, lines, storage }) => {
      for (let i = 0; i < 3; i++) outbox.put("thread_directory", `k${i}`, thread("o", `k${i}`));
      const before = Date.now();
      expect(await flush.flush()).toBe(0);
      const after = Date.now();

      expect(outbox.size()).toBe(3);
      expect(outbox.deadCount()).toBe(0);
      const alarm = await storage.getAlarm();
      expect(alarm).not.toBeNull();
      const tolerance = 50;
      expect(alarm! - before).toBeGreaterThanOrEqual(500 - tolerance);
      expect(alarm! - after).toBeLessThanOrEqual(1_000 + tolerance);
      const [line] = lines;
      expect(line.fields).toMatchObject({ rows: 3, waiting: 3, dead: 0, attempt: 1, error: "Error: D1 is down" });
      expect(line.fields!.retryInMs).toBeGreaterThanOrEqual(500);
      expect(line.fields!.retryInMs).toBeLessThanOrEqual(1_000);
    });
  });

  it("spreads the retries of objects that failed together (equal jitter)", async () => {
    const delays: number[] = [];
    for (const random of [0, 0.999]) {
      vi.spyOn(Math, "random").mockReturnValue(random);
      await withOutbox(away, async ({ outbox, flush, lines }) => {
        outbox.put("thread_directory", "k", thread("o", "k"));
        await flush.flush();
        delays.push(lines[0].fields!.retryInMs as number);
      });
      vi.restoreAllMocks();
    }
    expect(delays).toEqual([500, 1_000]);
  });

  it("stops putting rows aside at the sink's first failure of its own, and retries the rest", async () => {
    let writes = 0;
    // The batch is refused for a row; then one row goes, and the sink goes away.
    const flaky: Sink = {
      async write() {
        writes++;
        if (writes === 1) throw new Error("D1_ERROR: NOT NULL constraint failed: thread_directory.name: SQLITE_CONSTRAINT");
        if (writes === 3) throw new Error("D1_ERROR: database is full");
      },
    };
    await withOutbox(flaky, async ({ outbox, flush, storage }) => {
      for (let i = 0; i < 3; i++) outbox.put("thread_directory", `k${i}`, thread("o", `k${i}`));
      expect(await flush.flush()).toBe(0);
      expect(outbox.pending().map((e) => e.key)).toEqual(["k1", "k2"]);
      expect(outbox.deadCount()).toBe(0);
      expect(await storage.getAlarm()).not.toBeNull();
    });
  });

  it("keeps to its bound while D1 is away: the oldest rows beyond it go to the dead letters", async () => {
    await withOutbox(
      away,
      async ({ outbox, flush, lines }) => {
        for (let i = 0; i < 8; i++) outbox.put("thread_directory", `k${i}`, thread("o", `k${i}`));
        expect(await flush.flush()).toBe(0);

        expect(outbox.pending().map((e) => e.key)).toEqual(["k3", "k4", "k5", "k6", "k7"]);
        const dead = outbox.deadLetters(10);
        expect(dead.map((d) => d.key)).toEqual(["k0", "k1", "k2"]);
        expect(new Set(dead.map((d) => d.error))).toEqual(new Set(["outbox past its bound (5 rows) while its sink was away"]));
        expect(flush.state()).toEqual({ waiting: 5, dead: 3 });
        expect(lines.find((l) => l.message.includes("failed; retrying"))?.fields).toMatchObject({ rows: 8, waiting: 5, dead: 3 });
      },
      5,
    );
  });

  it("tells a refused row from a sink that is away", () => {
    for (const refused of ["D1_ERROR: NOT NULL constraint failed: t.name: SQLITE_CONSTRAINT", "string or blob too big: SQLITE_TOOBIG", "datatype mismatch"]) {
      expect(refusesRow(new Error(refused))).toBe(true);
    }
    expect(refusesRow(new Error("D1_ERROR", { cause: new Error("UNIQUE constraint failed: t.id") }))).toBe(true);
    for (const away of ["D1 is down", "D1_ERROR: database is full", "Network connection lost.", "D1 DB is overloaded. Too many requests queued."]) {
      expect(refusesRow(new Error(away))).toBe(false);
    }
  });
});
