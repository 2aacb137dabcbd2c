import { and, asc, eq } from "drizzle-orm";
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
