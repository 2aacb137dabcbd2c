// The current branch as it leaves the thread whole: an export (its text, the artifacts at their
// latest, the files its code wrote), and a share's copy (its text, thinking and tool messages, the
// artifacts, and the files sent in it, which the share points to; the files its code wrote too, where
// the owner chooses). Both are read from the store as it is at that moment.
import { MEMORY_TOOL, type Artifact, type CodeRun, type Message, type Thread } from "../../protocol";
import type { FileRecord, RoomStore, ThreadRecord } from "./store";
import type { ProducedRecord } from "./store/produced-files";
import { sharedArtifacts, sharedMessages } from "./shared-branch";
import { publicThread } from "./store/thread-row";

export interface BranchExport {
  thread: Thread;
  messages: Message[];
  artifacts: Artifact[];
  /** The files the branch's code runs wrote (where their bytes are, for an export that holds them). */
  files: ProducedRecord[];
}

export interface BranchSnapshot {
  name: string;
  messages: Message[];
  artifacts: Artifact[];
  /** The files the share points to: those sent in the branch, and the ones its code wrote where chosen. */
  files: (FileRecord | ProducedRecord)[];
}

const ALL = 1_000_000;

export class BranchCopies {
  constructor(private readonly store: RoomStore) {}

  export(t: ThreadRecord): BranchExport {
    const messages = this.store.messages.listBranch(t.headId, { limit: ALL, kinds: ["text"] }) ?? [];
    return { thread: publicThread(t), messages, artifacts: this.artifacts(t), files: this.produced(messages) };
  }

  /**
   * What a reader of the share sees: the memory tool's calls and results are left out (they show the
   * owner's notes, from every thread), and nothing names the owner's threads (shared-branch.ts).
   */
  snapshot(t: ThreadRecord, shareId: string, withCodeFiles = false): BranchSnapshot {
    const branch = (this.store.messages.listBranch(t.headId, { limit: ALL, kinds: ["text", "thinking", "tool_call", "tool_result"] }) ?? []).filter(
      (m) => m.metadata.toolName !== MEMORY_TOOL,
    );
    const messages = sharedMessages(withCodeFiles ? branch : branch.map(withoutCodeFiles), shareId);
    const sent = messages.flatMap((m) => m.attachments ?? []).flatMap((a) => this.store.files.get(a.id) ?? []);
    const written = withCodeFiles ? this.produced(branch) : [];
    return { name: t.name, messages, artifacts: sharedArtifacts(this.artifacts(t)), files: [...sent, ...written] };
  }

  /** The files the code runs of `messages` wrote and the thread kept. */
  private produced(messages: Message[]): ProducedRecord[] {
    const ids = messages.flatMap((m) => codeRunsOf(m).flatMap((r) => r.files.map((f) => f.id)));
    return ids.flatMap((id) => this.store.produced.get(id) ?? []);
  }

  /** The branch's artifacts at their latest version there, with their content. */
  private artifacts(t: ThreadRecord): Artifact[] {
    return this.store.artifacts.list(t.headId).map((a) => this.store.artifacts.get(t.headId, a.id)!);
  }
}

const codeRunsOf = (m: Message): CodeRun[] => m.metadata.codeRuns ?? [];

/** A message whose code runs keep their code and output, not the files they wrote (the owner did not share those). */
function withoutCodeFiles(m: Message): Message {
  const runs = codeRunsOf(m);
  if (!runs.some((r) => r.files.length)) return m;
  return { ...m, metadata: { ...m.metadata, codeRuns: runs.map((r) => ({ ...r, files: [] })) } };
}
