import { memo, useMemo } from "react";
import { codeFromMetadata } from "../lib/codeView";
import { MEMORY_TOOL } from "../lib/memoryActivity";
import { documentsFromMetadata } from "../lib/projectKnowledge";
import { Link, threadPath } from "../lib/router";
import { useResearchOfTask } from "../queries/research";
import { webFromMetadata, type WebView } from "../lib/webActivity";
import type { CodeRunView, DocumentCitation, Message, ToolOutcome } from "@protocol";
import { AnswerBody } from "./AnswerBody";
import { Markdown } from "./Markdown";
import { MemoryLine } from "./MemoryLine";
import { MessageAction } from "./MessageAction";
import { MessageChips, MessageFrame } from "./MessageFrame";
import { ResearchMessage } from "./ResearchMessage";
import { ResearchTaskNotice } from "./ResearchTaskNotice";
import { ThinkingBlock } from "./ThinkingBlock";
import { useChatActions } from "./chatActions";
import { ToolCallCard, ToolResultCard } from "./ToolCards";
import { UserMessage } from "./UserMessage";

function assistantFlags(m: Message): string[] {
  const flags: string[] = [];
  if (m.metadata.aborted) flags.push("stopped");
  // A restarted answer's note says what happened.
  if (m.metadata.error && !m.metadata.restarted) flags.push(`incomplete: ${m.metadata.error}`);
  return flags;
}

function CrossThreadNotice({ message }: { message: Message }) {
  const meta = message.metadata;
  const status = meta.status ?? "update";
  const source = meta.sourceThreadId ?? null;
  const research = useResearchOfTask(message.threadId, meta.taskId);
  if (research) return <ResearchTaskNotice status={status} n={research.n} taskThreadId={source} />;
  return (
    <div className={`notice-card is-${status}`} data-testid="cross-thread-notification">
      <div className="notice-head">
        <span className="notice-icon" aria-hidden="true">⇄</span>
        <strong>Task {status}</strong>
        {typeof meta.iterations === "number" && (
          <span className="pill">
            {meta.iterations} {meta.iterations === 1 ? "iteration" : "iterations"}
          </span>
        )}
        {source && (
          <Link href={threadPath(source)} className="notice-link" data-testid="notification-link">
            Open task thread →
          </Link>
        )}
      </div>
      {message.content && <Markdown text={message.content} className="notice-body" />}
    </div>
  );
}

/**
 * One stored message. Memoized: a finished message renders (and parses its markdown) once.
 * `toolName`: a tool result's tool; `toolOutcome`: a memory call's result, which its line shows.
 */
export const MessageItem = memo(function MessageItem({
  message: m,
  toolName,
  toolOutcome,
}: {
  message: Message;
  toolName?: string;
  toolOutcome?: ToolOutcome | null;
}) {
  const meta = m.metadata;
  switch (m.kind) {
    case "thinking":
      return (
        <MessageFrame role={m.role} kind={m.kind} id={m.id} className="msg-block">
          <ThinkingBlock text={m.content} />
        </MessageFrame>
      );
    case "tool_call": {
      let input: unknown = meta.input;
      if (input === undefined) input = m.content;
      return (
        <MessageFrame role={m.role} kind={m.kind} id={m.id} className="msg-block">
          {meta.toolName === MEMORY_TOOL ? (
            <MemoryLine input={input} toolUseId={meta.toolUseId} result={toolOutcome ?? null} running={false} />
          ) : (
            <ToolCallCard toolName={meta.toolName ?? "tool"} toolUseId={meta.toolUseId} input={input} />
          )}
        </MessageFrame>
      );
    }
    case "tool_result":
      return (
        <MessageFrame role={m.role} kind={m.kind} id={m.id} className="msg-block">
          <ToolResultCard content={m.content} isError={!!meta.isError} toolUseId={meta.toolUseId} toolName={toolName} />
        </MessageFrame>
      );
    case "pipeline_step":
    case "status":
      return (
        <MessageFrame role={m.role} kind={m.kind} id={m.id} className="msg-status">
          <span className="muted small">
            {m.kind === "pipeline_step" ? "step" : "status"}: {m.content}
          </span>
        </MessageFrame>
      );
    case "text":
    default:
      break;
  }

  if (m.role === "user") return <UserMessage message={m} />;
  if (m.role === "system") {
    if (typeof meta.researchId === "string") return <ResearchMessage message={m} researchId={meta.researchId} />;
    if (meta.type === "cross-thread-notification") {
      return (
        <MessageFrame role="system" kind={m.kind} id={m.id} extra={{ "data-type": "cross-thread-notification" }}>
          <CrossThreadNotice message={m} />
        </MessageFrame>
      );
    }
    return (
      <MessageFrame role="system" kind={m.kind} id={m.id} className="msg-system">
        <Markdown text={m.content} className="system-note" />
      </MessageFrame>
    );
  }
  return <AssistantText message={m} />;
});

/** Ask the same question again: a new version of the exchange, this reply a click away. */
function RegenerateButton({ message }: { message: Message }) {
  const actions = useChatActions();
  if (!actions || !message.parentId) return null;
  return (
    <MessageAction icon="↻" text="Regenerate" label="Regenerate this reply" testId="regenerate" busy={actions.busy} onClick={() => actions.regenerate(message)} />
  );
}

/**
 * An assistant's answer, with its searches, code runs, references, cited documents and sources
 * (`liveWeb`, `liveCode`, `liveDocuments`: those seen live, for an answer stored without them). A
 * partial answer kept after a restart is dimmed, and says so.
 */
export function AssistantText({
  message: m,
  liveWeb,
  liveCode,
  liveDocuments,
}: {
  message: Message;
  liveWeb?: WebView;
  liveCode?: readonly CodeRunView[];
  liveDocuments?: readonly DocumentCitation[];
}) {
  const meta = m.metadata;
  const web = useMemo(() => webFromMetadata(meta) ?? liveWeb ?? null, [meta, liveWeb]);
  const documents = useMemo(() => documentsFromMetadata(meta) ?? (liveDocuments?.length ? liveDocuments : null), [meta, liveDocuments]);
  const code = useMemo(() => codeFromMetadata(meta) ?? (liveCode?.length ? liveCode : null), [meta, liveCode]);
  const restarted = meta.restarted === true;
  return (
    <MessageFrame
      role="assistant"
      kind={m.kind}
      id={m.id}
      label={restarted ? "Assistant's answer, interrupted by a restart" : "Assistant said"}
      className={restarted ? "is-restarted" : undefined}
      extra={restarted ? { "data-restarted": "true" } : undefined}
    >
      <AnswerBody text={m.content} web={web} documents={documents} code={code} prefix={`cite-${m.id}`} />
      {restarted && (
        <p className="restart-note" data-testid="restart-note">
          <span aria-hidden="true">↻</span> Interrupted by a restart — answered again below
        </p>
      )}
      <div className="msg-footer">
        <MessageChips
          model={m.model}
          usage={meta.usage}
          durationMs={meta.durationMs}
          createdAt={m.createdAt}
          flags={assistantFlags(m)}
        />
        {!restarted && <RegenerateButton message={m} />}
      </div>
    </MessageFrame>
  );
}
