import { describe, expect, it } from "vitest";
import { memoryStore } from "../testing/fixtures";
import { forgetLegacyKeys, forgetUser, rememberedUser, rememberUser, userStorage } from "./userStorage";

describe("userStorage", () => {
  it("keeps each user's values under their own prefix", () => {
    const store = memoryStore();
    userStorage("alice", store).set("draft:thr_1", "hers");
    userStorage("bob", store).set("draft:thr_1", "his");
    expect(userStorage("alice", store).get("draft:thr_1")).toBe("hers");
    expect(store.keys().sort()).toEqual(["orchestrator:alice:draft:thr_1", "orchestrator:bob:draft:thr_1"]);
  });

  it("clears one user's keys and nobody else's", () => {
    const store = memoryStore();
    const alice = userStorage("alice", store);
    alice.set("token", "t");
    alice.set("outbox", "[]");
    userStorage("alice2", store).set("token", "u");
    rememberUser("alice", store);
    alice.clear();
    forgetUser(store);
    expect(store.keys()).toEqual(["orchestrator:alice2:token"]);
    expect(rememberedUser(store)).toBeNull();
  });

  it("keeps nothing set after it was cleared: a signed-out page's last effects write no key of its user", () => {
    const store = memoryStore();
    const alice = userStorage("alice", store);
    alice.set("seen", "{}");
    alice.clear();
    alice.set("seen", '{"threads":{}}');
    expect(store.keys()).toEqual([]);
    // A new session of the same user writes again.
    userStorage("alice", store).set("seen", "{}");
    expect(store.keys()).toEqual(["orchestrator:alice:seen"]);
  });

  it("cannot be steered into another user's keys by the user id", () => {
    const store = memoryStore();
    userStorage("a:draft", store).set("x", "1");
    expect(store.keys()).toEqual(["orchestrator:a%3Adraft:x"]);
  });

  it("removes keys of the versions before per-user storage", () => {
    const store = memoryStore();
    store.setItem("orchestrator.token", "old");
    store.setItem("orchestrator.draft.new", "old draft");
    store.setItem("orchestrator:bob:token", "kept");
    store.setItem("something-else", "kept");
    forgetLegacyKeys(store);
    expect(store.keys().sort()).toEqual(["orchestrator:bob:token", "something-else"]);
  });

  it("acts as empty when the browser refuses storage", () => {
    const refusing = { ...memoryStore(), getItem: () => { throw new Error("denied"); }, setItem: () => { throw new Error("denied"); } };
    const storage = userStorage("u", refusing);
    expect(() => storage.set("x", "1")).not.toThrow();
    expect(storage.get("x")).toBeNull();
  });
});
