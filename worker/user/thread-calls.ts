// What the user's object asks of its threads' objects (it imports none of their code): drop their copy
// of step 0's inputs (the user's files or project changed), and leave a deleted project. Sent after the
// answer; a thread that misses one reads again once its copy is old (STEP0_MAX_AGE_MS), or on its next change.
import type { Env } from "../env";
import { placed } from "../lib/placement";

type ThreadObjects = DurableObjectNamespace<Rpc.DurableObjectBranded & { invalidate(): Promise<void>; leaveProject(projectId: string): Promise<void> }>;

export interface ThreadCalls {
  invalidate(threadIds: string[]): void;
  leaveProject(threadIds: string[], projectId: string): void;
}

export function threadCalls(env: Env, waitUntil: (p: Promise<unknown>) => void): ThreadCalls {
  const threads = placed(env, env.THREAD_ROOM as ThreadObjects);
  const each = (ids: string[], call: (room: ReturnType<ThreadObjects["get"]>) => Promise<void>) =>
    waitUntil(Promise.allSettled(ids.map((id) => call(threads.get(threads.idFromName(id))))));
  return {
    invalidate: (ids) => each(ids, (room) => room.invalidate()),
    leaveProject: (ids, projectId) => each(ids, (room) => room.leaveProject(projectId)),
  };
}
