import type { Role, Usage } from "@protocol";
import type { ReactNode } from "react";
import { formatDuration, formatTime, formatTokens } from "../lib/format";

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
  const searches = usage?.serverToolUses?.web_search ?? 0;
  if (!hasAny) return null;
  return (
    <div className="chips" data-testid="message-meta">
      {flags?.map((f) => (
        <span key={f} className="chip chip-flag">{f}</span>
      ))}
      {model && <span className="chip" title="Model">{model}</span>}
      {usage && (
        <span
          className="chip"
          title={`Input ${usage.inputTokens} · output ${usage.outputTokens} · cache read ${usage.cacheReadTokens ?? 0} · cache write ${usage.cacheWriteTokens ?? 0}`}
        >
          {formatTokens(usage.inputTokens)} in · {formatTokens(usage.outputTokens)} out
        </span>
      )}
      {searches > 0 && (
        <span className="chip" data-testid="chip-searches" title="Web searches in this run (billed per search)">
          {searches} {searches === 1 ? "search" : "searches"}
        </span>
      )}
      {durationMs !== undefined && <span className="chip" title="Duration">{formatDuration(durationMs)}</span>}
      {createdAt && <time className="chip chip-time" dateTime={new Date(createdAt).toISOString()}>{formatTime(createdAt)}</time>}
    </div>
  );
}
