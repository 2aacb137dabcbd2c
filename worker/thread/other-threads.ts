// The owner's other threads, as a thread's plugins reach them (a task's thread, the thread that
// delegated it): each by RPC to its own object. Their methods are named by a structural type, which
// ThreadRoom implements, so nothing here imports the room's code.
import type { EventMap, EventName, Message, Thread } from "../../protocol";
import type { Env } from "../env";
import { placed } from "../lib/placement";
import type { AcceptInput, Accepted } from "./intake";
import type { Caller, RoomReply } from "./room-reply";
import type { ListQuery } from "./store";
import type { ThreadInit } from "./store/thread-row";

/** What a thread's object answers another thread's plugins. */
export interface OtherThread {
  /** A message from another thread's object or a plugin: stored and queued (the spend cap if it runs). */
  accept(who: Caller, input: AcceptInput): Promise<Accepted>;
  /** Broadcasts on this thread for another thread's object (task events, notifications). */
  broadcastEvent<K extends EventName>(who: Caller, event: K, data: EventMap[K]): Promise<RoomReply<null>>;
  create(who: Caller, init: ThreadInit): Promise<RoomReply<Thread>>;
  /** The current branch's messages (a research reads what its tasks' answers found). */
  messages(who: Caller, q: ListQuery): Promise<RoomReply<{ messages: Message[]; lastSeq: number }>>;
  /** A task of this thread is cancelled (its run stops; the delegation ends the task). */
  cancelTask(who: Caller, taskId: string): Promise<RoomReply<null>>;
}

/** The object of a thread, by its id. */
export function otherThreads(env: Env): (threadId: string) => OtherThread {
  const rooms = placed(env, env.THREAD_ROOM as DurableObjectNamespace<Rpc.DurableObjectBranded & OtherThread>);
  return (threadId) => rooms.get(rooms.idFromName(threadId));
}
