// What deserves a browser notification (lib/notifications.ts shows them): learnt from what the app
// already hears, the open thread's socket (a scheduled run's end, a delegated task's verdict) and the
// thread list's refresh (another thread's activity moved on). Whether the user turned them on.

import type { EventFrame, Schedule, Task, Thread } from "@protocol";
import { createStore } from "./store";
import type { ListedThread } from "./unread";

export interface Notice {
  title: string;
  body: string;
  /** The same tag replaces a notice still shown (a task heard of twice says it once). */
  tag: string;
  threadId: string;
}

/** Whether this user turned notifications on (the session sets it from their storage). */
export const notificationsOn = createStore(false);

export type Permission = NotificationPermission | "unsupported";

export function permission(): Permission {
  return typeof Notification === "undefined" ? "unsupported" : Notification.permission;
}

const clip = (text: string, max = 120) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function taskNotice(task: Task): Notice {
  const failed = task.status === "failed";
  return { title: failed ? "A delegated task failed" : "A delegated task finished", body: clip(task.prompt || task.id), tag: `thread:${task.threadId}`, threadId: task.threadId };
}

/**
 * The open thread's socket, heard for what deserves a notice: the end of a run a schedule started
 * (its message came with source "schedule"), and a task this thread delegated ending.
 */
export class RunNotices {
  /** Scheduled messages seen → their schedule's name. */
  readonly #scheduled = new Map<string, string>();
  /** Runs of scheduled messages → their schedule's name. */
  readonly #runs = new Map<string, string>();

  constructor(private readonly threadName: () => string) {}

  onFrame(frame: EventFrame): Notice | null {
    switch (frame.event) {
      case "chat:message": {
        const m = frame.data.message;
        if (m.source === "schedule" && m.role === "user") this.#scheduled.set(m.id, m.metadata.scheduleName ?? "Schedule");
        return null;
      }
      case "pipeline:start": {
        const name = this.#scheduled.get(frame.data.messageId);
        if (name !== undefined) this.#runs.set(frame.data.runId, name);
        return null;
      }
      case "pipeline:complete":
      case "pipeline:error": {
        const name = this.#runs.get(frame.data.runId);
        if (name === undefined) return null;
        this.#runs.delete(frame.data.runId);
        const ok = frame.event === "pipeline:complete";
        return {
          title: ok ? `Scheduled run finished: ${name}` : `Scheduled run failed: ${name}`,
          body: ok ? this.threadName() : clip(`${this.threadName()}: ${frame.data.message}`),
          tag: `run:${frame.data.runId}`,
          threadId: frame.data.threadId,
        };
      }
      case "tool:approval":
        return approvalNotice(frame.data.toolName, this.threadName(), frame.data.threadId, frame.data.toolUseId);
      case "task:validated":
      case "task:failed": {
        const { task, threadId } = frame.data;
        // On the parent's socket: a task it delegated (a task thread's own socket is not news).
        return task.threadId !== threadId ? taskNotice(task) : null;
      }
      default:
        return null;
    }
  }
}

/** A tool call waits for the user: the run stands still until they answer. */
function approvalNotice(toolName: string, threadName: string, threadId: string, toolUseId: string): Notice {
  return { title: "A tool call waits for your approval", body: clip(`${toolName} in ${threadName}`), tag: `approval:${toolUseId}`, threadId };
}

/**
 * A thread other than the open one moved on between two list refreshes: a notice when one of its
 * tool calls now waits for approval, when it is a delegated task's thread that ended, a scheduled
 * thread, or a thread one of whose schedules fired since (`schedules`: the user's, when known).
 */
export function listNotice(thread: Thread, was: ListedThread, schedules: Schedule[] | undefined): Notice | null {
  const waiting = thread.pendingApprovals ?? [];
  if (waiting.length > was.waiting) {
    const newest = waiting[waiting.length - 1];
    return approvalNotice(newest.toolName, thread.name, thread.id, newest.toolUseId);
  }
  const ended = thread.status === "completed" || thread.status === "failed";
  if (thread.kind === "task") {
    if (!ended || was.status === thread.status) return null;
    return { title: thread.status === "failed" ? "A delegated task failed" : "A delegated task finished", body: clip(thread.name), tag: `thread:${thread.id}`, threadId: thread.id };
  }
  if (thread.lastActivity <= was.lastActivity) return null;
  const fired = schedules?.find((s) => s.threadId === thread.id && s.lastRunAt !== null && s.lastRunAt >= was.lastActivity);
  if (!fired && thread.kind !== "cron") return null;
  return {
    title: fired ? `Scheduled run: ${fired.name}` : "Scheduled thread",
    body: `New in ${clip(thread.name)}`,
    tag: `thread:${thread.id}:${thread.lastActivity}`,
    threadId: thread.id,
  };
}
