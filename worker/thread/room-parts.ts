// A thread object's parts, each built from those before it: the store and its writer, where rows go
// after it (outflow), step 0, the spend guard, the model's view, the plugins, the broadcaster, the run
// queue and the intake (a program's asks through it), the sockets, the scheduler; and what the plugins are lent of them.
import { database, newUsage } from "../db/client";
import { configOf, type Env } from "../env";
import { createInvoker } from "../invoker/client";
import { stillHasAccess } from "../lib/access";
import { Alarms } from "../lib/alarms";
import { MonotonicClock } from "../lib/ids";
import { Meter } from "../lib/meter";
import { consoleLogger } from "../lib/logger";
import { PluginHost } from "../plugins/host";
import { PLUGINS } from "../plugins/registry";
import { userStub } from "../user/stub";
import { ConfigCopy } from "../plugins/config-copy";
import { Approvals } from "./approvals";
import { Broadcaster } from "./broadcaster";
import { Intake } from "./intake";
import { ProgramAsk } from "./program-ask";
import { RESEARCH_DRIVER, ResearchDriver, sourcesIn } from "./research";
import { unwrap } from "./room-reply";
import { ModelView } from "./model-view";
import { otherThreads } from "./other-threads";
import { Outflow } from "./outflow";
import { modelPort, pluginContextFor } from "./plugin-context";
import { Calibration } from "./run/context-window";
import { FileBlocks } from "./run/file-blocks";
import { ContainerUploads } from "./run/container-uploads";
import { RunQueue, type QueueParts } from "./run/queue";
import { StepZero } from "./run/step-zero";
import { Scheduler } from "./scheduler";
import { SocketHub } from "./sockets";
import { SpendGuard } from "./spend";
import { RoomStore } from "./store";
import { ThreadWriter } from "./writer";

/** What tests reach in for: D1 down or slow, the limiter on posts (a tight one), the owner's object away. */
export interface RoomFaults {
  d1: { down: boolean; delayMs: number };
  limits: { posts?: RateLimit };
  user: { down: boolean };
}

export type RoomParts = ReturnType<typeof roomParts>;

export function roomParts(ctx: DurableObjectState, env: Env, faults: RoomFaults, closing: () => boolean) {
  const config = configOf(env);
  const logger = consoleLogger("room");
  const waitUntil = (p: Promise<unknown>) => ctx.waitUntil(p);
  const d1Usage = newUsage();
  const meter = new Meter(d1Usage);
  const store = new RoomStore(meter.storage(ctx.storage));
  const writer = new ThreadWriter(store, new MonotonicClock());
  const alarms = new Alarms(ctx.storage);
  const db = database(env, d1Usage, faults.d1);
  const user = (ownerId: string) => meter.calls(userStub(env, ownerId, faults.user), "rpcs");
  const outflow = new Outflow(store, db.$client, d1Usage, user, alarms, logger, meter);
  const invoker = createInvoker(env, config);
  const plugins = new PluginHost(PLUGINS, logger, config.hookTimeoutMs);
  const configCopy = new ConfigCopy(meter.calls(env.FILES, "r2"), () => db);
  const stepZero = new StepZero(store.cache, configCopy, user, () => store.thread.get()?.projectId ?? null, config, logger, plugins);
  const spend = new SpendGuard(store.cache, alarms, user, config, logger);
  const view = new ModelView(store);
  const events = new Broadcaster(store, ctx, plugins);
  // The owner's list shows the thread's waiting calls (its badge).
  const approvals = new Approvals(store, events, alarms, () => {
    if (writer.reportApprovals()) waitUntil(outflow.reported());
  });
  const calibration = new Calibration(store.cache);
  const files = new FileBlocks(meter.calls(env.FILES, "r2"), store.files, () => stepZero.current?.project ?? null);
  const bucket = meter.calls(env.FILES, "r2");
  const uploads = new ContainerUploads({ invoker, user, bucket, logger });
  const run = { store, writer, events, plugins, invoker, view, calibration, files, uploads, stepZero, spend, logger, config, approvals, user, bucket };
  const queue = new RunQueue(run, { alarms, d1: d1Usage, meter, ...afterRun({ store, outflow, stepZero, spend }, closing, waitUntil), waitUntil });
  const intake = new Intake({ store, writer, events, spend, queue, outflow, config, limits: faults.limits, waitUntil });
  const scheduler = new Scheduler({ store, intake, outflow, alarms, user, config, logger, hasAccess: (userId) => stillHasAccess(env, userId) });
  // The plugins come first (the broadcaster tells them every frame) and register last: what they are
  // lent includes the intake, through which they post into their own thread.
  const other = otherThreads(env);
  const thread = (threadId: string) => meter.calls(other(threadId), "rpcs");
  // Research drives task threads from here, with a plugin's context of its own (research/driver.ts).
  const research: ResearchDriver = new ResearchDriver({
    store: store.research,
    thread: () => store.thread.get(),
    events,
    intake,
    alarms,
    ctx: () => researchCtx,
    cancelTask: async (threadId, taskId) => void (await thread(threadId).cancelTask({ threadId, userId: store.thread.get()!.ownerId }, taskId)),
    sourcesOf: async (threadId) => sourcesIn(unwrap(await thread(threadId).messages({ threadId, userId: store.thread.get()!.ownerId }, { limit: 200, kinds: ["text"] })).messages),
    defaults: config.research,
    logger,
    waitUntil,
  });
  const lent = { env, ctx, model: modelPort(env, config, invoker), user, thread, store, writer, events, stepZero, intake, scheduler, research };
  plugins.register((def, settings, host) => pluginContextFor(def, settings, host, lent));
  const researchCtx = pluginContextFor(RESEARCH_DRIVER, () => ({}), plugins, lent);
  const sockets = new SocketHub(ctx, store, events, queue, intake);
  const asks = new ProgramAsk({ store, writer, events, intake, outflow, waitUntil });
  return { meter, store, writer, alarms, outflow, stepZero, spend, view, plugins, events, approvals, queue, intake, asks, scheduler, research, sockets };
}

/** A new instance's first work: the queue recovers (and the watchdog picks up a run the last one left), work waiting to flush is retried, schedules wake. */
export async function startParts({ queue, store, alarms, outflow, scheduler, research }: RoomParts): Promise<void> {
  queue.recover();
  if (store.runs.head()) await alarms.request(Date.now());
  if (outflow.waiting()) await alarms.request(Date.now() + 1_000);
  await scheduler.wake();
  await research.wake();
}

/** The thread was deleted: the run stops and a flush unwinds, sockets close, the store forgets everything. */
export async function destroyParts({ queue, outflow, plugins, sockets, store, alarms, view }: RoomParts): Promise<void> {
  await queue.close();
  await outflow.settled();
  await plugins.stop();
  sockets.closeAll("thread deleted");
  await store.destroy();
  alarms.cleared();
  view.forget();
}

/**
 * After each run: what whoever saw its end can ask the owner's object about (the report: the list,
 * search, usage, schedules; and the run's cost in place of its reservation, while a cap is set), sent
 * as its end events leave; the rest (D1, step 0's revalidation) with the housekeeping, once a message
 * sent right after the answer has reached the model.
 */
function afterRun(p: { store: RoomStore; outflow: Outflow; stepZero: StepZero; spend: SpendGuard }, closing: () => boolean, waitUntil: (p: Promise<unknown>) => void): Pick<QueueParts, "report" | "housekeeping"> {
  const owner = () => (closing() ? undefined : p.store.thread.get()?.ownerId);
  return {
    report() {
      const ownerId = owner();
      if (!ownerId) return Promise.resolve();
      const reported = p.outflow.reported();
      waitUntil(reported);
      waitUntil(p.spend.settleLater(ownerId));
      return reported;
    },
    housekeeping() {
      const ownerId = owner();
      if (!ownerId) return Promise.resolve({ rows: 0, d1RoundTrips: 0, waiting: 0, dead: 0 });
      const revalidated = p.stepZero.revalidate(ownerId);
      if (revalidated) waitUntil(revalidated);
      return p.outflow.mirrored();
    },
  };
}
