// Step 0's inputs: the plugin configs (the deployment's, in D1), the owner's context files and the
// thread's project (their object's), cached in this object and in its storage, so a run waits on neither when it holds
// something recent enough:
//   younger than step0FreshMs          used as is, nothing read
//   older, up to step0MaxAgeMs         used as is; read again after the run (the configs in the run's
//                                      after-flush batch, the files from the owner's object)
//   older still, invalidated, or none  read before the run: one D1 batch and one call, at once
// A change pushes an invalidation to the threads that ran recently (the owner's object for their files,
// the plugins route for configs), so it applies from the next run; the ages bound staleness when a push
// is lost.
import type { ContextFile } from "../../../protocol";
import { rowsOf, statementOf, type BatchRead } from "../../db/batch";
import type { Db } from "../../db/client";
import { pluginConfigs } from "../../db/schema";
import type { Config } from "../../env";
import type { Logger } from "../../lib/logger";
import type { PluginHost } from "../../plugins/host";
import { configsFrom, type PluginConfig } from "../../plugins/registry";
import type { McpOffer } from "../../lib/mcp-offer";
import type { RunProject } from "../../lib/run-project";
import type { UserApi } from "../../user/stub";
import type { CacheStore } from "../store/cache";

export interface StepZeroInputs {
  configs: PluginConfig[];
  contextFiles: ContextFile[];
  /** The thread's project, when it is in one. */
  project: RunProject | null;
  /** The owner's MCP servers' tools (any thread of theirs may turn a server off). */
  mcp: McpOffer[];
}

/** What the owner's object gives a run: their context files, the thread's project, their MCP tools. */
type OwnersPart = Pick<StepZeroInputs, "contextFiles" | "project" | "mcp">;

const KEY = "step0";

export class StepZero {
  private cached: { ownerId: string; projectId: string | null; inputs: StepZeroInputs; fetchedAt: number } | null = null;
  /** When the last change was announced: values read before it are not used. */
  private invalidatedAt = 0;

  constructor(
    private readonly store: CacheStore,
    private readonly db: Db,
    private readonly user: (ownerId: string) => UserApi,
    /** The thread's project as stored now (a thread joins and leaves projects). */
    private readonly projectId: () => string | null,
    private readonly config: Config,
    private readonly logger: Logger,
    /** The plugins step 0's configs configure. */
    private readonly plugins: Pick<PluginHost, "apply" | "start">,
  ) {}

  /** Step 0 for a run (or a prewarm): its inputs, and the plugins configured by them and started. */
  async ready(ownerId: string): Promise<void> {
    this.plugins.apply((await this.forRun(ownerId)).configs);
    await this.plugins.start();
  }

  /** The inputs for a run that starts now; waits only when nothing recent enough is held. */
  async forRun(ownerId: string, now = Date.now()): Promise<StepZeroInputs> {
    const held = this.held(ownerId);
    if (held && now - held.fetchedAt <= this.config.step0MaxAgeMs) return held.inputs;
    const last = (held ?? this.cached)?.inputs;
    const startedAt = Date.now();
    const configs = this.db.$client.batch([this.configsStatement()]).then(
      ([rows]) => configsFrom(rowsOf(pluginConfigs, rows)),
      (err) => this.fallback("plugin configs", err, last?.configs ?? configsFrom([])),
    );
    const owners = this.owners(ownerId).catch((err) =>
      this.fallback<OwnersPart>("context files, project and MCP tools", err, { contextFiles: last?.contextFiles ?? [], project: last?.project ?? null, mcp: last?.mcp ?? [] }),
    );
    const inputs = { configs: await configs, ...(await owners) };
    this.keep(ownerId, inputs, startedAt);
    return inputs;
  }

  /** The reads that keep a used value fresh, for the run's after-flush; null when it is fresh. */
  revalidation(ownerId: string, now = Date.now()): BatchRead | null {
    const held = this.held(ownerId);
    if (held && now - held.fetchedAt <= this.config.step0FreshMs) return null;
    const startedAt = Date.now();
    // The owner's part comes from their object meanwhile; kept with the configs once both are in.
    const owners = this.owners(ownerId).catch(() => null);
    return {
      statements: [this.configsStatement()],
      apply: ([rows]) => {
        const configs = configsFrom(rowsOf(pluginConfigs, rows));
        void owners.then((part) => {
          if (part) this.keep(ownerId, { configs, ...part }, startedAt);
        });
      },
    };
  }

  /** What the last run was given (the context plugin reads its files from here). */
  get current(): StepZeroInputs | null {
    return this.cached?.inputs ?? null;
  }

  /** Something changed (a config, a context file): the next run reads again before it starts. */
  invalidate(now = Date.now()): void {
    this.invalidatedAt = now;
  }

  /** What is held for this owner and the thread's project, and was read after the last change announced. */
  private held(ownerId: string) {
    if (!this.cached) {
      const stored = this.store.get<{ ownerId: string; projectId?: string | null; inputs: StepZeroInputs }>(KEY);
      // A copy from before projects has neither: it is for a thread in none.
      if (stored) this.cached = { ...stored.value, projectId: stored.value.projectId ?? null, inputs: { ...stored.value.inputs, project: stored.value.inputs.project ?? null, mcp: stored.value.inputs.mcp ?? [] }, fetchedAt: stored.fetchedAt };
    }
    const c = this.cached;
    return c && c.ownerId === ownerId && c.projectId === this.projectId() && c.fetchedAt > this.invalidatedAt ? c : null;
  }

  /** Stamped with when the read began: a change announced while it was in flight still counts. */
  private keep(ownerId: string, inputs: StepZeroInputs, startedAt: number): void {
    const projectId = inputs.project?.id ?? null;
    this.cached = { ownerId, projectId, inputs, fetchedAt: startedAt };
    this.store.put(KEY, { ownerId, projectId, inputs }, startedAt);
  }

  /** The context files and the thread's project, in one round trip each, at once. */
  private async owners(ownerId: string): Promise<OwnersPart> {
    const projectId = this.projectId();
    const user = this.user(ownerId);
    const [contextFiles, project, mcp] = await Promise.all([
      user.contextForRun(),
      projectId ? user.projectForRun(projectId) : null,
      user.mcpForRun(),
    ]);
    return { contextFiles, project, mcp };
  }

  private configsStatement(): D1PreparedStatement {
    return statementOf(this.db.$client, this.db.select().from(pluginConfigs));
  }

  /** Unreachable: run on what is held (or the defaults); the next run reads again. */
  private fallback<T>(what: string, err: unknown, last: T): T {
    this.logger.warn(`step-0 ${what} could not be read; using the last known`, { error: String(err) });
    return last;
  }
}
