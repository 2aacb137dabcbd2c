import { memo } from "react";
import { useThrottled } from "../hooks/useThrottled";
import type { LiveRun, RunBlock } from "../lib/chatState";
import { summarizeLive } from "../lib/timeline";
import type { Message } from "@protocol";
import { ActivityLine } from "./ActivityLine";
import { Markdown } from "./Markdown";
import { MessageChips, MessageFrame } from "./MessageFrame";
import { AssistantText } from "./MessageItem";
import { PipelineError } from "./PipelineError";
import { ThinkingBlock } from "./ThinkingBlock";
import { ToolCallCard, ToolResultCard } from "./ToolCards";

/** The reply while it streams. Markdown is re-rendered at most every 120 ms, not per delta. */
function StreamingBubble({ text, model }: { text: string; model?: string }) {
  const shown = useThrottled(text, 120);
  return (
    <div className="msg msg-assistant msg-streaming" data-testid="streaming-message" aria-busy="true" aria-label="Assistant is replying">
      <div className="bubble bubble-assistant">
        {shown ? <Markdown text={shown} /> : <span className="typing" aria-label="Waiting for the first words"><i /><i /><i /></span>}
        {shown && <span className="caret" aria-hidden="true" />}
      </div>
      {model && <MessageChips model={model} />}
    </div>
  );
}

function Block({ block, live, toolNames }: { block: RunBlock; live: boolean; toolNames: Map<string, string> }) {
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
          <ToolCallCard toolName={block.toolName} toolUseId={block.toolUseId} input={block.input} />
        </MessageFrame>
      );
    case "tool_result":
      return (
        <MessageFrame role="assistant" kind="tool_result" className="msg-block">
          <ToolResultCard
            content={block.content}
            isError={block.isError}
            toolUseId={block.toolUseId}
            toolName={toolNames.get(block.toolUseId)}
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
  const toolNames = new Map<string, string>();
  for (const b of run.blocks) if (b.kind === "tool_call") toolNames.set(b.toolUseId, b.toolName);
  const lastIndex = run.blocks.length - 1;

  let text = null;
  if (final) {
    text = <MemoAssistantText message={final} />;
  } else if (run.status === "running") {
    text = <StreamingBubble text={run.text} model={run.model} />;
  } else if (run.text) {
    // Failed or stopped before the stored message reached us: show what streamed.
    text = (
      <MessageFrame role="assistant" kind="text" extra={{ "data-partial": "true" }}>
        <div className="bubble bubble-assistant">
          <Markdown text={run.text} />
        </div>
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
        <Block key={b.key} block={b} live={run.status === "running" && i === lastIndex} toolNames={toolNames} />
      ))}
      {text}
      {run.error && (
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
