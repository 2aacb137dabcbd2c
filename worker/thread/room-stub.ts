import type { Env } from "../env";
import { placed } from "../lib/placement";
import type { ThreadRoom } from "./room";

/** The RPC surface of a thread's object. */
export type RoomApi = Pick<
  ThreadRoom,
  | "create"
  | "get"
  | "patch"
  | "messages"
  | "exportBranch"
  | "artifacts"
  | "produced"
  | "producedFile"
  | "snapshot"
  | "addFile"
  | "file"
  | "post"
  | "accept"
  | "ask"
  | "edit"
  | "regenerate"
  | "setHead"
  | "stop"
  | "prewarm"
  | "startResearch"
  | "acceptResearchPlan"
  | "stopResearch"
  | "research"
  | "schedules"
  | "createSchedule"
  | "updateSchedule"
  | "deleteSchedule"
  | "cancelTask"
  | "broadcastEvent"
  | "invalidate"
  | "destroy"
  | "decide"
  | "issueTicket"
  | "fetch"
>;

/**
 * The thread's object: one per thread id, wherever it is asked for (the Worker, another thread).
 * env.ts names the namespace without importing the class (which would tie every module into one
 * import circle); the class is named here. The answer is typed with the class's own signatures, to
 * which the RPC stub is assignable: its typings turn a value they cannot prove serializable (our
 * JSON metadata, typed `unknown`) into `never`, which callers could not read.
 */
export function roomStub(env: Env, threadId: string, hint?: DurableObjectLocationHint): RoomApi {
  const rooms = placed(env, env.THREAD_ROOM as DurableObjectNamespace<ThreadRoom>);
  return rooms.get(rooms.idFromName(threadId), hint ? { locationHint: hint } : undefined);
}
