// Share links (PROTOCOL.md, "Share links"): a thread's branch copied as it is now (its readers' copy in
// R2, its files pointed to), listed by its owner's object within SHARES_PER_THREAD, SHARES_PER_USER and
// the storage quota; read by anyone with the link through the share's own routes, which no one signs
// in to, limited per address; revoked at once. A share that cannot be made leaves nothing behind.
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { z } from "zod";
import type { SharedThread } from "../../protocol";
import { configOf, type Env } from "../env";
import { copyOf, deleteSharedFiles, holderOf, isShareId, newShareId, openSharedFile, pointToFiles, publishShare, readShareCopy, shareUrl, type ShareBounds, type ShareRefusal } from "../user/shares";
import { userStubById, type UserApi } from "../user/stub";
import { askUser, callerOf, fromRoom, roomStub, type AppEnv } from "./app-env";
import { ApiError, notFound } from "./errors";
import { consoleLogger } from "../lib/logger";
import { rateLimit } from "./rate-limit";
import { reply } from "./reply";
import { jsonBody } from "./validate";

/** What every shared answer carries besides the app's headers: kept out of search engines. */
const SHARED_HEADERS = { "x-robots-tag": "noindex", "referrer-policy": "no-referrer" };

const noShare = () => notFound("No such share (it may have been revoked)");

const logger = consoleLogger("http");

/** Routes under /api/threads/:id. */
export const threadShareRoutes = new Hono<AppEnv>().post("/:id/shares", jsonBody("POST /api/threads/:id/shares", z.strictObject({ codeFiles: z.boolean().optional() })), async (c) => {
  const who = callerOf(c);
  const id = newShareId();
  const { codeFiles } = c.req.valid("json");
  const { name, messages, artifacts, files } = fromRoom(await roomStub(c.env, who.threadId).snapshot(who, id, codeFiles === true));
  const createdAt = Date.now();
  const shared: SharedThread = { share: { id, createdAt }, thread: { name }, messages, artifacts };
  const body = copyOf(shared);
  // Listed first, within the bounds (only a listed share can be revoked), then its readers' copy and its files' pointers.
  const config = configOf(c.env);
  const bounds = { perThread: config.sharesPerThread, perUser: config.sharesPerUser, quotaBytes: config.userStorageQuotaBytes };
  const refused = await askUser(c, (user) => user.reserveShare({ id, threadId: who.threadId, createdAt }, new TextEncoder().encode(body).byteLength, bounds));
  if (refused) throw new ApiError("too_large", refusalText(refused, bounds));
  try {
    await pointToFiles(c.env.FILES, id, files);
    await publishShare(c.env.FILES, shared, body);
  } catch (err) {
    // Not made: no copy, pointer or row of it is left (its link was never given out).
    await deleteSharedFiles(c.env.FILES, id);
    await askUser(c, (user) => user.unreserveShare(id));
    throw err;
  }
  return reply(c, "POST /api/threads/:id/shares", { share: { id, threadId: who.threadId, url: shareUrl(new URL(c.req.url).origin, id), createdAt } }, 201);
});

function refusalText(refused: ShareRefusal, bounds: ShareBounds): string {
  if (refused === "thread") return `This thread has ${bounds.perThread} share links, the most it may have; revoke one first`;
  if (refused === "user") return `You have ${bounds.perUser} share links, the most you may have; revoke some first`;
  return `This share would take your files past your ${Math.round(bounds.quotaBytes / (1024 * 1024))} MiB of storage; delete some threads or shares first`;
}

/** Routes under /api/shares: the owner's. */
export const shareRoutes = new Hono<AppEnv>()
  .get("/", async (c) => reply(c, "GET /api/shares", { shares: await askUser(c, (user) => user.shares(new URL(c.req.url).origin)) }))
  .delete("/:shareId", async (c) => {
    const id = c.req.param("shareId");
    if (!(await askUser(c, (user) => user.deleteShare(id)))) throw noShare();
    return c.body(null, 204);
  });

/** The headers of every shared answer, the page's and the data's. */
export const sharedPage: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(SHARED_HEADERS)) c.res.headers.set(name, value);
};

/** Routes under /api/shared: anyone's with the link, without signing in. */
export const sharedRoutes = new Hono<AppEnv>()
  .use(rateLimit("SHARE_LIMITER", "requests for shared threads"))
  .use(sharedPage)
  .get("/:shareId", async (c) => {
    const shared = await readShare(c.env, c.req.param("shareId"));
    return reply(c, "GET /api/shared/:shareId", shared);
  })
  .get("/:shareId/files/:fileId", async (c) => {
    const { shareId, fileId } = c.req.param();
    await readShare(c.env, shareId);
    // Only a share's own files are under its prefix (put there when it was made, gone when revoked).
    const file = await openSharedFile(c.env.FILES, shareId, fileId);
    if (!file) throw noShare();
    return new Response(file.body, {
      headers: {
        "content-type": file.contentType,
        "cache-control": "private, max-age=300",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
      },
    });
  });

/** The web app's read-only page of a share: 200 while the share is there, 404 (the same page, which says so) once it is not. */
export async function sharedPageAnswer(c: Context<AppEnv>): Promise<Response> {
  const there = await readShare(c.env, c.req.param("shareId") ?? "").then(
    () => true,
    () => false,
  );
  if (!c.env.ASSETS) throw noShare();
  if (there) {
    const page = await c.env.ASSETS.fetch(c.req.raw);
    return new Response(page.body, page); // its headers become ours to add to
  }
  // The page whole (a reload's conditional request would get a bodiless 304), answered 404, not kept.
  const page = await c.env.ASSETS.fetch(new Request(c.req.url));
  const headers = new Headers(page.headers);
  headers.set("cache-control", "no-store");
  headers.delete("etag");
  return new Response(page.body, { status: 404, headers });
}

/** The object that holds a share made before the copies, or null for any other id. */
function shareHolder(env: Env, id: string): UserApi | null {
  const holder = holderOf(env, id);
  return holder ? userStubById(env, holder) : null;
}

/** A share from its readers' copy; one made before the copies, from its owner's object once (which writes the copy). */
async function readShare(env: Env, id: string): Promise<SharedThread> {
  if (!isShareId(id)) throw noShare();
  // Inside a jurisdiction no data center outside it may keep the share's text: R2 (in it) answers each view.
  const copy = await readShareCopy(env.FILES, env.DATA_JURISDICTION ? null : caches.default, id);
  if (copy === "revoked") throw noShare();
  if (copy) return copy;
  const holder = shareHolder(env, id);
  if (!holder) throw noShare();
  // The views that reach a share's owner (npm run bench counts these lines): one per share made before the copies.
  logger.info("share asked of its owner's object", { shareId: id });
  const shared = await holder.sharedThread(id).catch(() => {
    throw new ApiError("unavailable", "This share could not be read; try again in a moment", {}, { "Retry-After": "5" });
  });
  if (!shared) throw noShare();
  await publishShare(env.FILES, shared);
  return shared;
}
