import { memo } from "react";
import { useThrottled } from "../hooks/useThrottled";
import { looseApprovals } from "../lib/approvals";
import type { LiveRun, RunBlock } from "../lib/liveRun";
import { MEMORY_TOOL } from "../lib/memoryActivity";
import { answeredAgain } from "../lib/runErrors";
import { summarizeLive } from "../lib/timeline";
import type { WebView } from "../lib/webActivity";
import type { CodeRunView, DocumentCitation, Message, ToolOutcome } from "@protocol";
import { ActivityLine } from "./ActivityLine";
import { AnswerBody } from "./AnswerBody";
import { ApprovalCard } from "./ApprovalRequest";
import { useApprovals } from "./approvalsState";
import { CodeContainerNotice } from "./CodeCard";
import { MemoryLine } from "./MemoryLine";
import { MessageChips, MessageFrame } from "./MessageFrame";
import { AssistantText } from "./MessageItem";
import { PipelineError } from "./PipelineError";
import { ThinkingBlock } from "./ThinkingBlock";
import { ToolCallCard, ToolResultCard } from "./ToolCards";

/** The reply while it streams. Markdown is re-rendered at most every 120 ms, not per delta. */
function StreamingBubble({
  runId,
  text,
  web,
  documents,
  code,
  model,
}: {
  runId: string;
  text: string;
  web: WebView;
  documents: readonly DocumentCitation[];
  code: readonly CodeRunView[];
  model?: string;
}) {
  const shown = useThrottled(text, 120);
  return (
    <div className="msg msg-assistant msg-streaming" data-testid="streaming-message" aria-busy="true" aria-label="Assistant is replying">
      <AnswerBody text={shown} web={web} documents={documents} code={code} codeActive prefix={`cite-${runId}`}>
        {shown ? <span className="caret" aria-hidden="true" /> : <span className="typing" role="img" aria-label="Waiting for the first words"><i /><i /><i /></span>}
      </AnswerBody>
      {model && <MessageChips model={model} />}
    </div>
  );
}

interface RunTools {
  names: Map<string, string>;
  results: Map<string, ToolOutcome>;
  running: boolean;
}

function Block({ block, live, tools }: { block: RunBlock; live: boolean; tools: RunTools }) {
  switch (block.kind) {
    case "thinking":
      return (
        <MessageFrame role="assistant" kind="thinking" className="msg-block">
          <ThinkingBlock text={block.text} live={live} />
        </MessageFrame>
      );
    case "tool_call":
      return (
        <MessageFrame role="assistant" kind="tool_call" className="msg-block">
          {block.toolName === MEMORY_TOOL ? (
            <MemoryLine input={block.input} toolUseId={block.toolUseId} result={tools.results.get(block.toolUseId) ?? null} running={tools.running} />
          ) : (
            <ToolCallCard toolName={block.toolName} toolUseId={block.toolUseId} input={block.input} />
          )}
        </MessageFrame>
      );
    case "tool_result":
      // A memory call's line shows its outcome.
      if (tools.names.get(block.toolUseId) === MEMORY_TOOL) return null;
      return (
        <MessageFrame role="assistant" kind="tool_result" className="msg-block">
          <ToolResultCard
            content={block.content}
            isError={block.isError}
            toolUseId={block.toolUseId}
            toolName={tools.names.get(block.toolUseId)}
          />
        </MessageFrame>
      );
  }
}

const MemoAssistantText = memo(AssistantText);

/** One run seen live: its pipeline line, thinking and tools, then its text (streaming or stored). */
export const RunGroup = memo(function RunGroup({
  run,
  final,
  retryContent,
  onRetry,
}: {
  run: LiveRun;
  final: Message | null;
  retryContent: string | null;
  onRetry: (content: string) => void;
}) {
  const tools: RunTools = { names: new Map(), results: new Map(), running: run.status === "running" };
  for (const b of run.blocks) {
    if (b.kind === "tool_call") tools.names.set(b.toolUseId, b.toolName);
    if (b.kind === "tool_result") tools.results.set(b.toolUseId, { content: b.content, isError: b.isError });
  }
  const lastIndex = run.blocks.length - 1;
  // Calls of this run that wait for the user but have no card here (the run was joined mid-way and
  // its stream not replayed): each gets a card of its own.
  const approvals = useApprovals();
  const loose = approvals?.pending.size ? looseApprovals(approvals.pending.values(), run) : [];
  // Cut short by a restart and answered again by the next run: the kept partial answer says so.
  const restarted = answeredAgain(run.error);

  let text = null;
  if (final) {
    text = <MemoAssistantText message={final} liveWeb={run.web} liveCode={run.code} liveDocuments={run.documents} />;
  } else if (run.status === "running") {
    text = <StreamingBubble runId={run.runId} text={run.text} web={run.web} documents={run.documents} code={run.code} model={run.model} />;
  } else if (run.text || run.web.calls.length || run.code.length || run.documents.length) {
    // Failed or stopped before the stored message reached us: show what streamed.
    text = (
      <MessageFrame role="assistant" kind="text" extra={{ "data-partial": "true" }}>
        <AnswerBody text={run.text} web={run.web} documents={run.documents} code={run.code} prefix={`cite-${run.runId}`} />
        <MessageChips
          model={run.model}
          usage={run.usage}
          durationMs={run.durationMs}
          flags={[run.error?.code === "aborted" ? "stopped" : "incomplete"]}
        />
      </MessageFrame>
    );
  }

  return (
    <div className="run-group" data-run-id={run.runId} data-status={run.status}>
      <ActivityLine activity={summarizeLive(run)} commands={run.commandsHandled} />
      {run.blocks.map((b, i) => (
        <Block key={b.key} block={b} live={run.status === "running" && i === lastIndex} tools={tools} />
      ))}
      {approvals &&
        loose.map((a) => (
          <MessageFrame key={a.toolUseId} role="assistant" kind="tool_call" className="msg-block">
            <ApprovalCard threadId={approvals.threadId} approval={a} />
          </MessageFrame>
        ))}
      {run.container && <CodeContainerNotice notice={run.container} />}
      {text}
      {run.error && !(restarted && final?.metadata.restarted) && (
        <PipelineError
          code={run.error.code}
          message={run.error.message}
          retryable={run.error.retryable}
          onRetry={retryContent ? () => onRetry(retryContent) : undefined}
        />
      )}
    </div>
  );
});
