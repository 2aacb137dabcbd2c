import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = DrizzleD1Database<typeof schema>;

export function database(d1: D1Database): Db {
  return drizzle(d1, { schema });
}

/** What one writer asked of D1: statements, and round trips (a batch is one). */
export interface D1Usage {
  statements: number;
  roundTrips: number;
}

const EXECUTORS = new Set(["run", "all", "first", "raw"]);

/**
 * D1 with a meter on it, so a thread object can report what each run costs in statements (see
 * `npm run bench`). Statements are unwrapped before a batch: the runtime wants its own objects.
 */
export function meteredD1(d1: D1Database, usage: D1Usage): D1Database {
  const originals = new WeakMap<object, D1PreparedStatement>();
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...args: unknown[]) => wrap(target.bind(...args));
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (EXECUTORS.has(prop as string)) {
          return (...args: unknown[]) => {
            usage.statements++;
            usage.roundTrips++;
            return value.apply(target, args);
          };
        }
        return value.bind(target);
      },
    });
    originals.set(proxy, stmt);
    return proxy;
  };
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql));
      if (prop === "batch") {
        return (stmts: D1PreparedStatement[]) => {
          usage.statements += stmts.length;
          usage.roundTrips++;
          return target.batch(stmts.map((s) => originals.get(s) ?? s));
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
