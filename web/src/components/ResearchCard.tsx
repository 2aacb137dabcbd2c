import type { Research } from "@protocol";
import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { errorText } from "../api";
import { useNow } from "../hooks/useNow";
import { formatCost } from "../lib/format";
import { formatElapsed, researchActive, researchElapsedMs, researchSourceCount, researchStatusText } from "../lib/research";
import { researchQuery, useStopResearch } from "../queries/research";
import { useArtifactPanelState } from "./artifactPanelState";
import { ErrorDetails } from "./ErrorDetails";
import { ResearchPlanEditor } from "./ResearchPlanEditor";
import { ResearchProgress } from "./ResearchProgress";

/** The time it has run, ticking while it goes on. */
function LiveElapsed({ startedAt }: { startedAt: number }) {
  const now = useNow(1000);
  return <>{formatElapsed(researchElapsedMs({ startedAt, endedAt: null }, now))}</>;
}

/** Time, cost and sources: beside the status line, outside its live region (the clock would talk every second). */
function ResearchFigures({ research: r }: { research: Research }) {
  const sources = researchSourceCount(r);
  return (
    <span className="research-figures muted small">
      <span data-testid="research-elapsed" title="Time it has run">
        <span className="visually-hidden">Elapsed: </span>
        {r.endedAt === null ? <LiveElapsed startedAt={r.startedAt} /> : formatElapsed(researchElapsedMs(r, r.endedAt))}
      </span>
      <span data-testid="research-cost" title={r.budgetUsd !== undefined ? `Budget ${formatCost(r.budgetUsd)}` : "Cost so far"}>
        <span className="visually-hidden">Cost: </span>
        {formatCost(r.costUsd)}
        {r.budgetUsd !== undefined && <span className="research-budget"> of {formatCost(r.budgetUsd)}</span>}
      </span>
      {sources > 0 && (
        <span data-testid="research-source-count">
          {sources} {sources === 1 ? "source" : "sources"}
        </span>
      )}
    </span>
  );
}

/**
 * Stop (everything at once, no confirmation) while it goes on; the report once it is written. A plan
 * under review has its own Cancel, beside Start research.
 */
function ResearchActions({ research: r }: { research: Research }) {
  const stop = useStopResearch(r);
  const panel = useArtifactPanelState();
  const active = researchActive(r.status) && r.status !== "review";
  const reportId = r.artifactId;
  if (!active && !(reportId && panel)) return null;
  return (
    <div className="research-actions">
      {reportId && panel && (
        <button
          type="button"
          className="button primary small"
          data-testid="research-open-report"
          aria-pressed={panel.openId === reportId}
          onClick={() => panel.open(reportId)}
        >
          Open report
        </button>
      )}
      {active && (
        <button type="button" className="button danger small" data-testid="research-stop" disabled={stop.isPending} onClick={() => stop.mutate()}>
          <span aria-hidden="true">■</span> {stop.isPending ? "Stopping…" : "Stop"}
          <span className="visually-hidden"> the research</span>
        </button>
      )}
      <ErrorDetails error={stop.error} />
    </div>
  );
}

function ResearchBody({ research: r }: { research: Research }) {
  return (
    <>
      <div className="research-status-row">
        {researchActive(r.status) && r.status !== "review" && <span className="research-dot pulse" aria-hidden="true" />}
        <p className="research-status" role="status" data-testid="research-status">
          {researchStatusText(r)}
        </p>
        <ResearchFigures research={r} />
      </div>
      {r.status === "review" ? <ResearchPlanEditor research={r} /> : r.subquestions.length > 0 && <ResearchProgress research={r} />}
      {r.note && (
        <p className="research-note" data-testid="research-note">
          {r.note}
        </p>
      )}
      <ResearchActions research={r} />
    </>
  );
}

/**
 * A research started in this thread, where its message stands: read once, then kept current by the
 * thread's research:updated frames, in every tab that shows it. `question` is the message's, shown
 * until the research itself is read.
 */
export function ResearchCard({ threadId, researchId, question }: { threadId: string; researchId: string; question: string }) {
  const query = useQuery(researchQuery(threadId, researchId));
  const r = query.data;
  const id = useId();
  return (
    <section
      className={`research-card is-${r?.status ?? "loading"}`}
      data-testid="research-card"
      data-research-id={researchId}
      data-status={r?.status}
      aria-labelledby={`${id}-kind ${id}-question`}
    >
      <header className="research-head">
        <span className="research-kind" id={`${id}-kind`}>
          Research
        </span>
        <p className="research-question" id={`${id}-question`} data-testid="research-question">
          {r?.question ?? question}
        </p>
      </header>
      {r ? (
        <ResearchBody research={r} />
      ) : query.error ? (
        <div className="inline-alert" role="alert">
          Could not load the research: {errorText(query.error)}{" "}
          <button type="button" className="link-button" onClick={() => void query.refetch()}>
            Try again
          </button>
        </div>
      ) : (
        <p className="muted small" role="status">
          Loading the research…
        </p>
      )}
    </section>
  );
}
