import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import * as schema from "../db/schema";
import { migrate } from "./schema";

/** Drizzle over the user's object's SQLite, with D1's table objects (the tables have the same names). */
export type UserDb = DrizzleSqliteDODatabase<typeof schema>;

export function userDb(storage: DurableObjectStorage): UserDb {
  migrate(storage.sql);
  return drizzle(storage, { schema });
}
