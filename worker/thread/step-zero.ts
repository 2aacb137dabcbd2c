// Step 0's inputs from D1 (plugin configs, the owner's context files), cached in the object and in its
// storage, so a run waits on D1 only when its object has nothing recent enough:
//   younger than step0FreshMs          used as is, no D1
//   older, up to step0MaxAgeMs         used as is; read again in the run's after-flush batch
//   older still, invalidated, or none  read before the run, in one D1 batch
// A change made through the API invalidates the caches of the owner's active threads (push), so it
// applies from the next run; the ages above bound staleness when a push is lost.
import { asc, eq } from "drizzle-orm";
import type { ContextFile } from "../../protocol";
import { rowsOf, statementOf, type BatchRead } from "../db/batch";
import type { Db } from "../db/client";
import { contextFiles, pluginConfigs } from "../db/schema";
import type { Config } from "../env";
import type { Logger } from "../lib/logger";
import { configsFrom, type PluginConfig } from "../plugins/registry";
import type { CacheStore } from "./store/cache";

export interface StepZeroInputs {
  configs: PluginConfig[];
  contextFiles: ContextFile[];
}

const KEY = "step0";

export class StepZero {
  private cached: { ownerId: string; inputs: StepZeroInputs; fetchedAt: number } | null = null;
  /** When the last change was announced: values read before it are not used. */
  private invalidatedAt = 0;

  constructor(
    private readonly store: CacheStore,
    private readonly db: Db,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** The inputs for a run that starts now; waits on D1 only when nothing recent enough is held. */
  async forRun(ownerId: string, now = Date.now()): Promise<StepZeroInputs> {
    const held = this.held(ownerId);
    if (held && now - held.fetchedAt <= this.config.step0MaxAgeMs) return held.inputs;
    const read = this.read(ownerId);
    try {
      read.apply(await this.db.$client.batch(read.statements));
    } catch (err) {
      // D1 unreachable: run on what is held (or the defaults); the next flush reads again.
      this.logger.warn("step-0 inputs could not be read; using the last known", { error: String(err) });
      return (held ?? this.cached)?.inputs ?? { configs: configsFrom([]), contextFiles: [] };
    }
    return this.cached!.inputs;
  }

  /** The reads that keep a used value fresh, for the run's after-flush; null when it is fresh. */
  revalidation(ownerId: string, now = Date.now()): BatchRead | null {
    const held = this.held(ownerId);
    if (held && now - held.fetchedAt <= this.config.step0FreshMs) return null;
    return this.read(ownerId);
  }

  /** What the last run was given (the context plugin reads its files from here). */
  get current(): StepZeroInputs | null {
    return this.cached?.inputs ?? null;
  }

  /** Something changed in D1 (a config, a context file): the next run reads again before it starts. */
  invalidate(now = Date.now()): void {
    this.invalidatedAt = now;
  }

  /** What is held for this owner and was read after the last change announced. */
  private held(ownerId: string) {
    if (!this.cached) {
      const stored = this.store.get<{ ownerId: string; inputs: StepZeroInputs }>(KEY);
      if (stored) this.cached = { ...stored.value, fetchedAt: stored.fetchedAt };
    }
    const c = this.cached;
    return c && c.ownerId === ownerId && c.fetchedAt > this.invalidatedAt ? c : null;
  }

  private read(ownerId: string): BatchRead {
    const startedAt = Date.now();
    return {
      statements: [
        statementOf(this.db.$client, this.db.select().from(pluginConfigs)),
        statementOf(this.db.$client, this.db.select().from(contextFiles).where(eq(contextFiles.ownerId, ownerId)).orderBy(asc(contextFiles.path))),
      ],
      apply: ([configRows, fileRows]) => {
        const inputs: StepZeroInputs = {
          configs: configsFrom(rowsOf(pluginConfigs, configRows)),
          contextFiles: rowsOf(contextFiles, fileRows).map((f) => ({ path: f.path, content: f.content, bytes: f.bytes, updatedAt: f.updatedAt })),
        };
        // Stamped with when the read began: a change announced while it was in flight still counts.
        this.cached = { ownerId, inputs, fetchedAt: startedAt };
        this.store.put(KEY, { ownerId, inputs }, startedAt);
      },
    };
  }
}
