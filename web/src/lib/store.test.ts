import { describe, expect, it, vi } from "vitest";
import { createStore } from "./store";

describe("createStore", () => {
  it("tells its listeners of a new value, not of the same one again, and not after they leave", () => {
    const store = createStore<string | null>(null);
    const listener = vi.fn(() => store.get());
    const leave = store.subscribe(listener);

    store.set("a");
    store.set("a");
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener).toHaveReturnedWith("a");

    leave();
    store.set(null);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.get()).toBeNull();
  });
});
