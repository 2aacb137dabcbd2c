import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { configOf, type Env } from "../env";
import * as schema from "./schema";

/** Drizzle over D1; `$client` is the D1 underneath (metered like the rest), for plain statement batches. */
export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

/**
 * D1 through Drizzle; with `usage`, every round trip is counted there. D1_LATENCY_MS delays each one
 * (bench), and `faults` can take D1 away (tests).
 */
export function database(env: Env, usage?: D1Usage, faults?: D1Meter["faults"]): Db {
  const { d1LatencyMs: latencyMs, devFaults } = configOf(env);
  const dev = devFaults ? devD1 : undefined;
  const d1 = usage || latencyMs || faults || dev ? meteredD1(env.DB, usage ?? newUsage(), { latencyMs, faults, dev }) : env.DB;
  return drizzle(d1, { schema });
}

/**
 * The bench's switch (DEV_FAULTS=1, worker/http/dev-faults.ts): D1 away for every part of this
 * isolate at once (the Worker and the objects of the local app), and every round trip counted.
 */
export const devD1 = { down: false, roundTrips: 0 };

/**
 * What one writer asked of D1: statements, round trips (a batch is one), the rows they wrote as D1
 * counts them (indexes included), and the bytes of the values they bound.
 */
export interface D1Usage {
  statements: number;
  roundTrips: number;
  rowsWritten: number;
  bytes: number;
}

export const newUsage = (): D1Usage => ({ statements: 0, roundTrips: 0, rowsWritten: 0, bytes: 0 });

/** A bound value's size as D1 keeps it: text in UTF-8, a number in 8 bytes. */
const sizeOf = (v: unknown) => (typeof v === "string" ? new TextEncoder().encode(v).length : v === null || v === undefined ? 0 : v instanceof ArrayBuffer ? v.byteLength : 8);

/** The rows a result says it wrote. */
const written = (results: D1Result[]) => results.reduce((n, r) => n + (r.meta?.rows_written ?? 0), 0);

export interface D1Meter {
  /** Bench and tests: a delay before each round trip, standing in for a primary one region away. */
  latencyMs?: number;
  /** Tests: while `down`, every round trip fails as D1 would when it is unreachable; `delayMs` slows each. */
  faults?: { down: boolean; delayMs?: number };
  /** The bench's switch, the same for every part of the isolate. */
  dev?: typeof devD1;
}

const EXECUTORS = new Set(["run", "all", "first", "raw"]);

/**
 * D1 with a meter on it, so a thread object can report what each run costs in statements (see
 * `npm run bench`). Statements are unwrapped before a batch: the runtime wants its own objects.
 */
export function meteredD1(d1: D1Database, usage: D1Usage, { latencyMs = 0, faults, dev }: D1Meter = {}): D1Database {
  const delay = async <T>(work: () => Promise<T>): Promise<T> => {
    const wait = latencyMs + (faults?.delayMs ?? 0);
    if (dev) dev.roundTrips++;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (faults?.down || dev?.down) throw new Error("D1_ERROR: the database is unavailable (injected by a test)");
    return work();
  };
  const originals = new WeakMap<object, D1PreparedStatement>();
  const boundBytes = new WeakMap<object, number>();
  const wrap = (stmt: D1PreparedStatement, bytes = 0): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...args: unknown[]) => wrap(target.bind(...args), args.reduce<number>((n, a) => n + sizeOf(a), 0));
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (EXECUTORS.has(prop as string)) {
          return (...args: unknown[]) => {
            usage.statements++;
            usage.roundTrips++;
            usage.bytes += bytes;
            return delay(async () => {
              const result = await value.apply(target, args);
              if (prop === "run" || prop === "all") usage.rowsWritten += written([result as D1Result]);
              return result;
            });
          };
        }
        return value.bind(target);
      },
    });
    originals.set(proxy, stmt);
    boundBytes.set(proxy, bytes);
    return proxy;
  };
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql));
      if (prop === "batch") {
        return (stmts: D1PreparedStatement[]) => {
          usage.statements += stmts.length;
          usage.roundTrips++;
          usage.bytes += stmts.reduce((n, s) => n + (boundBytes.get(s) ?? 0), 0);
          return delay(async () => {
            const results = await target.batch(stmts.map((s) => originals.get(s) ?? s));
            usage.rowsWritten += written(results);
            return results;
          });
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
