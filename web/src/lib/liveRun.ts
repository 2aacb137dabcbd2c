// One run as this page saw it over the socket (its steps, its thinking and tool blocks, its text,
// web activity and code runs), and how its stream events fold into it. ChatState (chatState.ts) holds them.

import { applyCodeEvent, applyCodeOutput, isCodeTool, type CodeOutput, type CodeRunView, type DocumentCitation, type EventMap, type Usage } from "@protocol";
import { applyDocumentCitations } from "./projectKnowledge";
import { addInput, changeInput, type ToolInput } from "./toolInputs";
import { applyWebEvent, NO_WEB, type WebView } from "./webActivity";

type PipelineError = EventMap["pipeline:error"];
type StreamData = EventMap["pipeline:stream"];

export interface RunStep {
  step: string;
  detail?: string;
  at: number;
}

export type RunBlock =
  | { kind: "thinking"; key: string; text: string }
  | { kind: "tool_call"; key: string; toolUseId: string; toolName: string; input: unknown }
  | { kind: "tool_result"; key: string; toolUseId: string; content: string; isError: boolean };

/** A new container where the thread had one: the last had expired, or is another branch's. */
export type ContainerNotice = { status: "expired" } | { status: "new"; reason: "branch" };

/** code:container as the thread shows it: only a container that is not the one its code expects. */
export function containerNotice(data: EventMap["code:container"]): ContainerNotice | null {
  if (data.status === "expired") return { status: "expired" };
  if (data.status === "new" && data.reason === "branch") return { status: "new", reason: "branch" };
  return null;
}

/** A run seen (at least partly) over the socket during this page's life. */
export interface LiveRun {
  runId: string;
  /** The user message this run answers; null when the run was joined mid-way. */
  messageId: string | null;
  status: "running" | "complete" | "error";
  steps: RunStep[];
  /** Thinking blocks and tool activity, in stream order. */
  blocks: RunBlock[];
  /** All text deltas so far, across tool turns. */
  text: string;
  /** Web searches and fetches (search cards) and the citations of the text. */
  web: WebView;
  /** The project passages the text cites (citation chips): the citations whose url is knowledge:…. */
  documents: readonly DocumentCitation[];
  /** Code runs (code cards): their code as it is written, then their output and files (code:output). */
  code: CodeRunView[];
  /** The code execution container the run used, when the thread should hear of it (code:container). */
  container?: ContainerNotice;
  /**
   * Tool calls whose input is streaming or whose tool runs, in stream order: each leaves with its
   * result, with the artifact it wrote (artifact:updated), or with the run's end.
   */
  inputs: ToolInput[];
  /** The artifact each of this run's tool calls wrote, by tool use id (what a preview became). */
  wrote: Readonly<Record<string, string>>;
  model?: string;
  usage?: Usage;
  durationMs?: number;
  commandsHandled?: string[];
  error?: Omit<PipelineError, "threadId" | "runId">;
  startedAt: number;
}

/** A run as it starts; one joined mid-way (`messageId` null) learns what it answers from pipeline:start. */
export function newRun(runId: string, messageId: string | null, at: number): LiveRun {
  return { runId, messageId, status: "running", steps: [], blocks: [], text: "", web: NO_WEB, documents: [], code: [], inputs: [], wrote: {}, startedAt: at };
}

const withBlock = (run: LiveRun, block: RunBlock): LiveRun => ({ ...run, blocks: [...run.blocks, block] });

/** The run with `toolUseId`'s streaming input changed by `change` (or gone, when it answers null). */
const withInput = (run: LiveRun, toolUseId: string, change: (input: ToolInput) => ToolInput | null): LiveRun => ({
  ...run,
  inputs: changeInput(run.inputs, toolUseId, change),
});

/**
 * An artifact was written: by the tool call of `run` that is running, the first whose call came and
 * whose result has not (a response's calls run one after another, in order, once it is whole, and a
 * write is announced before its result). That call's input leaves: the artifact it became replaces
 * its preview.
 */
export function artifactWritten(run: LiveRun, artifactId: string): LiveRun {
  const done = new Set(run.blocks.flatMap((b) => (b.kind === "tool_result" ? [b.toolUseId] : [])));
  const call = run.blocks.find((b) => b.kind === "tool_call" && !done.has(b.toolUseId));
  if (call?.kind !== "tool_call") return run;
  return withInput({ ...run, wrote: { ...run.wrote, [call.toolUseId]: artifactId } }, call.toolUseId, () => null);
}

/** One pipeline:stream event folded into its run; `key` names the block it starts, if it starts one. */
export function applyStream(run: LiveRun, data: StreamData, key: string): LiveRun {
  switch (data.type) {
    case "text":
      return { ...run, text: run.text + data.delta };
    case "tool_input":
      // A code run's input is its card's, not an artifact's preview.
      if (isCodeTool(data.toolName)) return { ...run, code: applyCodeEvent(run.code, data) };
      return { ...run, inputs: addInput(run.inputs, data) };
    case "thinking": {
      const last = run.blocks[run.blocks.length - 1];
      if (last?.kind === "thinking") {
        const blocks = run.blocks.slice(0, -1);
        blocks.push({ ...last, text: last.text + data.delta });
        return { ...run, blocks };
      }
      return withBlock(run, { kind: "thinking", key, text: data.delta });
    }
    case "tool_call":
      return withBlock(withInput(run, data.toolUseId, (i) => ({ ...i, complete: true })), { kind: "tool_call", key, toolUseId: data.toolUseId, toolName: data.toolName, input: data.input });
    case "tool_result":
      return withBlock(withInput(run, data.toolUseId, () => null), { kind: "tool_result", key, toolUseId: data.toolUseId, content: data.content, isError: data.isError });
    case "server_tool_call":
      if (isCodeTool(data.toolName)) return { ...run, code: applyCodeEvent(run.code, data) };
      return { ...run, web: applyWebEvent(run.web, data) };
    case "server_tool_result":
      return { ...run, web: applyWebEvent(run.web, data) };
    case "citations":
      // The web's sources are numbered in the text; a project's passages are chips under it.
      return { ...run, web: applyWebEvent(run.web, data), documents: applyDocumentCitations(run.documents, data.citations) };
    default:
      return run;
  }
}

/** A code run's output (code:output) folded into its run: its card shows it, and its files. */
export const applyCodeResult = (run: LiveRun, out: CodeOutput): LiveRun => ({ ...run, code: applyCodeOutput(run.code, out) });
