// What a thread object lends each plugin: its own thread (the store, the sockets) and a way to reach
// other threads of the same owner, whose objects are called by RPC.
import type { EventMap, EventName, Message, Thread } from "../../protocol";
import { configOf, type Config, type Env } from "../env";
import { contextQuotaOf, type ContextQuota } from "../lib/context-quota";
import { deploymentModels, providerOf } from "../invoker/client";
import type { Invoker } from "../invoker/invoke";
import { consoleLogger } from "../lib/logger";
import { newId } from "../lib/ids";
import type { ModelPort, NewMessage, NewThread, PluginContext, PluginDefinition, SendOptions, ThreadPort } from "../plugins/contract";
import type { ArtifactCall, ArtifactPort, OwnerPort, SchedulePort } from "../plugins/ports";
import type { ArtifactResult } from "./store/artifacts";
import type { PluginHost } from "../plugins/host";
import type { Broadcaster } from "./broadcaster";
import type { AcceptInput, Intake } from "./intake";
import type { OtherThread } from "./other-threads";
import { unwrap } from "./room-reply";
import { scheduleCreate, type Scheduler } from "./scheduler";
import type { StepZero } from "./run/step-zero";
import type { RoomStore } from "./store";
import { messageRecord } from "./store/messages";
import { publicThread } from "./store/thread-row";
import type { ThreadWriter } from "./writer";
import type { ResearchDriver } from "./research";
import type { UserApi } from "../user/stub";

/** The parts of a thread object its plugins reach through their contexts. */
export interface PluginRoom {
  env: Env;
  ctx: DurableObjectState;
  model: ModelPort;
  /** The owner's object (a test can take it away). */
  user(ownerId: string): UserApi;
  /** Another thread's object, by its id. */
  thread(threadId: string): OtherThread;
  store: RoomStore;
  writer: ThreadWriter;
  events: Broadcaster;
  stepZero: StepZero;
  intake: Intake;
  scheduler: Scheduler;
  research: ResearchDriver;
}

/** The plugin's view of its own thread; what it adds is stored with the plugin's name as source. */
function threadPort(room: PluginRoom, source: string): ThreadPort {
  const { store, writer } = room;
  return {
    id: () => store.thread.get()?.id ?? null,
    get: () => {
      const t = store.thread.get();
      return t ? { ...publicThread(t), ownerId: t.ownerId, named: t.named } : null;
    },
    setStatus: (status) => room.events.threadUpdated(writer.updateThread({ status })),
    rename: (name) => room.events.threadUpdated(writer.updateThread({ name })),
    addMessage(m: NewMessage): Message {
      const t = store.thread.get()!;
      const now = m.createdAt ?? room.writer.clock.now();
      const { parentId = t.headId, ...fields } = m;
      return writer.addMessage(messageRecord({ ...fields, threadId: t.id, source, parentId, createdAt: now }));
    },
    history(beforeMessageId, limit) {
      const message = store.messages.get(beforeMessageId);
      const texts: Pick<Message, "role" | "content">[] = [];
      for (const input of store.messages.path(message?.parentId ?? null)) {
        if (input.kind === "text") texts.push({ role: input.role, content: input.content });
        for (const m of store.messages.ofExchange(input.id)) {
          if (m.kind === "text") texts.push({ role: m.role, content: m.content });
        }
      }
      return limit > 0 ? texts.slice(-limit) : [];
    },
    contextFiles: () => room.stepZero.current?.contextFiles ?? [],
    project: () => room.stepZero.current?.project ?? null,
    usage: (row) => writer.usage(row),
    sockets: () => room.ctx.getWebSockets(),
    schedules: schedulePort(room),
    artifacts: artifactPort(room),
    research: {
      start: (question) => {
        const t = room.store.thread.get()!;
        const started = room.research.start(t, { question }, source);
        return started.ok ? { ok: true, research: started.value } : { ok: false, reason: started.error.message };
      },
    },
  };
}

/** The thread's artifacts for its plugins: each write announced (artifact:updated, without content). */
function artifactPort(room: PluginRoom): ArtifactPort {
  const { store, events } = room;
  const announced = (call: ArtifactCall, result: ArtifactResult): ArtifactResult => {
    if (result.ok) events.emit("artifact:updated", { threadId: call.threadId, runId: call.runId, artifact: result.artifact });
    return result;
  };
  return {
    create: (call, artifact) => announced(call, store.artifacts.create(artifact, call.messageId, call.runId, Date.now())),
    update: (call, id, edit) => announced(call, store.artifacts.update(id, edit, call.messageId, call.runId, Date.now())),
    list: () => store.artifacts.list(store.thread.get()?.headId ?? null),
  };
}

/** The thread's schedules for its plugins: the routes' checks (the body's, then the scheduler's). */
function schedulePort(room: PluginRoom): SchedulePort {
  const thread = () => room.store.thread.get()!;
  return {
    async create(body) {
      const parsed = scheduleCreate.safeParse(body);
      if (!parsed.success) return { ok: false, reason: parsed.error.issues.map((i) => `${i.path.join(".") || "schedule"}: ${i.message}`).join("; ") };
      const made = await room.scheduler.create(thread(), parsed.data);
      return made.ok ? { ok: true, schedule: made.value } : { ok: false, reason: made.error.message };
    },
    list: () => room.scheduler.list(),
    cancel: async (id) => (await room.scheduler.remove(id)).ok,
    settle: (id, status) => room.scheduler.settle(id, status),
  };
}

export function pluginContextFor(def: PluginDefinition<any>, settings: () => Record<string, unknown>, host: PluginHost, room: PluginRoom): PluginContext<any> {
  const { env, store } = room;
  const local = (threadId: string) => threadId === store.thread.get()?.id;
  const owner = () => store.thread.get()!.ownerId;
  return {
    name: def.name,
    env,
    owner: ownerPort(() => room.user(owner()), contextQuotaOf(configOf(env))),
    logger: consoleLogger(`plugin:${def.name}`),
    get settings() {
      return settings();
    },
    thread: threadPort(room, def.name),
    now: () => room.writer.clock.now(),
    model: room.model,
    async sendToThread(threadId: string, content: string, options: SendOptions = {}) {
      const input: AcceptInput = { content, ...options, source: options.source ?? def.name };
      if (local(threadId)) return unwrap(room.intake.accept(room.store.thread.get()!, input)).message;
      return unwrap(await room.thread(threadId).accept({ threadId, userId: owner() }, input)).message;
    },
    async broadcast<K extends EventName>(threadId: string, event: K, data: EventMap[K]) {
      if (local(threadId)) room.events.emit(event, data);
      else await room.thread(threadId).broadcastEvent({ threadId, userId: owner() }, event, data);
    },
    async createThread(t: NewThread): Promise<Thread> {
      const { id = newId("thr"), ...init } = t;
      return unwrap(await room.thread(id).create({ threadId: id, userId: t.ownerId }, init));
    },
    tasks: {
      created: async (task) => host.notify("onTaskCreate", task),
      validate: (task, result) => host.validate("onTaskComplete", task, result),
      failed: async (task, reason) => host.notify("onTaskFailed", task, reason),
    },
  };
}

/** The model, as plugins ask it (titles, the validator): one short request, or whether a model is offered. */
export function modelPort(env: Env, config: Config, invoker: Invoker): ModelPort {
  return {
    offline: providerOf(env) === "offline",
    ask: (req) => invoker.ask(req),
    offers: async (id) => (await deploymentModels(env, config)).some((m) => m.id === id),
  };
}

/** The owner's object, bound to the owner: the plugin names no user. */
function ownerPort(user: () => UserApi, quota: ContextQuota): OwnerPort {
  return {
    files: {
      under: (prefix) => user().contextFilesUnder(prefix),
      get: (path) => user().contextFile(path),
      put: (path, content) => user().putContextFile(path, content, quota),
      remove: (paths) => user().deleteContextFiles(paths),
    },
    tasks: {
      create: (row, bounds) => user().createTask(row, bounds),
      get: (id) => user().task(id),
      ofThread: (threadId) => user().taskOfThread(threadId),
      update: (id, patch) => user().updateTask(id, patch),
    },
  };
}
