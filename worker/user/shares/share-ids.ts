// A share's id: 160 random bits (40 hex digits) and nothing else, so a share shows nothing of its owner
// (its readers' copy in R2 answers every view, share-copy.ts). A share made before the copies has the
// older form: its owner's object's id (64 hex digits) then 128 random bits (32 hex digits), the first
// part leading its first view to the object that holds it.
import type { Env } from "../../env";
import { placed } from "../../lib/placement";

const LEGACY_SHARE_ID = /^([0-9a-f]{64})([0-9a-f]{32})$/;
const SHARE_ID = /^[0-9a-f]{40}$/;

export function newShareId(): string {
  return [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether `id` can be a share's id, of either form. */
export const isShareId = (id: string) => SHARE_ID.test(id) || LEGACY_SHARE_ID.test(id);

/** The id of the object that holds a share made before the copies, or null for any other id. */
export function holderOf(env: Env, id: string): DurableObjectId | null {
  const m = id.match(LEGACY_SHARE_ID);
  if (!m) return null;
  try {
    return placed(env, env.USER_ROOM).idFromString(m[1]);
  } catch {
    return null;
  }
}

export const shareUrl = (origin: string, id: string) => `${origin}/s/${id}`;

/** Where a share's files are, in R2: a copy of one (a share made before pointers), or a pointer to it. */
export const sharedFileKey = (shareId: string, fileId: string) => `shares/${shareId}/${fileId}`;

export async function deleteSharedFiles(files: R2Bucket, shareId: string): Promise<void> {
  for (let cursor: string | undefined; ; ) {
    const listed = await files.list({ prefix: `shares/${shareId}/`, cursor });
    if (listed.objects.length) await files.delete(listed.objects.map((o) => o.key));
    if (!listed.truncated) break;
    cursor = listed.cursor;
  }
}
