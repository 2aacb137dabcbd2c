import type { ToolOutcome } from "@protocol";
import { useMemo } from "react";
import { useConversationScroll } from "../hooks/useConversationScroll";
import type { Highlight } from "../hooks/useJumpToMessage";
import { unplacedApprovals } from "../lib/approvals";
import { MEMORY_TOOL } from "../lib/memoryActivity";
import type { TimelineItem } from "../lib/timeline";
import { ActivityLine } from "./ActivityLine";
import { ApprovalCard } from "./ApprovalRequest";
import { useApprovals } from "./approvalsState";
import { ArtifactCards } from "./ArtifactCards";
import { MessageFrame } from "./MessageFrame";
import { MessageItem } from "./MessageItem";
import { PendingMessage } from "./PendingMessage";
import { PipelineError } from "./PipelineError";
import { RunGroup } from "./RunGroup";

/**
 * Stored tool calls' names and results, by tool use id: a stored result names its tool through the
 * call it answers (as a live one does), and a memory call's line shows its result, which then is not
 * shown on its own.
 */
function storedTools(items: readonly TimelineItem[]) {
  const names = new Map<string, string>();
  const results = new Map<string, ToolOutcome>();
  for (const item of items) {
    if (item.type !== "message") continue;
    const { toolUseId, toolName, isError } = item.message.metadata;
    if (typeof toolUseId !== "string") continue;
    if (item.message.kind === "tool_call" && typeof toolName === "string") names.set(toolUseId, toolName);
    if (item.message.kind === "tool_result") results.set(toolUseId, { content: item.message.content, isError: !!isError });
  }
  return { names, results };
}

/**
 * The conversation. Follows the newest content while the reader is at the bottom, stays put when
 * they scrolled up (with a "Jump to latest" button), and keeps its place when older pages load
 * (useConversationScroll).
 */
export function MessageList({
  items,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  onRetry,
  empty,
  highlight,
}: {
  items: TimelineItem[];
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  onRetry: (content: string) => void;
  empty?: React.ReactNode;
  /** A message to bring into view and mark for a moment (a search result jumped to). */
  highlight?: Highlight | null;
}) {
  const { scroller, onScroll, loadOlder, showJump, jumpToLatest } = useConversationScroll(items, highlight, onLoadOlder);

  const tools = useMemo(() => storedTools(items), [items]);

  // Calls waiting for the user that neither a run shown live nor a stored call shows (RunGroup shows
  // its own run's): each gets a card at the end, where the run in progress is.
  const approvals = useApprovals();
  const unplaced = useMemo(() => (approvals?.pending.size ? unplacedApprovals(approvals.pending.values(), items) : []), [approvals, items]);

  return (
    <div className="message-scroller" ref={scroller} onScroll={onScroll}>
      <div className="message-list" role="log" aria-label="Conversation" aria-live="off">
        {hasOlder && (
          <div className="load-older">
            <button type="button" className="button ghost small" onClick={loadOlder} disabled={loadingOlder}>
              {loadingOlder ? "Loading…" : "Load earlier messages"}
            </button>
          </div>
        )}
        {items.length === 0 && empty}
        {items.map((item) => {
          switch (item.type) {
            case "message": {
              const { kind, metadata } = item.message;
              const toolName = tools.names.get(metadata.toolUseId ?? "");
              if (kind === "tool_result" && toolName === MEMORY_TOOL) return null;
              return (
                <MessageItem
                  key={item.key}
                  message={item.message}
                  toolName={kind === "tool_result" ? toolName : undefined}
                  toolOutcome={kind === "tool_call" && toolName === MEMORY_TOOL ? (tools.results.get(metadata.toolUseId ?? "") ?? null) : undefined}
                />
              );
            }
            case "activity":
              return <ActivityLine key={item.key} activity={item.activity} />;
            case "error":
              return (
                <PipelineError
                  key={item.key}
                  code={item.code}
                  message={item.message}
                  retryable={item.retryable}
                  onRetry={item.retryContent ? () => onRetry(item.retryContent!) : undefined}
                />
              );
            case "run":
              return (
                <RunGroup key={item.key} run={item.run} final={item.final} retryContent={item.retryContent} onRetry={onRetry} />
              );
            case "pending":
              return <PendingMessage key={item.key} item={item.item} />;
            case "artifacts":
              return <ArtifactCards key={item.key} artifacts={item.artifacts} drafts={item.drafts} />;
          }
        })}
        {approvals &&
          unplaced.map((a) => (
            <MessageFrame key={a.toolUseId} role="assistant" kind="tool_call" className="msg-block">
              <ApprovalCard threadId={approvals.threadId} approval={a} />
            </MessageFrame>
          ))}
      </div>
      {showJump && (
        <button type="button" className="jump-latest" onClick={jumpToLatest}>
          ↓ Jump to latest
        </button>
      )}
    </div>
  );
}
