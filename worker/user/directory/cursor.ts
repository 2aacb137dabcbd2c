// A page's end in the thread list: the last row's (lastActivity, id), opaque to clients.
import type { ThreadRow } from "../../db/schema";

export interface Cursor {
  lastActivity: number;
  id: string;
}

export function encodeCursor(row: Pick<ThreadRow, "lastActivity" | "id">): string {
  return btoa(`${row.lastActivity}:${row.id}`).replace(/=+$/, "");
}

/** The cursor a client sent back, or null for one this never gave. */
export function decodeCursor(cursor: string): Cursor | null {
  try {
    const [t, id] = atob(cursor).split(":");
    const lastActivity = Number(t);
    return Number.isFinite(lastActivity) && id ? { lastActivity, id } : null;
  } catch {
    return null;
  }
}
