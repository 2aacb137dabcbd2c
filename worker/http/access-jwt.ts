// Cloudflare Access JWTs, verified with hono/jwt's JWKS verification (three segments, RS256 only,
// signature, exp and nbf, issuer, audience) against the team's published keys. What it does not do
// is done here: the keys are kept between requests, fetched with a timeout, and fetched again when a
// token names a key id we do not have (a rotation), at most once a minute. When the endpoint fails,
// the last keys it gave serve a while longer, so its bad minutes do not sign everyone out. The last
// good keys are also kept at the edge (the Cache API), so an isolate that starts during an outage
// verifies with them instead of signing its users out; and one fetch at a time is made, so requests
// that arrive together wait on one, and after a failure none waits on the endpoint for a while.
import { verifyWithJwks } from "hono/jwt";
import type { HonoJsonWebKey } from "hono/utils/jwt/jws";
import type { Env } from "../env";

export const KEY_TTL_MS = 10 * 60_000;
/** How long after their last good fetch the keys still serve while fetching them again fails. */
export const STALE_KEYS_MS = 60 * 60_000;
const REFETCH_AFTER_MS = 60_000;
/** With no keys to fall back on, how long after a failed fetch requests are refused without one. */
const NO_KEYS_RETRY_MS = 5_000;
const FETCH_TIMEOUT_MS = 3_000;

interface HeldKeys {
  url: string;
  keys: HonoJsonWebKey[];
  fetchedAt: number;
}

let keyCache: HeldKeys | null = null;
/** When an unknown key id last made us fetch: a flood of made-up kids fetches once a minute at most. */
let lastRefetch = 0;
/** When a fetch last failed: held keys answer for a minute without the endpoint (no keys: a few seconds). */
let lastFailure = 0;
let inFlight: Promise<HonoJsonWebKey[]> | null = null;

const edgeKey = (url: string) => new Request(`https://access-keys.invalid/${encodeURIComponent(url)}`);

/** The last good keys as this data center keeps them (another isolate's, or ours before a restart). */
async function fromEdge(url: string): Promise<HeldKeys | null> {
  try {
    const held = (await (await caches.default.match(edgeKey(url)))?.json()) as HeldKeys | undefined;
    return held?.url === url && Array.isArray(held.keys) && typeof held.fetchedAt === "number" ? held : null;
  } catch {
    return null;
  }
}

function toEdge(held: HeldKeys): Promise<void> {
  const body = JSON.stringify(held);
  const headers = { "content-type": "application/json", "cache-control": `max-age=${STALE_KEYS_MS / 1000}` };
  return caches.default.put(edgeKey(held.url), new Response(body, { headers })).catch(() => {});
}

async function fetchKeys(url: string, now: number): Promise<HonoJsonWebKey[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`access certs: ${res.status}`);
  const { keys } = (await res.json()) as { keys: HonoJsonWebKey[] };
  if (!Array.isArray(keys)) throw new Error("access certs: no keys");
  keyCache = { url, keys, fetchedAt: now };
  await toEdge(keyCache);
  return keys;
}

async function teamKeys(url: string, unknownKid: boolean): Promise<HonoJsonWebKey[]> {
  const now = Date.now();
  if (keyCache?.url !== url) keyCache = await fromEdge(url);
  const held = keyCache;
  const usable = held !== null && now - held.fetchedAt < STALE_KEYS_MS;
  if (held && (unknownKid ? now - lastRefetch < REFETCH_AFTER_MS : now - held.fetchedAt < KEY_TTL_MS)) return held.keys;
  if (usable && now - lastFailure < REFETCH_AFTER_MS) return held.keys;
  if (!usable && now - lastFailure < NO_KEYS_RETRY_MS) throw new Error("access certs: unreachable a moment ago");
  if (unknownKid) lastRefetch = now;
  inFlight ??= fetchKeys(url, now).finally(() => (inFlight = null));
  try {
    return await inFlight;
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

/** Tests: a new isolate, which holds no keys of its own (the edge's copy stays). */
export function forgetIsolateKeys(): void {
  keyCache = null;
  lastRefetch = 0;
  lastFailure = 0;
  inFlight = null;
}

/** Tests: forget the keys held between requests, the edge's copy too. */
export async function forgetAccessKeys(teamDomain: string): Promise<void> {
  forgetIsolateKeys();
  await caches.default.delete(edgeKey(`${teamDomain}/cdn-cgi/access/certs`));
}
