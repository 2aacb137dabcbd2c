// The user's object's subsystems, each built on the store it shares and wired to the others and to the
// world outside through the few effects it declares (its threads told, its bytes in R2).
import { database, newUsage } from "../db/client";
import { d1Sink } from "../db/mirror";
import { configOf, type Env } from "../env";
import { Alarms } from "../lib/alarms";
import { Meter } from "../lib/meter";
import { consoleLogger } from "../lib/logger";
import { RunInputs } from "./run-inputs";
import { Outbox } from "../lib/outbox";
import { OutboxFlush } from "../lib/outbox-flush";
import { ApiConversations, ApiKeys } from "./api-access";
import { Directory } from "./directory";
import { ContextFiles, StoredFiles, UpstreamFiles } from "./files";
import { McpHub } from "./mcp";
import { Embeddings, KnowledgeIndex } from "./knowledge";
import type { Logger } from "../lib/logger";
import { Projects, type ProjectEffects } from "./projects";
import { UserSchedules } from "./schedules";
import { UserShares } from "./shares";
import { Spend } from "./spend";
import { UserStore } from "./store";
import { FirstTouch } from "./store/first-touch";
import { importFromD1 } from "./store/import";
import { UserTasks } from "./tasks";
import { threadCalls } from "./thread-calls";

export type UserParts = ReturnType<typeof userParts>;

export function userParts(ctx: DurableObjectState, env: Env) {
  const config = configOf(env);
  const waitUntil = (p: Promise<unknown>) => ctx.waitUntil(p);
  const d1Usage = newUsage();
  const meter = new Meter(d1Usage);
  const store = new UserStore(meter.storage(ctx.storage));
  const files = meter.calls(env.FILES, "r2");
  const owner = new FirstTouch(store, ctx.id.name);
  const outbox = new Outbox(store.sql, "outbox");
  const alarms = new Alarms(ctx.storage);
  const logger = consoleLogger("user");
  const mirror = new OutboxFlush(outbox, d1Sink(database(env, d1Usage).$client), alarms, logger, "D1");
  const threads = threadCalls(env, waitUntil);
  const directory = new Directory(store);
  // Step 0's inputs moved: their version, and the threads that ran within step 0's longest cache age
  // drop their copy (older ones read again anyway).
  const tellThreads = () => {
    runInputs.changed();
    threads.invalidate(directory.activeSince(Date.now() - config.step0MaxAgeMs));
  };
  const shares = new UserShares(store.sql, files);
  // The quota holds every byte the user keeps in R2: projects' files and shares' copies with the attachments.
  const stored: StoredFiles = new StoredFiles(store, () => projects.bytes() + shares.bytes());
  const upstream = new UpstreamFiles(store.sql);
  const knowledge = new KnowledgeIndex(store.sql);
  // Hybrid ranking where both are bound (knowledge/embeddings.ts); BM25 alone otherwise.
  const embeddings = env.AI && env.VECTORS ? new Embeddings({ ai: env.AI, vectors: env.VECTORS }) : null;
  const projects: Projects = projectsIn(store, files, waitUntil, knowledge, embeddings, logger, {
    directory,
    stored: () => stored,
    upstream,
    invalidate: (ids) => {
      runInputs.changed();
      threads.invalidate(ids);
    },
    leave: (ids, projectId) => threads.leaveProject(ids, projectId),
  });
  const spend = new Spend(store);
  const context = new ContextFiles(store, () => owner.owner);
  const mcp = new McpHub(store.sql, { allowLocal: config.mcpAllowLocal, toolTimeoutMs: config.mcpToolTimeoutMs }, { changed: tellThreads, waitUntil }, ctx.id.toString());
  const runInputs: RunInputs = new RunInputs(store, { context, projects, mcp });
  return {
    logger,
    meter,
    store,
    owner,
    outbox,
    alarms,
    mirror,
    directory,
    spend,
    context,
    stored,
    upstream,
    tasks: new UserTasks(store),
    schedules: new UserSchedules(store.sql),
    projects,
    shares,
    mcp,
    runInputs,
    keys: new ApiKeys(store.sql, ctx.id.toString()),
    conversations: new ApiConversations(store.sql),
    /** The user's files changed: the threads holding step 0's copy drop it. */
    filesChanged: tellThreads,
    /** The user's rows from D1 the first time, where the deployment has old data (store/first-touch.ts). */
    open: () => owner.open((userId) => (config.legacyImport ? legacyRows(env, store, spend, userId) : Promise.resolve(0))),
  };
}

// Projects reach the directory, the files' quota and their bytes in R2; a change drops the copies of
// step 0 held by the project's threads, and a project left is told to its threads.
function projectsIn(
  store: UserStore,
  files: R2Bucket,
  waitUntil: (p: Promise<unknown>) => void,
  knowledge: KnowledgeIndex,
  embeddings: Embeddings | null,
  logger: Logger,
  wires: Pick<ProjectEffects, "invalidate" | "leave"> & { directory: Directory; stored: () => StoredFiles; upstream: UpstreamFiles },
) {
  return new Projects(store.sql, {
    threadsIn: (id) => wires.directory.inProject(id),
    leaveInDirectory: (id) => wires.directory.leaveProject(id),
    storageUsed: () => wires.stored().used(),
    invalidate: wires.invalidate,
    leave: wires.leave,
    filesGone: (gone) => {
      // Their uploads leave the table (the route deletes them upstream).
      wires.upstream.deleted(gone.map((f) => f.id));
      waitUntil(gone.length ? files.delete(gone.map((f) => f.r2Key)) : Promise.resolve());
    },
    readText: async (key) => (await files.get(key))?.text() ?? null,
    background: waitUntil,
    logger,
  }, knowledge, embeddings);
}

async function legacyRows(env: Env, store: UserStore, spend: Spend, userId: string): Promise<number> {
  const rows = await importFromD1(env, store.db, userId);
  spend.importToday();
  return rows;
}
