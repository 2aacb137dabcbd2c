import type { Env } from "../env";

/** The thread's object: one per thread id, wherever it is asked for (the Worker, another thread). */
export function roomStub(env: Env, threadId: string) {
  return env.THREAD_ROOM.get(env.THREAD_ROOM.idFromName(threadId));
}
