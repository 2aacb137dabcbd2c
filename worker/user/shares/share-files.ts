// A share's files are not copied: each is a pointer in R2 (an empty object under the share's prefix
// naming the thread's own copy), which takes no bytes. A thread's files are deleted only with the
// thread, which revokes its shares first, so a pointer never outlives what it names. A share made
// before pointers has real copies under the same keys, served as they are.
import { sharedFileKey } from "./share-ids";

export async function pointToFiles(bucket: R2Bucket, shareId: string, files: { id: string; r2Key: string; mediaType: string }[]): Promise<void> {
  for (const f of files) {
    await bucket.put(sharedFileKey(shareId, f.id), new Uint8Array(), { httpMetadata: { contentType: f.mediaType }, customMetadata: { source: f.r2Key } });
  }
}

/** The bytes of a share's file, with its media type; null when the share holds no such file. */
export async function openSharedFile(bucket: R2Bucket, shareId: string, fileId: string): Promise<{ body: ReadableStream; contentType: string } | null> {
  const entry = await bucket.get(sharedFileKey(shareId, fileId));
  if (!entry) return null;
  const contentType = entry.httpMetadata?.contentType ?? "application/octet-stream";
  const source = entry.customMetadata?.source;
  if (!source) return { body: entry.body, contentType };
  await entry.body.cancel();
  const object = await bucket.get(source);
  return object ? { body: object.body, contentType } : null;
}
