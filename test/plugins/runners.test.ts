// The hook runners on their own (worker/plugins/runners.ts): order, error isolation, synchronous
// delivery for synchronous hooks, sequential awaiting, chaining, first-true, validation, timeouts.
import { describe, expect, it, vi } from "vitest";
import {
  bounded,
  HookTimeoutError,
  runChain,
  runFirstTrue,
  runNotify,
  runValidate,
  type HookEntry,
} from "../../worker/plugins/runners";
import { recordingLogger, sleep } from "./util";

const entry = <F extends (...args: any[]) => any>(plugin: string, fn: F, timeoutMs = 1_000): HookEntry<F> => ({ plugin, fn, timeoutMs });
const never = () => new Promise<never>(() => {});

describe("runNotify", () => {
  it("calls every hook in registration order with the same arguments", () => {
    const calls: [string, unknown[]][] = [];
    const { logger, entries } = recordingLogger();
    const hooks = ["a", "b", "c"].map((name) => entry(name, (...args: unknown[]) => void calls.push([name, args])));
    const arg = { id: 1 };
    runNotify(hooks, "onMessage", [arg, "run"], logger);
    expect(calls).toEqual([
      ["a", [arg, "run"]],
      ["b", [arg, "run"]],
      ["c", [arg, "run"]],
    ]);
    expect(calls[0][1][0]).toBe(arg); // the same object, not a copy
    expect(entries).toEqual([]);
  });

  it("isolates a throw: the others still run and the error is logged with hook and plugin", () => {
    const calls: string[] = [];
    const { logger, at } = recordingLogger();
    runNotify(
      [
        entry("a", () => void calls.push("a")),
        entry("b", () => {
          calls.push("b");
          throw new Error("boom");
        }),
        entry("c", () => void calls.push("c")),
        entry("d", () => {
          throw "a string";
        }),
        entry("e", () => void calls.push("e")),
      ],
      "onAfterInvoke",
      [],
      logger,
    );
    expect(calls).toEqual(["a", "b", "c", "e"]);
    expect(at("error")).toEqual([
      { level: "error", message: "plugin hook failed", fields: { hook: "onAfterInvoke", plugin: "b", error: "boom" } },
      { level: "error", message: "plugin hook failed", fields: { hook: "onAfterInvoke", plugin: "d", error: "a string" } },
    ]);
  });

  it("stays synchronous while the hooks are: returns undefined, side effects visible at once", () => {
    const seen: number[] = [];
    const { logger } = recordingLogger();
    const result = runNotify(
      [entry("a", (n: number) => void seen.push(n)), entry("b", (n: number) => void seen.push(n * 10))],
      "onBroadcast",
      [7],
      logger,
    );
    expect(result).toBeUndefined();
    expect(seen).toEqual([7, 70]); // no await needed
    // Also with nothing registered, and with a synchronous throw among them.
    expect(runNotify<[number]>([], "onBroadcast", [1], logger)).toBeUndefined();
    expect(runNotify([entry("x", (_n: number) => { throw new Error("sync"); })], "onBroadcast", [1], logger)).toBeUndefined();
  });

  it("runs the synchronous hooks before an async one at once, then awaits the rest sequentially", async () => {
    const log: string[] = [];
    const { logger } = recordingLogger();
    const pending = runNotify(
      [
        entry("sync1", () => void log.push("sync1")),
        entry("slow", async () => {
          log.push("slow:start");
          await sleep(30);
          log.push("slow:end");
        }),
        entry("fast", async () => {
          log.push("fast:start");
          await sleep(1);
          log.push("fast:end");
        }),
        entry("sync2", () => void log.push("sync2")),
      ],
      "onMessage",
      [],
      logger,
    );
    expect(pending).toBeInstanceOf(Promise);
    // Called up to (and including) the first async hook synchronously; nothing after it yet.
    expect(log).toEqual(["sync1", "slow:start"]);
    await pending;
    expect(log).toEqual(["sync1", "slow:start", "slow:end", "fast:start", "fast:end", "sync2"]);
  });

  it("isolates a rejection and a synchronous throw after the first async hook", async () => {
    const log: string[] = [];
    const { logger, at } = recordingLogger();
    await runNotify(
      [
        entry("a", async () => {
          log.push("a");
          throw new Error("async boom");
        }),
        entry("b", () => {
          log.push("b");
          throw new Error("sync boom");
        }),
        entry("c", async () => void log.push("c")),
      ],
      "onPipelineComplete",
      [],
      logger,
    );
    expect(log).toEqual(["a", "b", "c"]);
    expect(at("error").map((e) => e.fields)).toEqual([
      { hook: "onPipelineComplete", plugin: "a", error: "async boom" },
      { hook: "onPipelineComplete", plugin: "b", error: "sync boom" },
    ]);
  });

  it("cuts off a hook that never resolves after its own timeout; the next one still runs", async () => {
    const log: string[] = [];
    const { logger, at } = recordingLogger();
    const started = Date.now();
    await runNotify(
      [
        entry("stuck", () => never(), 20),
        entry("next", () => void log.push("next"), 1_000),
        entry("alsoStuck", async () => never(), 25),
        entry("last", async () => void log.push("last"), 1_000),
      ],
      "onMessage",
      [],
      logger,
    );
    const elapsed = Date.now() - started;
    expect(log).toEqual(["next", "last"]);
    expect(elapsed).toBeGreaterThanOrEqual(40);
    expect(elapsed).toBeLessThan(2_000);
    const errors = at("error");
    expect(errors.map((e) => e.fields?.plugin)).toEqual(["stuck", "alsoStuck"]);
    expect(errors[0].fields?.error).toBe("stuck.onMessage timed out after 20ms");
    expect(errors[1].fields?.error).toBe("alsoStuck.onMessage timed out after 25ms");
  });
});

describe("runChain", () => {
  it("passes each hook's output to the next, with the rest arguments, and answers the last", async () => {
    const { logger, entries } = recordingLogger();
    const seen: unknown[][] = [];
    const out = await runChain(
      [
        entry("a", (v: string, run: string) => (seen.push([v, run]), `${v}+a`)),
        entry("b", async (v: string, run: string) => (seen.push([v, run]), `${v}+b`)),
        entry("c", (v: string, run: string) => (seen.push([v, run]), `${v}+c`)),
      ],
      "onBeforeInvoke",
      "x",
      ["run-1"] as [string],
      logger,
    );
    expect(out).toBe("x+a+b+c");
    expect(seen).toEqual([
      ["x", "run-1"],
      ["x+a", "run-1"],
      ["x+a+b", "run-1"],
    ]);
    expect(entries).toEqual([]);
  });

  it("keeps the previous value when a hook throws (sync or async) and logs it", async () => {
    const { logger, at } = recordingLogger();
    const out = await runChain(
      [
        entry("a", (v: string) => `${v}a`),
        entry("b", (_v: string): string => {
          throw new Error("nope");
        }),
        entry("c", async (v: string) => `${v}c`),
        entry("d", async (_v: string): Promise<string> => {
          throw new Error("async nope");
        }),
        entry("e", (v: string) => `${v}e`),
      ],
      "onBeforeInvoke",
      "",
      [],
      logger,
    );
    expect(out).toBe("ace");
    expect(at("error").map((e) => e.fields)).toEqual([
      { hook: "onBeforeInvoke", plugin: "b", error: "nope" },
      { hook: "onBeforeInvoke", plugin: "d", error: "async nope" },
    ]);
  });

  it("keeps the previous value on an invalid return (default: undefined or null) and warns", async () => {
    const { logger, at } = recordingLogger();
    const next = vi.fn((v: string) => `${v}!`);
    const out = await runChain(
      [
        entry("a", () => "start"),
        entry("undef", () => undefined as unknown as string),
        entry("nul", async () => null as unknown as string),
        entry("next", next),
      ],
      "onBeforeInvoke",
      "initial",
      [],
      logger,
    );
    expect(out).toBe("start!");
    expect(next).toHaveBeenCalledWith("start");
    expect(at("warn")).toEqual([
      { level: "warn", message: "plugin hook returned an invalid value; keeping the previous one", fields: { hook: "onBeforeInvoke", plugin: "undef" } },
      { level: "warn", message: "plugin hook returned an invalid value; keeping the previous one", fields: { hook: "onBeforeInvoke", plugin: "nul" } },
    ]);
    expect(at("error")).toEqual([]);
  });

  it("applies a custom validator (the pipeline's structured prompt check)", async () => {
    type P = { system: string; prompt: string };
    const isPrompt = (v: unknown): v is P => typeof (v as P)?.system === "string" && typeof (v as P)?.prompt === "string";
    const { logger, at } = recordingLogger();
    const out = await runChain<P, []>(
      [
        entry("good", (p: P) => ({ ...p, system: "ctx" })),
        entry("stringy", () => "just a string" as unknown as P),
        entry("partial", () => ({ system: "only system" }) as unknown as P),
        entry("after", (p: P) => ({ ...p, prompt: `${p.prompt}!` })),
      ],
      "onBeforeInvoke",
      { system: "", prompt: "hi" },
      [],
      logger,
      isPrompt,
    );
    expect(out).toEqual({ system: "ctx", prompt: "hi!" });
    expect(at("warn").map((e) => e.fields?.plugin)).toEqual(["stringy", "partial"]);
  });

  it("keeps the previous value when a hook times out, and goes on", async () => {
    const { logger, at } = recordingLogger();
    const out = await runChain(
      [entry("a", (v: number) => v + 1), entry("stuck", () => never(), 20), entry("b", (v: number) => v * 10)],
      "onBeforeInvoke",
      1,
      [],
      logger,
    );
    expect(out).toBe(20);
    expect(at("error")).toHaveLength(1);
    expect(at("error")[0].fields).toEqual({ hook: "onBeforeInvoke", plugin: "stuck", error: "stuck.onBeforeInvoke timed out after 20ms" });
  });

  it("answers the initial value when no hook is registered", async () => {
    const { logger } = recordingLogger();
    const initial = { system: "", prompt: "p" };
    expect(await runChain([], "onBeforeInvoke", initial, [], logger)).toBe(initial);
  });
});

describe("runFirstTrue", () => {
  it("stops at the first hook that returns true, answers its plugin, and calls no later hook", async () => {
    const { logger } = recordingLogger();
    const a = vi.fn((_c: unknown) => false);
    const b = vi.fn(async (_c: unknown) => true);
    const c = vi.fn((_c: unknown) => true);
    const cmd = { name: "x", args: "", raw: "/x" };
    expect(await runFirstTrue([entry("a", a), entry("b", b), entry("c", c)], "onCommand", [cmd], logger)).toBe("b");
    expect(a).toHaveBeenCalledWith(cmd);
    expect(b).toHaveBeenCalledWith(cmd);
    expect(c).not.toHaveBeenCalled();
  });

  it("answers null when none returns true; only `true` itself counts", async () => {
    const { logger } = recordingLogger();
    const hooks = [
      entry("f", () => false),
      entry("one", () => 1 as unknown as boolean),
      entry("str", async () => "true" as unknown as boolean),
      entry("undef", () => undefined as unknown as boolean),
    ];
    const spies = hooks.map((h) => vi.spyOn(h, "fn"));
    expect(await runFirstTrue(hooks, "onCommand", [], logger)).toBeNull();
    spies.forEach((s) => expect(s).toHaveBeenCalledTimes(1));
    expect(await runFirstTrue([], "onCommand", [], logger)).toBeNull();
  });

  it("isolates a throw and a timeout, then lets a later hook take the command", async () => {
    const { logger, at } = recordingLogger();
    const out = await runFirstTrue(
      [
        entry("thrower", (): boolean => {
          throw new Error("bad command");
        }),
        entry("stuck", () => never(), 20),
        entry("taker", () => true),
      ],
      "onCommand",
      [],
      logger,
    );
    expect(out).toBe("taker");
    expect(at("error").map((e) => e.fields)).toEqual([
      { hook: "onCommand", plugin: "thrower", error: "bad command" },
      { hook: "onCommand", plugin: "stuck", error: "stuck.onCommand timed out after 20ms" },
    ]);
  });
});

describe("runValidate", () => {
  it("accepts when no hook throws, calling each once with the arguments", async () => {
    const { logger } = recordingLogger();
    const a = vi.fn();
    const b = vi.fn(async () => {});
    expect(await runValidate([entry("a", a), entry("b", b)], "onTaskComplete", ["task", "result"], logger)).toEqual({ accepted: true });
    expect(a).toHaveBeenCalledWith("task", "result");
    expect(b).toHaveBeenCalledWith("task", "result");
    expect(await runValidate([], "onTaskComplete", [], logger)).toEqual({ accepted: true });
  });

  it("answers the first veto's message and plugin; later validators are not asked; a veto is not logged as a fault", async () => {
    const { logger, entries } = recordingLogger();
    const later = vi.fn();
    const out = await runValidate(
      [
        entry("ok", () => {}),
        entry("strict", async () => {
          throw new Error("Too short: add the totals");
        }),
        entry("picky", () => {
          throw new Error("second veto");
        }),
        entry("later", later),
      ],
      "onTaskComplete",
      [],
      logger,
    );
    expect(out).toEqual({ accepted: false, feedback: "Too short: add the totals", plugin: "strict" });
    expect(later).not.toHaveBeenCalled();
    expect(entries).toEqual([]);
  });

  it("takes a thrown non-Error as the feedback text", async () => {
    const { logger } = recordingLogger();
    const out = await runValidate([entry("s", () => { throw "plain words"; })], "onTaskComplete", [], logger);
    expect(out).toEqual({ accepted: false, feedback: "plain words", plugin: "s" });
  });

  it("treats a timeout as a reported fault, not a veto", async () => {
    const { logger, at } = recordingLogger();
    const after = vi.fn();
    const out = await runValidate([entry("stuck", () => never(), 20), entry("after", after)], "onTaskComplete", [], logger);
    expect(out).toEqual({ accepted: true });
    expect(after).toHaveBeenCalledTimes(1);
    expect(at("error")[0].fields).toEqual({ hook: "onTaskComplete", plugin: "stuck", error: "stuck.onTaskComplete timed out after 20ms" });
  });
});

describe("bounded", () => {
  it("passes plain values and settled promises through", async () => {
    expect(await bounded(5, 10, "x")).toBe(5);
    expect(await bounded(Promise.resolve("v"), 10, "x")).toBe("v");
    await expect(bounded(Promise.reject(new Error("own")), 10, "x")).rejects.toThrow("own");
  });

  it("rejects with a HookTimeoutError naming the label once the time is up", async () => {
    const err = await bounded(never(), 20, "p.onMessage").catch((e) => e);
    expect(err).toBeInstanceOf(HookTimeoutError);
    expect(err.message).toBe("p.onMessage timed out after 20ms");
  });

  it("does not cut off a hook that finishes in time", async () => {
    expect(await bounded(sleep(5).then(() => "done"), 200, "x")).toBe("done");
  });
});
