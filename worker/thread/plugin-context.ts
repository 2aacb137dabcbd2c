import type { Db } from "../db/client";
import type { Env } from "../env";
import { consoleLogger } from "../lib/logger";
import type { Logger, PluginContext, PluginDefinition, SendOptions } from "../plugins/contract";
import type { PluginHost } from "../plugins/registry";
import { runNotify, runValidate } from "../plugins/runners";
import type { AcceptInput, AcceptResult } from "./room";
import { roomStub } from "./room-stub";

/** What a thread object lends its plugins. */
export interface RoomHost {
  env: Env;
  db: Db;
  plugins: PluginHost;
  logger: Logger;
  threadId(): string | null;
  sockets(): WebSocket[];
  accept(input: AcceptInput): Promise<AcceptResult>;
  emit(event: string, data: Record<string, unknown>): void;
  now(): number;
}

/** A plugin's context in one thread object; other threads are reached through their objects. */
export function pluginContextFor(
  def: PluginDefinition<any>,
  settings: () => Record<string, unknown>,
  host: RoomHost,
): PluginContext<any> {
  const { env, logger } = host;
  const hooks = <K extends Parameters<PluginHost["entries"]>[0]>(name: K) => host.plugins.entries(name); // the host is still being built here
  const local = (threadId: string) => threadId === host.threadId();
  return {
    name: def.name,
    env,
    db: host.db,
    logger: consoleLogger(`plugin:${def.name}`),
    get settings() {
      return settings();
    },
    room: { threadId: host.threadId, sockets: host.sockets },
    now: host.now,
    async sendToThread(threadId: string, content: string, options: SendOptions = {}) {
      const input: AcceptInput = { threadId, content, ...options, source: options.source ?? def.name };
      const result = local(threadId) ? await host.accept(input) : await roomStub(env, threadId).accept(input);
      if (!result.ok) throw new Error(`thread ${threadId} has ${result.queued} messages waiting; try later`);
      return result.message;
    },
    async broadcast(threadId: string, event: string, data: Record<string, unknown>) {
      if (local(threadId)) host.emit(event, data);
      else await roomStub(env, threadId).broadcastEvent(threadId, event, data);
    },
    tasks: {
      created: async (task) => runNotify(hooks("onTaskCreate"), "onTaskCreate", [task], logger),
      validate: (task, result) => runValidate(hooks("onTaskComplete"), "onTaskComplete", [task, result], logger),
      failed: async (task, reason) => runNotify(hooks("onTaskFailed"), "onTaskFailed", [task, reason], logger),
    },
  };
}
