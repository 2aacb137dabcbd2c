// Cloudflare Access JWTs, verified with hono/jwt's JWKS verification (three segments, RS256 only,
// signature, exp and nbf, issuer, audience) against the team's published keys. What it does not do
// is done here: the keys are kept between requests, fetched with a timeout, and fetched again when a
// token names a key id we do not have (a rotation), at most once a minute. When the endpoint fails,
// the last keys it gave serve a while longer, so its bad minutes do not sign everyone out.
import { verifyWithJwks } from "hono/jwt";
import type { HonoJsonWebKey } from "hono/utils/jwt/jws";
import type { Env } from "../env";

export const KEY_TTL_MS = 10 * 60_000;
/** How long after their last good fetch the keys still serve while fetching them again fails. */
export const STALE_KEYS_MS = 60 * 60_000;
const REFETCH_AFTER_MS = 60_000;
const FETCH_TIMEOUT_MS = 3_000;

let keyCache: { url: string; keys: HonoJsonWebKey[]; fetchedAt: number } | null = null;
/** When an unknown key id last made us fetch: a flood of made-up kids fetches once a minute at most. */
let lastRefetch = 0;
/** When a fetch last failed: the stale keys answer for a minute, without each request waiting on the endpoint. */
let lastFailure = 0;

async function fetchKeys(url: string): Promise<HonoJsonWebKey[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`access certs: ${res.status}`);
  const { keys } = (await res.json()) as { keys: HonoJsonWebKey[] };
  if (!Array.isArray(keys)) throw new Error("access certs: no keys");
  return keys;
}

async function teamKeys(url: string, unknownKid: boolean): Promise<HonoJsonWebKey[]> {
  const now = Date.now();
  const held = keyCache?.url === url ? keyCache : null;
  const usable = held !== null && now - held.fetchedAt < STALE_KEYS_MS;
  if (held && (unknownKid ? now - lastRefetch < REFETCH_AFTER_MS : now - held.fetchedAt < KEY_TTL_MS)) return held.keys;
  if (usable && now - lastFailure < REFETCH_AFTER_MS) return held.keys;
  if (unknownKid) lastRefetch = now;
  try {
    const keys = await fetchKeys(url);
    keyCache = { url, keys, fetchedAt: now };
    return keys;
  } catch (err) {
    lastFailure = now;
    if (usable) return held.keys;
    throw err;
  }
}

const kidOf = (token: string): string | undefined => {
  try {
    return JSON.parse(atob(token.split(".")[0].replace(/-/g, "+").replace(/_/g, "/"))).kid;
  } catch {
    return undefined;
  }
};

/** The verified token's user (its email, else its subject) and when it expires, or a throw. */
export async function verifyAccessJwt(token: string, env: Env): Promise<{ userId: string; expiresAt: number }> {
  if (!env.ACCESS_TEAM_DOMAIN || !env.ACCESS_AUD) throw new Error("access mode is not configured");
  const team = env.ACCESS_TEAM_DOMAIN.replace(/\/$/, "");
  const url = `${team}/cdn-cgi/access/certs`;
  let keys = await teamKeys(url, false);
  const kid = kidOf(token);
  if (kid && !keys.some((k) => k.kid === kid)) keys = await teamKeys(url, true);
  const claims = await verifyWithJwks(token, {
    keys,
    allowedAlgorithms: ["RS256"],
    verification: { iss: team, aud: env.ACCESS_AUD },
  });
  const user = (claims.email as string | undefined) ?? (claims.sub as string | undefined);
  if (!user || typeof claims.exp !== "number") throw new Error("no subject or expiry");
  return { userId: user, expiresAt: claims.exp * 1000 };
}

/** Tests: forget the keys held between requests. */
export function forgetAccessKeys(): void {
  keyCache = null;
  lastRefetch = 0;
  lastFailure = 0;
}
