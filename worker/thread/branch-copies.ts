// The current branch as it leaves the thread whole: an export (its text, the artifacts at their
// latest), and a share's copy (its text, thinking and tool messages, the artifacts, and the files sent
// in it, which the share copies). Both are read from the store as it is at that moment.
import { MEMORY_TOOL, type Artifact, type Message, type Thread } from "../../protocol";
import type { FileRecord, RoomStore, ThreadRecord } from "./store";
import { sharedArtifacts, sharedMessages } from "./shared-branch";
import { publicThread } from "./store/thread-row";

export interface BranchExport {
  thread: Thread;
  messages: Message[];
  artifacts: Artifact[];
}

export interface BranchSnapshot {
  name: string;
  messages: Message[];
  artifacts: Artifact[];
  files: FileRecord[];
}

const ALL = 1_000_000;

export class BranchCopies {
  constructor(private readonly store: RoomStore) {}

  export(t: ThreadRecord): BranchExport {
    const messages = this.store.messages.listBranch(t.headId, { limit: ALL, kinds: ["text"] }) ?? [];
    return { thread: publicThread(t), messages, artifacts: this.artifacts(t) };
  }

  /**
   * What a reader of the share sees: the memory tool's calls and results are left out (they show the
   * owner's notes, from every thread), and nothing names the owner's threads (shared-branch.ts).
   */
  snapshot(t: ThreadRecord, shareId: string): BranchSnapshot {
    const branch = (this.store.messages.listBranch(t.headId, { limit: ALL, kinds: ["text", "thinking", "tool_call", "tool_result"] }) ?? []).filter(
      (m) => m.metadata.toolName !== MEMORY_TOOL,
    );
    const messages = sharedMessages(branch, shareId);
    const files = messages.flatMap((m) => m.attachments ?? []).flatMap((a) => this.store.files.get(a.id) ?? []);
    return { name: t.name, messages, artifacts: sharedArtifacts(this.artifacts(t)), files };
  }

  /** The branch's artifacts at their latest version there, with their content. */
  private artifacts(t: ThreadRecord): Artifact[] {
    return this.store.artifacts.list(t.headId).map((a) => this.store.artifacts.get(t.headId, a.id)!);
  }
}
