// A share as its readers get it: a copy in R2 (shares/<id>/share.json), written when the share is made,
// so a view never reaches its owner's object; a viral link is R2's load, not one object's. The copy's
// etag is its version: a data center that holds the body (the Cache API) asks R2 only whether it is
// still there, so revoking (which replaces it with a mark, and removes the files) is seen at once
// everywhere. A share made before the copies has none: its first view asks the owner's object and
// writes the copy.
import type { SharedThread } from "../../../protocol";

type Stored = SharedThread | { revoked: true };

/** What R2 says of a share: its copy, a revocation, or nothing (never made, or made before the copies). */
export type ShareCopy = SharedThread | "revoked" | null;

const keyOf = (id: string) => `shares/${id}/share.json`;
/** The Cache API's key for a share's body in this data center (not a URL anyone requests). */
const cacheKey = (id: string) => `https://share-copies.internal/${id}`;

/** The readers' copy of a share as R2 keeps it (its length is what the share takes of the quota). */
export const copyOf = (shared: SharedThread) => JSON.stringify(shared satisfies Stored);

export async function publishShare(bucket: R2Bucket, shared: SharedThread, body = copyOf(shared)): Promise<void> {
  await bucket.put(keyOf(shared.share.id), body, { httpMetadata: { contentType: "application/json" } });
}

/** After the share's files are gone: the mark that answers its link 404 from now on. */
export async function markRevoked(bucket: R2Bucket, id: string): Promise<void> {
  await bucket.put(keyOf(id), JSON.stringify({ revoked: true } satisfies Stored));
}

/** `cache`: null where a share's text must stay in the deployment's jurisdiction (no data center keeps it). */
export async function readShareCopy(bucket: R2Bucket, cache: Cache | null, id: string): Promise<ShareCopy> {
  const held = await cache?.match(cacheKey(id));
  const etag = held?.headers.get("etag");
  const object = etag ? await bucket.get(keyOf(id), { onlyIf: { etagDoesNotMatch: etag } }) : await bucket.get(keyOf(id));
  if (!object) return null;
  if (!("body" in object)) return (await held!.json()) as SharedThread;
  const stored = (await (object as R2ObjectBody).json()) as Stored;
  if ("revoked" in stored) {
    if (held) await cache?.delete(cacheKey(id));
    return "revoked";
  }
  await cache?.put(cacheKey(id), new Response(JSON.stringify(stored), { headers: { etag: object.etag, "cache-control": "max-age=86400" } }));
  return stored;
}
