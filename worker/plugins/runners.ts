// One runner per hook semantics (see contract.ts). Sequential, in registration order; one plugin's
// throw or timeout is logged and never reaches the others or the pipeline.
import type { Logger } from "../lib/logger";
import type { TaskVerdict } from "./contract";

export interface HookEntry<F extends (...args: any[]) => any> {
  plugin: string;
  fn: F;
  timeoutMs: number;
}

export class HookTimeoutError extends Error {}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as PromiseLike<unknown> | undefined)?.then === "function";
}

/** Awaits `value` for at most `ms`; a slow plugin must not stall its thread. */
export async function bounded<T>(value: T | PromiseLike<T>, ms: number, label: string): Promise<T> {
  if (!isThenable(value)) return value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      value,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HookTimeoutError(`${label} timed out after ${ms}ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function report(logger: Logger, hook: string, plugin: string, err: unknown) {
  logger.error("plugin hook failed", { hook, plugin, error: err instanceof Error ? err.message : String(err) });
}

/**
 * Notify: every hook is called, nothing is returned. Stays synchronous while the hooks are, so
 * synchronous observers (onBroadcast) see frames in the order they were made.
 */
export function runNotify<A extends unknown[]>(
  entries: HookEntry<(...args: A) => unknown>[],
  hook: string,
  args: A,
  logger: Logger,
): void | Promise<void> {
  for (let i = 0; i < entries.length; i++) {
    const { plugin, fn } = entries[i];
    let result: unknown;
    try {
      result = fn(...args);
    } catch (err) {
      report(logger, hook, plugin, err);
      continue;
    }
    if (isThenable(result)) return finishNotify(entries, i, result, hook, args, logger);
  }
}

async function finishNotify<A extends unknown[]>(
  entries: HookEntry<(...args: A) => unknown>[],
  from: number,
  pending: PromiseLike<unknown>,
  hook: string,
  args: A,
  logger: Logger,
): Promise<void> {
  for (let i = from; i < entries.length; i++) {
    const { plugin, fn, timeoutMs } = entries[i];
    try {
      await bounded(i === from ? pending : fn(...args), timeoutMs, `${plugin}.${hook}`);
    } catch (err) {
      report(logger, hook, plugin, err);
    }
  }
}

/** Chain: each hook transforms the previous value; a throw (or a non-value) keeps the previous one. */
export async function runChain<T, R extends unknown[]>(
  entries: HookEntry<(value: T, ...rest: R) => T | Promise<T>>[],
  hook: string,
  initial: T,
  rest: R,
  logger: Logger,
  isValid: (value: unknown) => value is T = (v): v is T => v !== undefined && v !== null,
): Promise<T> {
  let value = initial;
  for (const { plugin, fn, timeoutMs } of entries) {
    try {
      const next = await bounded(fn(value, ...rest), timeoutMs, `${plugin}.${hook}`);
      if (isValid(next)) value = next;
      else logger.warn("plugin hook returned an invalid value; keeping the previous one", { hook, plugin });
    } catch (err) {
      report(logger, hook, plugin, err);
    }
  }
  return value;
}

/** First-true: stops at the first hook that returns true; answers which plugin handled it. */
export async function runFirstTrue<A extends unknown[]>(
  entries: HookEntry<(...args: A) => boolean | Promise<boolean>>[],
  hook: string,
  args: A,
  logger: Logger,
): Promise<string | null> {
  for (const { plugin, fn, timeoutMs } of entries) {
    try {
      if ((await bounded(fn(...args), timeoutMs, `${plugin}.${hook}`)) === true) return plugin;
    } catch (err) {
      report(logger, hook, plugin, err);
    }
  }
  return null;
}

/**
 * Validate: every hook may veto by throwing; the first veto's message is the answer. Unlike the
 * others, a throw here is the plugin's verdict, not a fault. A timeout is reported and not a veto.
 * Who judged (`by`), for the task's card: the accepting hooks' returned strings, or the veto's `by`.
 */
export async function runValidate<A extends unknown[]>(
  entries: HookEntry<(...args: A) => unknown>[],
  hook: string,
  args: A,
  logger: Logger,
): Promise<TaskVerdict> {
  const judges: string[] = [];
  for (const { plugin, fn, timeoutMs } of entries) {
    try {
      const said = await bounded(fn(...args), timeoutMs, `${plugin}.${hook}`);
      if (typeof said === "string" && said) judges.push(said);
    } catch (err) {
      if (err instanceof HookTimeoutError) {
        report(logger, hook, plugin, err);
        continue;
      }
      const by = (err as { by?: unknown } | null)?.by;
      const feedback = err instanceof Error ? err.message : String(err);
      return typeof by === "string" && by ? { accepted: false, feedback, plugin, by } : { accepted: false, feedback, plugin };
    }
  }
  return judges.length ? { accepted: true, by: judges.join(", ") } : { accepted: true };
}
