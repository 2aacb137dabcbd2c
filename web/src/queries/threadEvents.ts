import type { EventFrame } from "@protocol";
import type { QueryClient } from "@tanstack/react-query";
import { cacheApprovalEvent } from "./approvals";
import { cacheArtifactEvent } from "./artifacts";
import { contextChanged } from "./contextFiles";
import { cacheResearchEvent } from "./research";
import { schedulesChanged } from "./schedules";
import { putTask } from "./tasks";
import { putThread, threadKeys, touchThread } from "./threads";

/**
 * What a thread's socket events change beyond the chat itself: the thread, the thread lists, tasks
 * (with their verdicts), the context files (which the model's memory tool writes), the schedules
 * (a fire moves a schedule's next time; the run's end sets its last status), the artifacts, the
 * tool calls waiting for the user's approval, the research started in the thread.
 */
export function cacheThreadEvent(qc: QueryClient, frame: EventFrame): void {
  cacheArtifactEvent(qc, frame);
  cacheApprovalEvent(qc, frame);
  cacheResearchEvent(qc, frame);
  switch (frame.event) {
    case "chat:message":
      touchThread(qc, frame.data.threadId, frame.data.message.createdAt);
      break;
    case "thread:updated":
      putThread(qc, frame.data.thread);
      break;
    case "thread:notification":
      // The notifying task thread's status changed: the list shows it.
      void qc.invalidateQueries({ queryKey: threadKeys.all });
      break;
    case "task:created":
    case "task:evaluated":
    case "task:validated":
    case "task:failed":
      putTask(qc, frame.data.task);
      // A new task thread, or a task thread that changed status.
      void qc.invalidateQueries({ queryKey: threadKeys.all });
      break;
    case "task:stream":
    case "task:progress":
    case "task:checkin":
      putTask(qc, frame.data.task);
      break;
    case "schedule:fired":
    case "pipeline:complete":
    case "pipeline:error":
      schedulesChanged(qc);
      break;
    case "context:changed":
      contextChanged(qc);
      break;
  }
}
