// Turns stored messages, live runs and pending sends into the list the chat view renders.
//
// - Stored pipeline_step/status messages of a run (written by the activity plugin) fold into one
//   compact activity line; a stored pipeline_error becomes an error with a retry. A stored run's
//   messages (activity, thinking, tools, its text) are kept together where its first one is.
// - A run seen live is one group: activity line, thinking/tool blocks, then its text (streaming, or
//   the stored assistant message once it arrives). The group sits right after the user message it
//   answers, so queued messages and late arrivals do not make it jump. Stored copies of that run's
//   activity, thinking and tool messages are not shown twice.
// - Pending (unacknowledged) sends come last.

import { WEB_FETCH_TOOL, WEB_SEARCH_TOOL, type ArtifactInfo, type Message, type MessageKind, type Usage } from "@protocol";
import type { ArtifactDraft } from "./artifactDrafts";
import type { LiveRun } from "./liveRun";
import type { OutboxItem } from "./outbox";
import { answeredAgain } from "./runErrors";

export interface ActivitySummary {
  runId: string;
  status: "running" | "complete" | "error";
  steps: { step: string; detail?: string }[];
  model?: string;
  usage?: Usage;
  durationMs?: number;
  errorCode?: string;
  /** Cut short by a restart of the thread and started again (live runs). */
  restarted?: boolean;
  toolCount: number;
  /** Web searches and fetches (Anthropic's server tools), as billed, or as seen so far while live. */
  searches: number;
  fetches: number;
  /** Text characters streamed so far (live runs). */
  streamed?: number;
}

/** Server tool uses as the usage reports them (what was billed). */
const billed = (usage: Usage | undefined, tool: string) => usage?.serverToolUses?.[tool] ?? 0;

export type TimelineItem =
  | { type: "message"; key: string; message: Message }
  | { type: "activity"; key: string; activity: ActivitySummary }
  | { type: "error"; key: string; runId: string; code: string; message?: string; retryable?: boolean; retryContent: string | null }
  | { type: "run"; key: string; run: LiveRun; final: Message | null; retryContent: string | null }
  | { type: "pending"; key: string; item: OutboxItem }
  /**
   * The cards of the artifacts an exchange wrote, after it, and of those it is writing (placed by
   * artifactCards.ts, not here).
   */
  | { type: "artifacts"; key: string; artifacts: ArtifactInfo[]; drafts?: ArtifactDraft[] };

const ACTIVITY_KINDS: ReadonlySet<MessageKind> = new Set(["pipeline_step", "status"]);
const RUN_DETAIL_KINDS: ReadonlySet<MessageKind> = new Set(["pipeline_step", "status", "thinking", "tool_call", "tool_result"]);

const runIdOf = (m: Message): string | undefined => m.metadata.runId;
/** A run's own message: its activity, thinking, tools, or its answer. */
const partOfRun = (m: Message) => RUN_DETAIL_KINDS.has(m.kind) || (m.kind === "text" && m.role === "assistant");

/**
 * The messages in the order shown: a stored run's messages stay together, where its first one is (a
 * reply to a message sent while an earlier run was going is stored after that later message, but
 * belongs to its own run). Live runs' messages are left where they are: their run's group shows them.
 */
function storedRunsTogether(messages: readonly Message[], live: ReadonlySet<string>): Message[] {
  const ordered: (Message | Message[])[] = [];
  const groups = new Map<string, Message[]>();
  for (const m of messages) {
    const runId = runIdOf(m);
    if (!runId || live.has(runId) || !partOfRun(m)) {
      ordered.push(m);
      continue;
    }
    let group = groups.get(runId);
    if (!group) {
      group = [];
      groups.set(runId, group);
      ordered.push(group);
    }
    group.push(m);
  }
  return ordered.flat();
}

function summarizeStored(runId: string, messages: Message[]): ActivitySummary {
  const summary: ActivitySummary = { runId, status: "running", steps: [], toolCount: 0, searches: 0, fetches: 0 };
  for (const m of messages) {
    const meta = m.metadata;
    if (m.kind === "pipeline_step") {
      const step = meta.step ?? m.content;
      const detail = meta.detail ?? undefined;
      summary.steps.push({ step, detail });
      if (step === "invoking" && detail) summary.model = detail;
    } else if (m.kind === "status") {
      if (m.content === "pipeline_complete") summary.status = "complete";
      if (m.content === "pipeline_error") {
        summary.status = "error";
        summary.errorCode = meta.code;
      }
      if (meta.durationMs !== undefined) summary.durationMs = meta.durationMs;
      if (meta.usage) {
        summary.usage = meta.usage;
        summary.searches = billed(meta.usage, WEB_SEARCH_TOOL);
        summary.fetches = billed(meta.usage, WEB_FETCH_TOOL);
      }
    } else if (m.kind === "tool_call") {
      summary.toolCount++;
    }
  }
  return summary;
}

export function summarizeLive(run: LiveRun): ActivitySummary {
  const seen = (tool: string) => run.web.calls.filter((c) => c.toolName === tool).length;
  return {
    runId: run.runId,
    status: run.status,
    steps: run.steps.map(({ step, detail }) => ({ step, detail })),
    model: run.model,
    usage: run.usage,
    durationMs: run.durationMs,
    errorCode: run.error?.code,
    restarted: answeredAgain(run.error),
    toolCount: run.blocks.filter((b) => b.kind === "tool_call").length,
    searches: run.usage?.serverToolUses ? billed(run.usage, WEB_SEARCH_TOOL) : seen(WEB_SEARCH_TOOL),
    fetches: run.usage?.serverToolUses ? billed(run.usage, WEB_FETCH_TOOL) : seen(WEB_FETCH_TOOL),
    streamed: run.text.length,
  };
}

export function buildTimeline(
  messages: readonly Message[],
  runs: Readonly<Record<string, LiveRun>>,
  runOrder: readonly string[],
  pending: readonly OutboxItem[],
): TimelineItem[] {
  const live = new Set(runOrder);
  const byId = new Map(messages.map((m) => [m.id, m]));

  // Live runs: their final message, and where they anchor.
  const finals = new Map<string, Message>();
  const stored = new Map<string, Message[]>();
  for (const m of messages) {
    const runId = runIdOf(m);
    if (!runId) continue;
    if (live.has(runId)) {
      if (m.kind === "text" && m.role === "assistant") finals.set(runId, m);
    } else if (RUN_DETAIL_KINDS.has(m.kind)) {
      const list = stored.get(runId) ?? [];
      list.push(m);
      stored.set(runId, list);
    }
  }
  const anchored = new Map<string, LiveRun[]>();
  const loose: LiveRun[] = [];
  for (const runId of runOrder) {
    const run = runs[runId];
    if (!run) continue;
    const anchor = run.messageId ? byId.get(run.messageId) : undefined;
    if (anchor) anchored.set(anchor.id, [...(anchored.get(anchor.id) ?? []), run]);
    else loose.push(run);
  }

  const items: TimelineItem[] = [];
  const summarized = new Set<string>();
  let lastUserContent: string | null = null;

  const pushRun = (run: LiveRun) =>
    items.push({
      type: "run",
      key: `run:${run.runId}`,
      run,
      final: finals.get(run.runId) ?? null,
      retryContent: (run.messageId && byId.get(run.messageId)?.content) || lastUserContent,
    });

  for (const m of storedRunsTogether(messages, live)) {
    const runId = runIdOf(m);
    if (runId && live.has(runId) && partOfRun(m)) {
      continue; // shown inside the live run's group
    }
    if (runId && ACTIVITY_KINDS.has(m.kind)) {
      if (!summarized.has(runId)) {
        summarized.add(runId);
        items.push({ type: "activity", key: `activity:${runId}`, activity: summarizeStored(runId, stored.get(runId) ?? []) });
      }
      if (m.kind === "status" && m.content === "pipeline_error") {
        const { code = "internal", message, retryable } = m.metadata;
        items.push({
          type: "error",
          key: `error:${m.id}`,
          runId,
          code,
          message: typeof message === "string" ? message : undefined,
          retryable: typeof retryable === "boolean" ? retryable : undefined,
          retryContent: lastUserContent,
        });
      }
      continue;
    }
    items.push({ type: "message", key: m.id, message: m });
    if (m.role === "user" && m.kind === "text") lastUserContent = m.content;
    // A run answers the message it was started for: usually the user's, or a task's notification.
    for (const run of anchored.get(m.id) ?? []) pushRun(run);
  }
  for (const run of loose) pushRun(run);
  for (const item of pending) {
    // An echoed item's stored message is already on screen (unless we somehow lack it).
    if (item.echoedMessageId && byId.has(item.echoedMessageId)) continue;
    items.push({ type: "pending", key: `pending:${item.clientMessageId}`, item });
  }
  return items;
}
