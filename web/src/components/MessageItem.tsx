import { memo, type ReactNode } from "react";
import { formatDuration, formatTime, formatTokens } from "../lib/format";
import { Link, threadPath } from "../lib/router";
import type { Message, Role, Usage } from "@protocol";
import { Markdown } from "./Markdown";
import { ThinkingBlock } from "./ThinkingBlock";
import { ToolCallCard, ToolResultCard } from "./ToolCards";

/** The frame every rendered message shares: role, kind and id for styling, tests and assistive tech. */
export function MessageFrame({
  role,
  kind,
  id,
  className,
  label,
  children,
  extra,
}: {
  role: Role;
  kind: string;
  id?: string;
  className?: string;
  label?: string;
  children: ReactNode;
  extra?: Record<string, string | undefined>;
}) {
  return (
    <article
      className={`msg msg-${role} msg-kind-${kind}${className ? " " + className : ""}`}
      data-testid="message"
      data-role={role}
      data-kind={kind}
      data-message-id={id}
      aria-label={label}
      {...extra}
    >
      {children}
    </article>
  );
}

/** Model, tokens and duration of an assistant reply. */
export function MessageChips({
  model,
  usage,
  durationMs,
  createdAt,
  flags,
}: {
  model?: string | null;
  usage?: Usage;
  durationMs?: number;
  createdAt?: number;
  flags?: string[];
}) {
  const hasAny = model || usage || durationMs !== undefined || createdAt || flags?.length;
  if (!hasAny) return null;
  return (
    <div className="chips" data-testid="message-meta">
      {flags?.map((f) => (
        <span key={f} className="chip chip-flag">{f}</span>
      ))}
      {model && <span className="chip" title="Model">{model}</span>}
      {usage && (
        <span className="chip" title={`Input ${usage.inputTokens} · output ${usage.outputTokens}${usage.cacheReadTokens ? ` · cache read ${usage.cacheReadTokens}` : ""}`}>
          {formatTokens(usage.inputTokens)} in · {formatTokens(usage.outputTokens)} out
        </span>
      )}
      {durationMs !== undefined && <span className="chip" title="Duration">{formatDuration(durationMs)}</span>}
      {createdAt && <time className="chip chip-time" dateTime={new Date(createdAt).toISOString()}>{formatTime(createdAt)}</time>}
    </div>
  );
}

function assistantFlags(m: Message): string[] {
  const flags: string[] = [];
  if (m.metadata.aborted) flags.push("stopped");
  if (m.metadata.error) flags.push(`incomplete: ${m.metadata.error}`);
  return flags;
}

function CrossThreadNotice({ message }: { message: Message }) {
  const meta = message.metadata;
  const status = meta.status ?? "update";
  const source = meta.sourceThreadId ?? null;
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

/** One stored message. Memoized: a finished message renders (and parses its markdown) once. */
export const MessageItem = memo(function MessageItem({ message: m, toolName }: { message: Message; toolName?: string }) {
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
          <ToolCallCard toolName={meta.toolName ?? "tool"} toolUseId={meta.toolUseId} input={input} />
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

  if (m.role === "user") {
    return (
      <MessageFrame role="user" kind={m.kind} id={m.id} label="You said">
        <div className="bubble bubble-user">{m.content}</div>
        <MessageChips createdAt={m.createdAt} />
      </MessageFrame>
    );
  }
  if (m.role === "system") {
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

export function AssistantText({ message: m }: { message: Message }) {
  const meta = m.metadata;
  return (
    <MessageFrame role="assistant" kind={m.kind} id={m.id} label="Assistant said">
      <div className="bubble bubble-assistant">
        <Markdown text={m.content} />
      </div>
      <MessageChips
        model={m.model}
        usage={meta.usage}
        durationMs={meta.durationMs}
        createdAt={m.createdAt}
        flags={assistantFlags(m)}
      />
    </MessageFrame>
  );
}
