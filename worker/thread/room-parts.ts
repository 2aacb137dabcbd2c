// The parts of a thread's object, built once when it starts and kept for its life: the store and what
// writes it, the mirror to D1, step 0's cache, the broadcaster, the plugins, the model, the queue.
import type { EventMap, EventName } from "../../protocol";
import { database, newUsage, type D1Usage, type Db } from "../db/client";
import { configOf, type Config, type Env } from "../env";
import { createInvoker, deploymentModels, providerOf } from "../invoker/client";
import { MonotonicClock } from "../lib/ids";
import { consoleLogger, type Logger } from "../lib/logger";
import type { ModelPort } from "../plugins/contract";
import { PluginHost } from "../plugins/host";
import { PLUGINS } from "../plugins/registry";
import { Alarms } from "./alarms";
import { Broadcaster } from "./broadcaster";
import { Calibration } from "./context-window";
import { FileBlocks } from "./file-blocks";
import { Intake, type AcceptInput } from "./intake";
import { Mirror } from "./mirror";
import { ModelView } from "./model-view";
import { pluginContextFor } from "./plugin-context";
import { RunQueue, type Mirrored } from "./run-queue";
import { SocketHub } from "./sockets";
import { SpendGuard } from "./spend";
import { StepZero } from "./step-zero";
import { RoomStore, type ThreadRecord } from "./store";
import { ThreadWriter } from "./writer";

export interface RoomParts {
  config: Config;
  store: RoomStore;
  d1Usage: D1Usage;
  /** Tests: `down` makes every D1 round trip of this object fail; `delayMs` slows each. */
  d1Faults: { down: boolean; delayMs: number };
  db: Db;
  logger: Logger;
  clock: MonotonicClock;
  writer: ThreadWriter;
  alarms: Alarms;
  mirror: Mirror;
  stepZero: StepZero;
  spend: SpendGuard;
  events: Broadcaster;
  plugins: PluginHost;
  view: ModelView;
  model: ModelPort;
  queue: RunQueue;
  sockets: SocketHub;
  intake: Intake;
}

export function buildParts(ctx: DurableObjectState, env: Env, afterRun: () => Promise<Mirrored>): RoomParts {
  const config = configOf(env);
  const store = new RoomStore(ctx.storage);
  const d1Usage = newUsage();
  const d1Faults = { down: false, delayMs: 0 };
  const db = database(env, d1Usage, d1Faults);
  const logger = consoleLogger("room");
  const clock = new MonotonicClock();
  const writer = new ThreadWriter(store, clock);
  const alarms = new Alarms(ctx.storage);
  const mirror = new Mirror(store.outbox, db.$client, alarms, logger);
  const stepZero = new StepZero(store.cache, db, config, logger);
  const spend = new SpendGuard(store.cache, db, config, logger);
  const view = new ModelView(store);
  const invoker = createInvoker(env, config);
  const model: ModelPort = {
    offline: providerOf(env) === "offline",
    ask: (req) => invoker.ask(req),
    offers: async (id) => (await deploymentModels(env, config)).some((m) => m.id === id),
  };
  const thread = (): ThreadRecord => {
    const t = store.thread.get();
    if (!t) throw new Error("This object has no thread");
    return t;
  };
  // The broadcaster's observers and the plugins' contexts reach parts built after them: `parts` is
  // complete before any event or hook can run.
  const parts = {} as RoomParts;
  const events = new Broadcaster(store.replay, () => thread().id, () => ctx.getWebSockets(), (frame) => void parts.plugins.notify("onBroadcast", frame));
  const plugins = new PluginHost(
    PLUGINS,
    (def, settings) =>
      pluginContextFor(def, settings, {
        env,
        model,
        db,
        store,
        writer,
        clock,
        plugins: () => parts.plugins,
        contextFiles: () => stepZero.current?.contextFiles ?? [],
        sockets: () => ctx.getWebSockets(),
        accept: async (input: AcceptInput) => {
          const reply = parts.intake.accept(thread(), input);
          if (!reply.ok) throw new Error(reply.error.message);
          return reply.value.message;
        },
        emit: <K extends EventName>(event: K, data: EventMap[K]) => events.emit(event, data),
      }),
    logger,
    config.hookTimeoutMs,
  );
  const calibration = new Calibration(store.cache);
  const pipeline = { store, calibration, files: new FileBlocks(env.FILES, store.files), writer, plugins, invoker, view, stepZero, spend, events, logger, config };
  const queue = new RunQueue({ pipeline, alarms, d1: d1Usage, afterRun, waitUntil: (p) => ctx.waitUntil(p) });
  const sockets = new SocketHub(ctx, store, events, () => queue.running?.runId ?? null);
  const intake = new Intake({ store, writer, events, queue, mirror, config, clock, waitUntil: (p) => ctx.waitUntil(p) });
  return Object.assign(parts, { config, store, d1Usage, d1Faults, db, logger, clock, writer, alarms, mirror, stepZero, spend, events, plugins, view, model, queue, sockets, intake });
}
