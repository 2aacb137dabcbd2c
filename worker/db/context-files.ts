import { and, asc, eq, sql } from "drizzle-orm";
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

export async function putContextFile(db: Db, ownerId: string, path: string, content: string) {
  const row = { ownerId, path, content, bytes: new TextEncoder().encode(content).length, updatedAt: Date.now() };
  await db
    .insert(contextFiles)
    .values(row)
    .onConflictDoUpdate({ target: [contextFiles.ownerId, contextFiles.path], set: { content, bytes: row.bytes, updatedAt: row.updatedAt } });
  return row;
}

export async function deleteContextFile(db: Db, ownerId: string, path: string): Promise<boolean> {
  const gone = await db
    .delete(contextFiles)
    .where(and(eq(contextFiles.ownerId, ownerId), eq(contextFiles.path, path)))
    .returning({ path: contextFiles.path });
  return gone.length > 0;
}
