import type { Env } from "../env";

// Cloudflare Access signs its JWTs with RS256 keys published at <team>/cdn-cgi/access/certs.
type Jwk = JsonWebKey & { kid?: string };
let keyCache: { url: string; keys: Jwk[]; fetchedAt: number } | null = null;
const KEY_TTL_MS = 10 * 60_000;

function base64UrlDecode(part: string): Uint8Array {
  const b64 = part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "=");
  return Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
}

async function teamKeys(teamDomain: string): Promise<Jwk[]> {
  const url = `${teamDomain.replace(/\/$/, "")}/cdn-cgi/access/certs`;
  if (keyCache && keyCache.url === url && Date.now() - keyCache.fetchedAt < KEY_TTL_MS) return keyCache.keys;
  const res = await fetch(url);
  if (!res.ok) throw new Error(`access certs: ${res.status}`);
  const body = (await res.json()) as { keys: Jwk[] };
  keyCache = { url, keys: body.keys, fetchedAt: Date.now() };
  return body.keys;
}

/** The verified token's user (its email, else its subject), or a throw. */
export async function verifyAccessJwt(token: string, env: Env): Promise<string> {
  if (!env.ACCESS_TEAM_DOMAIN || !env.ACCESS_AUD) throw new Error("access mode is not configured");
  const [h, p, s] = token.split(".");
  if (!h || !p || !s) throw new Error("malformed jwt");
  const header = JSON.parse(new TextDecoder().decode(base64UrlDecode(h))) as { alg: string; kid?: string };
  if (header.alg !== "RS256") throw new Error("unexpected alg");
  const jwk = (await teamKeys(env.ACCESS_TEAM_DOMAIN)).find((k) => k.kid === header.kid);
  if (!jwk) throw new Error("unknown key");
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
    "verify",
  ]);
  const ok = await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, base64UrlDecode(s), new TextEncoder().encode(`${h}.${p}`));
  if (!ok) throw new Error("bad signature");
  const claims = JSON.parse(new TextDecoder().decode(base64UrlDecode(p))) as {
    aud?: string | string[];
    exp?: number;
    nbf?: number;
    email?: string;
    sub?: string;
  };
  const now = Date.now() / 1000;
  const auds = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!auds.includes(env.ACCESS_AUD)) throw new Error("wrong audience");
  if (!claims.exp || claims.exp < now || (claims.nbf && claims.nbf > now + 60)) throw new Error("expired");
  const user = claims.email ?? claims.sub;
  if (!user) throw new Error("no subject");
  return user;
}
