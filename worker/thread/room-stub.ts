import type { Env } from "../env";
import type { ThreadRoom } from "./room";

/** The RPC surface of a thread's object. */
export type RoomApi = Pick<
  ThreadRoom,
  "accept" | "stop" | "cancelTask" | "replayCursor" | "threadChanged" | "broadcastEvent" | "prewarm" | "destroy" | "fetch"
>;

/**
 * The thread's object: one per thread id, wherever it is asked for (the Worker, another thread).
 * Typed with the class's own signatures: RPC's typings turn a value they cannot prove serializable
 * (our JSON metadata, typed `unknown`) into `never`, though every value crossing is plain JSON.
 */
export function roomStub(env: Env, threadId: string): RoomApi {
  return env.THREAD_ROOM.get(env.THREAD_ROOM.idFromName(threadId)) as unknown as RoomApi;
}
