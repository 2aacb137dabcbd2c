import type { ApiKey } from "@protocol";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api";
import { isKeyLimit, keyNameProblem, lastUsedText, newKeyReducer, NO_NEW_KEY, shownPrefix, type NewKeyState } from "./apiKeys";

const key = (over: Partial<ApiKey> = {}): ApiKey => ({ id: "key_1", name: "my script", prefix: "eo_AbC1234", createdAt: 1_000, lastUsedAt: null, ...over });

describe("a key's name", () => {
  it("is trimmed, then 1 to 64 characters, as the server has it", () => {
    expect(keyNameProblem("my script")).toBeNull();
    expect(keyNameProblem("  x  ")).toBeNull();
    expect(keyNameProblem("a".repeat(64))).toBeNull();
    expect(keyNameProblem(` ${"a".repeat(64)} `)).toBeNull();
    expect(keyNameProblem("")).toMatch(/name/);
    expect(keyNameProblem("   \t")).toMatch(/name/);
    expect(keyNameProblem("a".repeat(65))).toBe("A key's name has at most 64 characters (this one has 65).");
  });
});

describe("a key as the list shows it", () => {
  it("shows the secret's first characters as the start of something longer", () => {
    expect(shownPrefix(key())).toBe("eo_AbC1234…");
  });

  it("says never for a key not used yet, and how long ago otherwise", () => {
    const now = 10 * 86_400_000;
    expect(lastUsedText(key(), now)).toBe("never");
    expect(lastUsedText(key({ lastUsedAt: now - 20_000 }), now)).toBe("just now");
    expect(lastUsedText(key({ lastUsedAt: now - 5 * 60_000 }), now)).toBe("5 minutes ago");
    expect(lastUsedText(key({ lastUsedAt: now - 3 * 3_600_000 }), now)).toBe("3 hours ago");
  });

  it("tells the key limit (429) from the server's other refusals", () => {
    expect(isKeyLimit(new ApiError(429, "rate_limited", "You have 20 keys"))).toBe(true);
    expect(isKeyLimit(new ApiError(400, "invalid_request", "bad name"))).toBe(false);
    expect(isKeyLimit(new Error("429"))).toBe(false);
  });
});

describe("the one-time secret", () => {
  const made: NewKeyState = { phase: "created", key: key(), secret: "eo_AbC1234secret" };
  const run = (...actions: Parameters<typeof newKeyReducer>[1][]) => actions.reduce(newKeyReducer, NO_NEW_KEY);

  it("is held from the answer until dismissed, then gone", () => {
    const shown = run({ type: "submit" }, { type: "created", key: key(), secret: "eo_AbC1234secret" });
    expect(shown).toEqual(made);
    const after = newKeyReducer(shown, { type: "dismiss" });
    expect(after).toEqual({ phase: "idle" });
    expect(JSON.stringify(after)).not.toContain("secret");
  });

  it("goes when its own key is revoked, and stays when another is", () => {
    expect(newKeyReducer(made, { type: "revoked", keyId: "key_2" })).toBe(made);
    expect(newKeyReducer(made, { type: "revoked", keyId: "key_1" })).toEqual({ phase: "idle" });
  });

  it("is never replaced by another key's making before it is dismissed", () => {
    expect(newKeyReducer(made, { type: "submit" })).toBe(made);
    expect(newKeyReducer(made, { type: "failed", error: new Error("late") })).toBe(made);
  });

  it("keeps a failure until the next try or its dismissal", () => {
    const error = new ApiError(429, "rate_limited", "limit");
    const failed = run({ type: "submit" }, { type: "failed", error });
    expect(failed).toEqual({ phase: "failed", error });
    expect(newKeyReducer(failed, { type: "submit" })).toEqual({ phase: "creating" });
    expect(newKeyReducer(failed, { type: "dismiss" })).toEqual({ phase: "idle" });
  });

  it("ignores a second submit while the first is on its way", () => {
    const creating = run({ type: "submit" });
    expect(newKeyReducer(creating, { type: "submit" })).toBe(creating);
    expect(newKeyReducer(creating, { type: "dismiss" })).toBe(creating);
  });
});
