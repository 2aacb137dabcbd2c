import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { callApp } from "./util";

// A Cloudflare Access team of our own: a key pair, its published certs, and signed JWTs.
const TEAM = "https://test-team.cloudflareaccess.com";
const AUD = "aud-tag-123";
const accessEnv = { ...env, AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: TEAM, ACCESS_AUD: AUD };

const keys = (await crypto.subtle.generateKey(
  { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
  true,
  ["sign", "verify"],
)) as CryptoKeyPair;
const publicJwk = { ...((await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey), kid: "kid-1" };

const b64url = (bytes: Uint8Array | string) =>
  btoa(typeof bytes === "string" ? bytes : String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function jwt(claims: Record<string, unknown>, kid = "kid-1", key = keys.privateKey): Promise<string> {
  const head = b64url(JSON.stringify({ alg: "RS256", kid, typ: "JWT" }));
  const body = b64url(JSON.stringify(claims));
  const sig = new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(`${head}.${body}`)));
  return `${head}.${body}.${b64url(sig)}`;
}

const now = () => Math.floor(Date.now() / 1000);
const valid = (extra: Record<string, unknown> = {}) => ({ iss: TEAM, aud: [AUD], email: "ada@example.com", exp: now() + 600, iat: now(), ...extra });

function serveCerts() {
  const real = globalThis.fetch;
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url === `${TEAM}/cdn-cgi/access/certs`) return Response.json({ keys: [publicJwk] });
    return real(input as RequestInfo, init);
  });
}

afterEach(() => vi.restoreAllMocks());

describe("AUTH_MODE=access", () => {
  it("accepts a valid Access JWT from the header or the cookie, as the token's email", async () => {
    serveCerts();
    const token = await jwt(valid());
    const created = await callApp(accessEnv, "/api/threads", { body: { name: "access" }, headers: { "cf-access-jwt-assertion": token } });
    expect(created.status).toBe(201);
    const { thread } = await created.json<any>();
    const viaCookie = await callApp(accessEnv, `/api/threads/${thread.id}`, { headers: { cookie: `CF_Authorization=${token}` } });
    expect(viaCookie.status).toBe(200);
    const row = await env.DB.prepare("SELECT owner_id FROM threads WHERE id = ?").bind(thread.id).first<{ owner_id: string }>();
    expect(row?.owner_id).toBe("ada@example.com");
  });

  it("refuses a wrong audience, an expired token, an unknown key and a forged signature", async () => {
    serveCerts();
    const other = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const bad = [
      await jwt(valid({ aud: ["someone-else"] })),
      await jwt(valid({ exp: now() - 10 })),
      await jwt(valid(), "kid-unknown"),
      await jwt(valid(), "kid-1", other.privateKey),
    ];
    for (const token of bad) {
      const res = await callApp(accessEnv, "/api/threads", { headers: { "cf-access-jwt-assertion": token } });
      expect(res.status).toBe(401);
      expect((await res.json<any>()).error.code).toBe("unauthorized");
    }
  });
});
