// What a share's readers get of the branch: the conversation and nothing of the system. Its messages
// and their files name the share, not the thread; no message lists its siblings (other branches), and
// the metadata that names other things of the owner (a task, the thread a notification came from, a
// schedule, the answer a regeneration replaced) is left out. A thread's or a task's id in any text (a
// task's notification names both, a tool's result may) becomes a mark saying one was there.
import type { Artifact, Message, MessageMetadata } from "../../protocol";

/** Metadata that names something of the owner's outside the conversation. */
const SYSTEM_KEYS = ["taskId", "sourceThreadId", "scheduleId", "regenerates"] as const satisfies readonly (keyof MessageMetadata)[];

/** A thread's or a task's id as ids.ts makes them (the prefix, 9 characters of time, 10 random). */
const OWNER_ID = /\b(thr|task)_[0-9a-z]{19}\b/g;
const MARKS: Record<string, string> = { thr: "[a thread]", task: "[a task]" };

export function sharedMessages(messages: Message[], shareId: string): Message[] {
  return messages.map(({ siblings: _siblings, ...m }) => {
    const metadata = { ...m.metadata };
    for (const key of SYSTEM_KEYS) delete metadata[key];
    return unnamed({
      ...m,
      threadId: shareId,
      clientMessageId: null,
      metadata,
      ...(m.attachments ? { attachments: m.attachments.map((a) => ({ ...a, threadId: shareId })) } : {}),
    });
  });
}

export const sharedArtifacts = (artifacts: Artifact[]): Artifact[] => artifacts.map(unnamed);

/** `value` with every thread's and task's id in its strings (its keys' too) replaced by a mark. */
function unnamed<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(OWNER_ID, (_id, kind: string) => MARKS[kind])) as T;
}
