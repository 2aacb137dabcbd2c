import type { UsageTotals } from "@protocol";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { formatCost, formatDuration, formatTokens } from "../lib/format";
import { usageQuery } from "../queries/usage";
import { FilterChips } from "./FilterChips";
import { ListShell } from "./ListShell";
import { RecentRuns } from "./RecentRuns";
import { SpendToday } from "./SpendToday";
import { UsageChart } from "./UsageChart";
import { DataTable } from "./DataTable";

const RANGES = [
  { value: "24h", label: "24 hours", ms: 24 * 3_600_000 },
  { value: "7d", label: "7 days", ms: 7 * 86_400_000 },
  { value: "30d", label: "30 days", ms: 30 * 86_400_000 },
  { value: "all", label: "All time", ms: 0 },
] as const;

type RangeKey = (typeof RANGES)[number]["value"];

interface ModelUsage {
  runs: number;
  input: number;
  output: number;
  cost: number;
  duration: number;
}

/** The period's runs, tokens and cost, added up. */
function Totals({ totals }: { totals: UsageTotals }) {
  return (
    <dl className="stats" data-testid="usage-totals">
      <div className="stat">
        <dt>Runs</dt>
        <dd>{totals.runs.toLocaleString()}</dd>
      </div>
      <div className="stat">
        <dt>Input tokens</dt>
        <dd>{formatTokens(totals.inputTokens)}</dd>
      </div>
      <div className="stat">
        <dt>Output tokens</dt>
        <dd>{formatTokens(totals.outputTokens)}</dd>
      </div>
      <div className="stat">
        <dt>Cache read / write</dt>
        <dd>
          {formatTokens(totals.cacheReadTokens)} / {formatTokens(totals.cacheWriteTokens)}
        </dd>
      </div>
      <div className="stat">
        <dt>Cost</dt>
        <dd>{formatCost(totals.costUsd)}</dd>
      </div>
    </dl>
  );
}

/** The period's runs added up by model, the most tokens first. */
function ByModel({ byModel }: { byModel: [string, ModelUsage][] }) {
  return (
    <DataTable caption="Usage by model" columns={["Model", "Runs", "Input", "Output", "Avg duration", "Cost"]}>
      {byModel.map(([model, m]) => (
        <tr key={model}>
          <th scope="row">{model}</th>
          <td>{m.runs}</td>
          <td>{formatTokens(m.input)}</td>
          <td>{formatTokens(m.output)}</td>
          <td>{formatDuration(m.duration / m.runs)}</td>
          <td>{formatCost(m.cost)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

export default function UsagePage() {
  const [range, setRange] = useState<RangeKey>("7d");
  const ms = RANGES.find((r) => r.value === range)?.ms ?? 0;
  const usage = useQuery({ ...usageQuery(ms), placeholderData: keepPreviousData });
  const { data } = usage;

  const byModel = useMemo(() => {
    const map = new Map<string, ModelUsage>();
    for (const r of data?.runs ?? []) {
      const m = map.get(r.model) ?? { runs: 0, input: 0, output: 0, cost: 0, duration: 0 };
      m.runs++;
      m.input += r.inputTokens ?? 0;
      m.output += r.outputTokens ?? 0;
      m.cost += r.costUsd ?? 0;
      m.duration += r.durationMs ?? 0;
      map.set(r.model, m);
    }
    return [...map.entries()].sort((a, b) => b[1].input + b[1].output - (a[1].input + a[1].output));
  }, [data]);

  const runs = data?.runs ?? [];
  const now = Date.now();
  const from = data?.since ?? (runs.length ? Math.min(...runs.map((r) => r.startedAt)) : now - 86_400_000);
  // A period without runs still shows its totals, and its chart saying so.
  const period = data && (
    <>
      <Totals totals={data.totals} />
      <section className="card">
        <UsageChart runs={runs} from={from} to={now} models={byModel.map(([m]) => m)} />
        {runs.length === 0 && <p className="muted small">No runs in this period.</p>}
      </section>
    </>
  );

  return (
    <div className="page">
      <header className="page-header">
        <h1>Usage</h1>
        <p className="muted">Every run's tokens and cost, recorded by the metrics plugin.</p>
      </header>
      {data?.limits && <SpendToday limits={data.limits} />}
      <FilterChips label="Period" options={RANGES} value={range} onChange={setRange} />
      <ListShell query={usage} rows={data?.runs} empty={period}>
        {(rows) => (
          <>
            {period}
            <ByModel byModel={byModel} />
            <RecentRuns runs={rows} />
          </>
        )}
      </ListShell>
    </div>
  );
}
