import type { PipelineStep } from "@protocol";
import { memo, useState } from "react";
import { formatDuration, formatTokens } from "../lib/format";
import type { ActivitySummary } from "../lib/timeline";

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The steps every run goes through, in order (a compaction step shows as a mark of its own). */
const HOOKS: readonly PipelineStep[] = ["onMessage", "onBeforeInvoke", "invoking", "onAfterInvoke"];

/** How the run went, or what it is doing. */
function outcomeOf(activity: ActivitySummary, streaming: boolean): string {
  if (activity.status === "complete") return `done${activity.durationMs !== undefined ? " in " + formatDuration(activity.durationMs) : ""}`;
  if (activity.restarted) return "restarted: answered again";
  if (activity.status === "error") return activity.errorCode === "aborted" ? "stopped" : `failed: ${activity.errorCode ?? "error"}`;
  return streaming ? "streaming" : "working";
}

/** The line expanded: each step with its detail, the prompt cache's use, the commands handled. */
function ActivityDetails({
  activity,
  cacheRead,
  cacheWrite,
  commands,
}: {
  activity: ActivitySummary;
  cacheRead: number;
  cacheWrite: number;
  commands?: string[];
}) {
  return (
    <ol className="activity-details">
      {activity.steps.length === 0 && <li className="muted">No steps recorded yet.</li>}
      {activity.steps.map((s, i) => (
        <li key={i}>
          <code>{s.step}</code>
          {s.step === "compacted" && <span className="muted"> older messages summarized to fit the context window</span>}
          {s.detail && <span className="muted"> {s.detail}</span>}
        </li>
      ))}
      {(cacheRead > 0 || cacheWrite > 0) && (
        <li>
          <code>cache</code> <span className="muted">{cacheRead.toLocaleString()} tokens read, {cacheWrite.toLocaleString()} written</span>
        </li>
      )}
      {commands && commands.length > 0 && (
        <li>
          <code>onCommand</code> <span className="muted">handled {commands.join(", ")}</span>
        </li>
      )}
    </ol>
  );
}

/**
 * The orchestrator's pipeline for one run, in one compact line: each hook as it happens, streaming
 * progress, tools, and the outcome. Expands to the steps' details.
 */
export const ActivityLine = memo(function ActivityLine({
  activity,
  commands,
}: {
  activity: ActivitySummary;
  commands?: string[];
}) {
  const [open, setOpen] = useState(false);
  const seen = new Map(activity.steps.map((s) => [s.step, s]));
  const running = activity.status === "running";
  const lastHook = [...HOOKS].reverse().find((h) => seen.has(h));
  const streaming = running && lastHook === "invoking";
  const usageTokens = activity.usage ? activity.usage.inputTokens + activity.usage.outputTokens : undefined;
  const cacheRead = activity.usage?.cacheReadTokens ?? 0;
  const cacheWrite = activity.usage?.cacheWriteTokens ?? 0;
  // The server summarized older turns to fit the model's window: worth knowing, as the model now
  // sees a summary of them and not their words.
  const compacted = seen.has("compacted");

  return (
    <div
      className={`activity-line is-${activity.status}`}
      data-testid="activity-line"
      data-status={activity.status}
      data-run-id={activity.runId}
    >
      <button
        type="button"
        className="activity-summary"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        {/* Named by what it shows (a label of its own would hide the visible text from voice control). */}
        <span className="visually-hidden">Pipeline steps: </span>
        <span className={"activity-dot" + (running ? " pulse" : "")} aria-hidden="true" />
        <span className="activity-steps">
          {HOOKS.map((hook, i) => {
            const step = seen.get(hook);
            const current = running && hook === lastHook;
            return (
              <span
                key={hook}
                className={"step" + (step ? " done" : "") + (current ? " current" : "")}
                title={step?.detail ? `${hook}: ${step.detail}` : hook}
              >
                {i > 0 && <span className="sep" aria-hidden="true">›</span>}
                {hook === "invoking" && step?.detail ? `invoking ${step.detail}` : hook}
              </span>
            );
          })}
        </span>
        {activity.streamed !== undefined && activity.streamed > 0 && (
          <span className="activity-extra">{formatTokens(activity.streamed)} chars</span>
        )}
        {activity.toolCount > 0 && (
          <span className="activity-extra">
            {activity.toolCount} {activity.toolCount === 1 ? "tool" : "tools"}
          </span>
        )}
        {activity.searches > 0 && (
          <span className="activity-extra" data-testid="activity-searches" title="Web searches (billed per search)">
            {plural(activity.searches, "search", "searches")}
          </span>
        )}
        {activity.fetches > 0 && (
          <span className="activity-extra" data-testid="activity-fetches" title="Web pages read">
            {plural(activity.fetches, "page read", "pages read")}
          </span>
        )}
        {compacted && (
          <span className="activity-extra activity-compacted" data-testid="activity-compacted" title="Older messages were summarized to fit the model's context window">
            compacted
          </span>
        )}
        {usageTokens !== undefined && <span className="activity-extra">{formatTokens(usageTokens)} tok</span>}
        {(cacheRead > 0 || cacheWrite > 0) && (
          <span className="activity-extra" data-testid="activity-cache" title={`Prompt cache: ${cacheRead} tokens read, ${cacheWrite} written`}>
            cache {[cacheRead ? `${formatTokens(cacheRead)} read` : "", cacheWrite ? `${formatTokens(cacheWrite)} write` : ""].filter(Boolean).join(" · ")}
          </span>
        )}
        <span className="activity-outcome">{outcomeOf(activity, streaming)}</span>
      </button>
      {open && <ActivityDetails activity={activity} cacheRead={cacheRead} cacheWrite={cacheWrite} commands={commands} />}
    </div>
  );
});
