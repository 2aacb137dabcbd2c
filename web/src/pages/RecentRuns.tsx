import type { Run } from "@protocol";
import { formatCost, formatDuration, formatRelative, formatTokens } from "../lib/format";
import { Link, threadPath } from "../lib/router";
import { DataTable } from "./DataTable";

const SHOWN = 50;

/** The thread a run belongs to; its usage outlives a deleted thread, which has no name any more. */
function ThreadCell({ run }: { run: Run }) {
  if (run.threadName === null) return <span className="muted deleted-thread">deleted thread</span>;
  return <Link href={threadPath(run.threadId)}>{run.threadName}</Link>;
}

/** The period's newest runs, one a row. */
export function RecentRuns({ runs }: { runs: readonly Run[] }) {
  const newest = [...runs].sort((a, b) => b.startedAt - a.startedAt).slice(0, SHOWN);
  return (
    <section className="recent-runs" aria-labelledby="recent-runs-title">
      <h2 id="recent-runs-title" className="section-title">
        Recent runs{runs.length > SHOWN ? ` (newest ${SHOWN} of ${runs.length})` : ""}
      </h2>
      <DataTable testId="recent-runs" columns={["Thread", "Model", "Input", "Output", "Cache read / write", "Duration", "Cost", "When"]}>
        {newest.map((r) => (
          <tr key={r.id} data-testid="run-row" data-thread-id={r.threadId}>
            <th scope="row">
              <ThreadCell run={r} />
            </th>
            <td>{r.model}</td>
            <td>{formatTokens(r.inputTokens)}</td>
            <td>{formatTokens(r.outputTokens)}</td>
            <td>
              {formatTokens(r.cacheReadTokens)} / {formatTokens(r.cacheWriteTokens)}
            </td>
            <td>{formatDuration(r.durationMs)}</td>
            <td>{formatCost(r.costUsd)}</td>
            <td>
              <time dateTime={new Date(r.startedAt).toISOString()}>{formatRelative(r.startedAt)}</time>
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
