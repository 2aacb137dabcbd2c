// A program's credential on /v1/* and /mcp: an API key (PROTOCOL.md, "API keys"), as a bearer token or
// in x-api-key; in AUTH_MODE none, no key is the local user. The key's secret names the object that
// holds it (user/api-access/keys.ts), so one call to that object checks it and, in the same call, finds
// the thread a conversation continues: nothing shared across users, and no D1, on a request's way.
import type { Context } from "hono";
import { configOf, type Env } from "../env";
import { placed } from "../lib/placement";
import { hashSecret, holderOfSecret } from "../user/api-access";
import { userStub, userStubById, type UserApi } from "../user/stub";
import { reached, type AppEnv } from "./app-env";
import { localUser } from "./auth";
import { ApiError } from "./errors";

export type ApiSession = NonNullable<Awaited<ReturnType<UserApi["apiRequest"]>>>;

/** The key a request carries, if any: `Authorization: Bearer <secret>` or `x-api-key: <secret>`. */
export function secretOf(req: Request): string | null {
  const bearer = req.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  return bearer ?? req.headers.get("x-api-key")?.trim() ?? null;
}

/** The object a secret names, or null for a string that is no key of ours (or names no object here). */
function holderOf(env: Env, secret: string): UserApi | null {
  const hex = holderOfSecret(secret);
  if (!hex) return null;
  try {
    return userStubById(env, placed(env, env.USER_ROOM).idFromString(hex));
  } catch {
    return null;
  }
}

/**
 * The caller of a program's request, with what its user's object knows of it (the thread its
 * conversation continues, whether the project it names is theirs). 401 for a missing, unknown or
 * revoked key; in AUTH_MODE none a request without a key is the local user's.
 */
export async function apiSession(c: Context<AppEnv>, ask: { fingerprint?: string | null; projectId?: string | null } = {}): Promise<ApiSession> {
  const secret = secretOf(c.req.raw);
  const fingerprint = ask.fingerprint ?? null;
  const projectId = ask.projectId ?? null;
  let session: ApiSession | null = null;
  if (secret) {
    const holder = holderOf(c.env, secret);
    const hash = await hashSecret(secret);
    session = holder ? await reached(c, () => holder.apiRequest(hash, fingerprint, projectId)) : null;
  } else if (configOf(c.env).authMode === "none") {
    const userId = localUser(c);
    session = await reached(c, () => userStub(c.env, userId).apiRequest(null, fingerprint, projectId));
  }
  if (!session?.userId) throw new ApiError("unauthorized", "A valid API key is required: Authorization: Bearer <key>, or x-api-key (Settings, API keys)");
  c.set("userId", session.userId);
  return session;
}

/** The user a key belongs to, or null (the MCP server's OAuth provider asks this of a token it did not issue). */
export async function userForApiKey(env: Env, secret: string): Promise<string | null> {
  const holder = holderOf(env, secret);
  if (!holder) return null;
  return (await holder.apiRequest(await hashSecret(secret), null, null))?.userId || null;
}
