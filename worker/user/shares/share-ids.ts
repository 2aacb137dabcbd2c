// A share's id: the owner's object's id (64 hex digits, a hash that does not give the user id back)
// then 128 random bits (32 hex digits). The first part leads an anonymous reader's request to the
// object that holds the share; the second is what cannot be guessed.
import type { Env } from "../../env";
import { placed } from "../../lib/placement";

const SHARE_ID = /^([0-9a-f]{64})([0-9a-f]{32})$/;

export function newShareId(env: Env, userId: string): string {
  const random = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${placed(env, env.USER_ROOM).idFromName(userId).toString()}${random}`;
}

/** The id of the object that holds a share of this id, or null for an id that cannot be one. */
export function holderOf(env: Env, id: string): DurableObjectId | null {
  const m = id.match(SHARE_ID);
  if (!m) return null;
  try {
    return placed(env, env.USER_ROOM).idFromString(m[1]);
  } catch {
    return null;
  }
}

export const shareUrl = (origin: string, id: string) => `${origin}/s/${id}`;

/** Where a share's copies of its files are, in R2. */
export const sharedFileKey = (shareId: string, fileId: string) => `shares/${shareId}/${fileId}`;

export async function deleteSharedFiles(files: R2Bucket, shareId: string): Promise<void> {
  for (let cursor: string | undefined; ; ) {
    const listed = await files.list({ prefix: `shares/${shareId}/`, cursor });
    if (listed.objects.length) await files.delete(listed.objects.map((o) => o.key));
    if (!listed.truncated) break;
    cursor = listed.cursor;
  }
}
