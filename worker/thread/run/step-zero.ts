// Step 0's inputs: the plugin configs (their versioned copy: plugins/config-copy.ts) and what the
// owner's object gives a run (their context files, the thread's project, their MCP tools: user/
// run-inputs.ts), each with its version, cached in this object and in its storage, so a run waits on
// neither when it holds something recent enough:
//   younger than step0FreshMs          used as is, nothing asked
//   older, up to step0MaxAgeMs         used as is; after the run each source is asked whether its
//                                      version moved, and only what moved is copied (and stored)
//   older still, invalidated, or none  asked before the run, both at once
// A change pushes an invalidation to the threads that ran recently (the owner's object for their files,
// the plugins route for configs), so it applies from the next run; the ages bound staleness when a push
// is lost. D1 is never read here but by a deployment's very first read of the configs (it makes the copy).
import type { Config } from "../../env";
import type { Logger } from "../../lib/logger";
import type { OwnersAnswer, OwnersInputs } from "../../lib/run-inputs";
import type { ConfigCopy, VersionedConfigs } from "../../plugins/config-copy";
import type { PluginHost } from "../../plugins/host";
import { configsFrom, type PluginConfig } from "../../plugins/registry";
import type { UserApi } from "../../user/stub";
import type { CacheStore } from "../store/cache";

export interface StepZeroInputs extends OwnersInputs {
  configs: PluginConfig[];
}

/** The sources' versions the inputs were read at (null: not known, read whole next time). */
interface Versions {
  configs: string | null;
  owners: string | null;
}

interface Held {
  ownerId: string;
  projectId: string | null;
  inputs: StepZeroInputs;
  versions: Versions;
  fetchedAt: number;
}

const KEY = "step0";

export class StepZero {
  private cached: Held | null = null;
  /** When the last change was announced: values read before it are asked about before a run. */
  private invalidatedAt = 0;

  constructor(
    private readonly store: CacheStore,
    private readonly copy: Pick<ConfigCopy, "read">,
    private readonly user: (ownerId: string) => Pick<UserApi, "inputsForRun">,
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
    const held = this.mine(ownerId);
    if (held && held.fetchedAt > this.invalidatedAt && now - held.fetchedAt <= this.config.step0MaxAgeMs) return held.inputs;
    return this.ask(ownerId, held);
  }

  /** After a run: whether the sources moved, once what is held is past step0FreshMs; null when it is fresh. */
  revalidate(ownerId: string, now = Date.now()): Promise<void> | null {
    const held = this.mine(ownerId);
    if (held && held.fetchedAt > this.invalidatedAt && now - held.fetchedAt <= this.config.step0FreshMs) return null;
    return this.ask(ownerId, held).then(() => undefined);
  }

  /** What the last run was given (the context plugin reads its files from here). */
  get current(): StepZeroInputs | null {
    return this.cached?.inputs ?? null;
  }

  /** Something changed (a config, a context file): the next run asks before it starts. */
  invalidate(now = Date.now()): void {
    this.invalidatedAt = now;
  }

  /**
   * Both sources at once, each told the version held (none: it answers whole). What did not move is
   * not copied, and not stored again; a source that cannot be reached leaves what is held (or the
   * defaults), to be read whole next time.
   */
  private async ask(ownerId: string, held: Held | null): Promise<StepZeroInputs> {
    const startedAt = Date.now();
    const last = held ?? this.cached;
    const projectId = this.projectId();
    const [configs, owners] = await Promise.all([
      this.copy.read(held?.versions.configs).catch((err) => this.fallback("plugin configs", err)),
      this.user(ownerId).inputsForRun(projectId, held?.versions.owners ?? null).catch((err) => this.fallback("context files, project and MCP tools", err)),
    ]);
    const inputs: StepZeroInputs = {
      configs: configsOf(configs, held) ?? last?.inputs.configs ?? configsFrom([]),
      ...(ownersOf(owners, held) ?? { contextFiles: last?.inputs.contextFiles ?? [], project: last?.inputs.project ?? null, mcp: last?.inputs.mcp ?? [] }),
    };
    const versions = { configs: configs && configs !== "unchanged" ? configs.version : configs && held ? held.versions.configs : null, owners: owners?.version ?? null };
    const moved = !held || configs !== "unchanged" || owners?.inputs !== undefined;
    this.cached = { ownerId, projectId: inputs.project?.id ?? projectId, inputs, versions, fetchedAt: startedAt };
    // Unmoved, the stored copy stays as it is: a new instance asks again, which costs a question, not a write.
    if (moved) this.store.put(KEY, { ownerId, projectId: this.cached.projectId, inputs, versions }, startedAt);
    return inputs;
  }

  /** What is held for this owner and the thread's project. */
  private mine(ownerId: string): Held | null {
    if (!this.cached) {
      const stored = this.store.get<Omit<Held, "fetchedAt">>(KEY);
      // A copy from before versions has none: it is read whole next time.
      if (stored) this.cached = { ...stored.value, versions: stored.value.versions ?? { configs: null, owners: null }, fetchedAt: stored.fetchedAt };
    }
    const c = this.cached;
    return c && c.ownerId === ownerId && c.projectId === this.projectId() ? c : null;
  }

  private fallback(what: string, err: unknown): null {
    this.logger.warn(`step-0 ${what} could not be read; using the last known`, { error: String(err) });
    return null;
  }
}

function configsOf(read: VersionedConfigs | "unchanged" | null, held: Held | null): PluginConfig[] | null {
  if (read === "unchanged") return held!.inputs.configs;
  return read ? configsFrom(read.stored) : null;
}

function ownersOf(answer: OwnersAnswer | null, held: Held | null): OwnersInputs | null {
  if (!answer) return null;
  if (answer.inputs) return answer.inputs;
  const { contextFiles, project, mcp } = held!.inputs;
  return { contextFiles, project, mcp };
}
