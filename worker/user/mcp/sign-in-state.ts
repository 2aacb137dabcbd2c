// An OAuth sign-in's `state`: `<holder>.<serverId>.<random>`. The browser comes back to the callback
// with it and nothing else (no bearer token in token mode), so it is the callback's whole authority:
// `holder` (the user's object's id, 64 hex digits, a hash that does not give the user id back) leads
// to the object that started the sign-in, `serverId` to its row, and 256 random bits that only that
// row keeps, until its first use or SIGN_IN_TTL_MS, make it impossible to guess.
import type { Env } from "../../env";
import { placed } from "../../lib/placement";

/** How long a sign-in may take from the moment its address was made. */
export const SIGN_IN_TTL_MS = 30 * 60_000;

const STATE = /^([0-9a-f]{64})\.(mcp_[0-9a-z]{1,40})\.([A-Za-z0-9_-]{43})$/;

export function newSignInState(holder: string, serverId: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const random = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return `${holder}.${serverId}.${random}`;
}

/** The object and the server a state names, or null for a string that cannot be a state. */
export function parseSignInState(state: string): { holder: string; serverId: string } | null {
  const m = STATE.exec(state);
  return m ? { holder: m[1], serverId: m[2] } : null;
}

/** The object that holds the sign-in of this state, or null for a string that cannot be a state. */
export function signInHolder(env: Env, state: string): DurableObjectId | null {
  const named = parseSignInState(state);
  if (!named) return null;
  try {
    return placed(env, env.USER_ROOM).idFromString(named.holder);
  } catch {
    return null; // not an id of this namespace
  }
}

/** Compared in constant time: how much of a kept state a guess matched must not show in the answer's timing. */
export function sameState(kept: string, given: string): boolean {
  const [a, b] = [new TextEncoder().encode(kept), new TextEncoder().encode(given)];
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
