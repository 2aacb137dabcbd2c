// The API keys' page's logic (PROTOCOL.md "API keys and compatible endpoints"): a key's name checked
// as the server checks it, a key as its list shows it, and the one-time secret's state.

import { MAX_API_KEY_NAME, MAX_API_KEYS, type ApiKey } from "@protocol";
import { ApiError } from "../api";
import { formatRelative } from "./format";

/** What is wrong with a key's name, as POST /api/keys would say it (trimmed, 1 to 64 characters), or null. */
export function keyNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return "Give the key a name, such as the program that will use it.";
  if (trimmed.length > MAX_API_KEY_NAME) return `A key's name has at most ${MAX_API_KEY_NAME} characters (this one has ${trimmed.length}).`;
  return null;
}

/** The secret's first characters, marked as the start of something longer: `eo_AbC1234…`. */
export const shownPrefix = (key: Pick<ApiKey, "prefix">): string => `${key.prefix}…`;

/** "never", or how long ago (the server keeps it to the minute, so "just now" is as precise as it gets). */
export const lastUsedText = (key: Pick<ApiKey, "lastUsedAt">, now: number): string =>
  key.lastUsedAt === null ? "never" : formatRelative(key.lastUsedAt, now);

/** A 429 from POST /api/keys: the user holds as many keys as they may. */
export const isKeyLimit = (error: unknown): boolean => error instanceof ApiError && error.status === 429;

export const KEY_LIMIT_TEXT = `You have ${MAX_API_KEYS} keys, the most you may hold. Revoke one you no longer use to make another.`;

/**
 * Making a key. Once made, its secret is held here and nowhere else (not in the query cache, not in
 * storage) until the user dismisses it, or revokes that key; then it is gone for good.
 */
export type NewKeyState =
  | { phase: "idle" }
  | { phase: "creating" }
  | { phase: "failed"; error: unknown }
  | { phase: "created"; key: ApiKey; secret: string };

export type NewKeyAction =
  | { type: "submit" }
  | { type: "created"; key: ApiKey; secret: string }
  | { type: "failed"; error: unknown }
  | { type: "dismiss" }
  | { type: "revoked"; keyId: string };

export const NO_NEW_KEY: NewKeyState = { phase: "idle" };

export function newKeyReducer(state: NewKeyState, action: NewKeyAction): NewKeyState {
  switch (action.type) {
    case "submit":
      // While a secret is shown the form is not: a second key never replaces a secret not yet copied.
      return state.phase === "created" || state.phase === "creating" ? state : { phase: "creating" };
    case "created":
      // Whatever came before: a key whose secret was never shown could only be revoked.
      return { phase: "created", key: action.key, secret: action.secret };
    case "failed":
      return state.phase === "creating" ? { phase: "failed", error: action.error } : state;
    case "dismiss":
      return state.phase === "created" || state.phase === "failed" ? NO_NEW_KEY : state;
    case "revoked":
      return state.phase === "created" && state.key.id === action.keyId ? NO_NEW_KEY : state;
  }
}
