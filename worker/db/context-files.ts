import { and, asc, eq, sql } from "drizzle-orm";
import type { Config } from "../env";
import type { Db } from "./client";
import { contextFiles } from "./schema";
import type { ContextFileInfo } from "../../protocol";

/** A relative path of plain segments: no empty, dot or dot-dot segments, no backslashes. */
export function isContextPath(path: string): boolean {
  return (
    path.length > 0 &&
    path.length <= 200 &&
    !path.includes("\\") &&
    path.split("/").every((seg) => seg !== "" && seg !== "." && seg !== ".." && /^[\w.@ -]+$/.test(seg))
  );
}

export async function listContextFiles(db: Db, ownerId: string): Promise<ContextFileInfo[]> {
  return db
    .select({ path: contextFiles.path, bytes: contextFiles.bytes, updatedAt: contextFiles.updatedAt })
    .from(contextFiles)
    .where(eq(contextFiles.ownerId, ownerId))
    .orderBy(asc(contextFiles.path));
}

/**
 * The owner's files whose path begins with `prefix`, exactly: LIKE would ignore case and take `_`
 * for any character, and so reach files in another folder.
 */
export async function listContextFilesUnder(db: Db, ownerId: string, prefix: string): Promise<{ path: string; bytes: number }[]> {
  return db
    .select({ path: contextFiles.path, bytes: contextFiles.bytes })
    .from(contextFiles)
    .where(and(eq(contextFiles.ownerId, ownerId), sql`substr(${contextFiles.path}, 1, length(${prefix})) = ${prefix}`))
    .orderBy(asc(contextFiles.path));
}

export async function readContextFiles(db: Db, ownerId: string) {
  return db.select().from(contextFiles).where(eq(contextFiles.ownerId, ownerId)).orderBy(asc(contextFiles.path));
}

export async function getContextFile(db: Db, ownerId: string, path: string) {
  return db.query.contextFiles.findFirst({ where: and(eq(contextFiles.ownerId, ownerId), eq(contextFiles.path, path)) });
}

/** How many context files an owner may keep, and how many bytes in all. */
export interface ContextQuota {
  files: number;
  bytes: number;
}

export const contextQuotaOf = (config: Pick<Config, "userContextFilesMax" | "userContextBytesMax">): ContextQuota => ({
  files: config.userContextFilesMax,
  bytes: config.userContextBytesMax,
});

/**
 * Writes the file if the owner's files stay within `quota` with it, checked and written in one
 * statement: D1 runs each statement alone, so writes made at once cannot pass the quota together.
 * null: it would pass the quota, and nothing is written.
 */
export async function putContextFile(db: Db, ownerId: string, path: string, content: string, quota: ContextQuota) {
  const row = { ownerId, path, content, bytes: new TextEncoder().encode(content).length, updatedAt: Date.now() };
  const others = sql`FROM ${contextFiles} WHERE owner_id = ${ownerId} AND path <> ${path}`;
  const result = await db.run(sql`
    INSERT INTO ${contextFiles} (owner_id, path, content, bytes, updated_at)
    SELECT ${ownerId}, ${path}, ${content}, ${row.bytes}, ${row.updatedAt}
    WHERE (SELECT count(*) ${others}) < ${quota.files} AND (SELECT coalesce(sum(bytes), 0) ${others}) + ${row.bytes} <= ${quota.bytes}
    ON CONFLICT (owner_id, path) DO UPDATE SET content = excluded.content, bytes = excluded.bytes, updated_at = excluded.updated_at`);
  return result.meta.changes === 1 ? row : null;
}

/** What a refused write says: the bound it would pass. */
export const contextQuotaMessage = (quota: ContextQuota) =>
  `Your context files would pass ${quota.files} files or ${sizeOf(quota.bytes)} in all; delete some first`;

const sizeOf = (bytes: number) => (bytes >= 1024 * 1024 ? `${+(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${+(bytes / 1024).toFixed(1)} KiB`);

export async function deleteContextFile(db: Db, ownerId: string, path: string): Promise<boolean> {
  const gone = await db
    .delete(contextFiles)
    .where(and(eq(contextFiles.ownerId, ownerId), eq(contextFiles.path, path)))
    .returning({ path: contextFiles.path });
  return gone.length > 0;
}
