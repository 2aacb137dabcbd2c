// Tokens (stacked bars, by model) and cost (line) over time, as hand-written SVG.

import { formatCost, formatTokens } from "../lib/format";
import type { Run } from "@protocol";

const W = 760;
const H = 280;
const PAD = { top: 16, right: 56, bottom: 36, left: 52 };
const SERIES = 6;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const BUCKETS = [5 * MINUTE, 15 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 7 * DAY, 30 * DAY];

interface Bucket {
  start: number;
  byModel: Map<string, number>;
  tokens: number;
  cost: number;
}

/** A "nice" upper bound and tick step for an axis reaching `max`. */
function niceScale(max: number, ticks = 4): { top: number; step: number } {
  if (max <= 0) return { top: 1, step: 0.25 };
  const raw = max / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  return { top: step * Math.ceil(max / step), step };
}

function bucketRuns(runs: Run[], from: number, to: number): { size: number; buckets: Bucket[] } {
  const span = Math.max(to - from, MINUTE);
  const size = BUCKETS.find((b) => span / b <= 48) ?? BUCKETS[BUCKETS.length - 1];
  const tz = new Date().getTimezoneOffset() * MINUTE;
  const align = (t: number) => Math.floor((t - tz) / size) * size + tz;
  const first = align(from);
  const count = Math.floor((align(to) - first) / size) + 1;
  const buckets: Bucket[] = Array.from({ length: count }, (_, i) => ({
    start: first + i * size,
    byModel: new Map(),
    tokens: 0,
    cost: 0,
  }));
  for (const r of runs) {
    const i = Math.floor((align(r.startedAt) - first) / size);
    const b = buckets[i];
    if (!b) continue;
    const tokens = (r.inputTokens ?? 0) + (r.outputTokens ?? 0);
    b.byModel.set(r.model, (b.byModel.get(r.model) ?? 0) + tokens);
    b.tokens += tokens;
    b.cost += r.costUsd ?? 0;
  }
  return { size, buckets };
}

/** A bucket's name (tooltips): its date for day buckets, its time within a day, both beyond. */
function label(t: number, size: number, span: number): string {
  const d = new Date(t);
  if (size >= DAY) return d.toLocaleDateString([], { month: "short", day: "numeric" });
  if (span > DAY) return d.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/**
 * The x axis' labels, by bucket index: about eight of them. Sub-day buckets over several days are
 * labelled with their date at local midnight (every n-th day), so the labels tell the days apart.
 */
function axisLabels(buckets: Bucket[], size: number, span: number): Map<number, string> {
  const labels = new Map<number, string>();
  if (size < DAY && span > DAY) {
    const midnights = buckets.map((b, i) => ({ i, d: new Date(b.start) })).filter(({ d }) => d.getHours() === 0 && d.getMinutes() === 0);
    const every = Math.max(1, Math.ceil(midnights.length / 8));
    midnights.forEach(({ i, d }, n) => {
      if (n % every === 0) labels.set(i, d.toLocaleDateString([], { month: "short", day: "numeric" }));
    });
    return labels;
  }
  const every = Math.ceil(buckets.length / 8);
  buckets.forEach((b, i) => {
    if (i % every === 0) labels.set(i, label(b.start, size, span));
  });
  return labels;
}

/** Cost axis ticks share one precision, enough to tell neighbouring ticks apart ($0.005, $0.010, …). */
function costTick(v: number, step: number): string {
  if (v === 0) return "$0";
  const decimals = Math.min(6, Math.max(2, Math.ceil(-Math.log10(step) - 1e-9)));
  return `$${v.toFixed(decimals)}`;
}

/** A model's colour: its place in `models`, the series' colours used in turn. */
const seriesColor = (models: string[], model: string) => `var(--series-${(models.indexOf(model) % SERIES) + 1})`;

/** What the bars' colours and the line stand for. */
function ChartLegend({ models }: { models: string[] }) {
  return (
    <figcaption className="chart-legend">
      {models.map((m) => (
        <span key={m} className="legend-item">
          <span className="legend-swatch" style={{ background: seriesColor(models, m) }} aria-hidden="true" />
          {m}
        </span>
      ))}
      <span className="legend-item">
        <span className="legend-line" aria-hidden="true" />
        cost (right axis)
      </span>
    </figcaption>
  );
}

export function UsageChart({ runs, from, to, models }: { runs: Run[]; from: number; to: number; models: string[] }) {
  const { size, buckets } = bucketRuns(runs, from, to);
  const span = to - from;
  const color = (model: string) => seriesColor(models, model);

  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const tokenScale = niceScale(Math.max(...buckets.map((b) => b.tokens), 0));
  const costScale = niceScale(Math.max(...buckets.map((b) => b.cost), 0));
  const slot = plotW / Math.max(buckets.length, 1);
  const barW = Math.max(2, Math.min(28, slot * 0.7));
  const x = (i: number) => PAD.left + slot * i + slot / 2;
  const yTokens = (v: number) => PAD.top + plotH - (v / tokenScale.top) * plotH;
  const yCost = (v: number) => PAD.top + plotH - (v / costScale.top) * plotH;
  const xLabels = axisLabels(buckets, size, span);

  const tokenTicks: number[] = [];
  for (let v = 0; v <= tokenScale.top + 1e-9; v += tokenScale.step) tokenTicks.push(v);
  const costTicks: number[] = [];
  for (let v = 0; v <= costScale.top + 1e-12; v += costScale.step) costTicks.push(v);

  const costPoints = buckets.map((b, i) => `${x(i).toFixed(1)},${yCost(b.cost).toFixed(1)}`).join(" ");
  const totalTokens = buckets.reduce((s, b) => s + b.tokens, 0);
  const totalCost = buckets.reduce((s, b) => s + b.cost, 0);

  return (
    <figure className="chart">
      <svg
        data-testid="usage-chart"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby="usage-chart-title usage-chart-desc"
        preserveAspectRatio="xMidYMid meet"
      >
        <title id="usage-chart-title">Tokens and cost over time, by model</title>
        <desc id="usage-chart-desc">
          {`${runs.length} runs, ${formatTokens(totalTokens)} tokens, ${formatCost(totalCost)} across ${buckets.length} periods.`}
        </desc>

        {tokenTicks.map((v) => (
          <g key={`t${v}`} className="chart-grid">
            <line x1={PAD.left} x2={W - PAD.right} y1={yTokens(v)} y2={yTokens(v)} />
            <text x={PAD.left - 8} y={yTokens(v)} textAnchor="end" dominantBaseline="middle">
              {formatTokens(v)}
            </text>
          </g>
        ))}
        {costTicks.map((v) => (
          <text key={`c${v}`} className="chart-axis-cost" x={W - PAD.right + 8} y={yCost(v)} dominantBaseline="middle">
            {costTick(v, costScale.step)}
          </text>
        ))}

        {buckets.map((b, i) => {
          let acc = 0;
          return (
            <g key={b.start}>
              {models
                .filter((m) => b.byModel.has(m))
                .map((m) => {
                  const v = b.byModel.get(m) ?? 0;
                  const y0 = yTokens(acc);
                  acc += v;
                  const y1 = yTokens(acc);
                  return (
                    <rect key={m} x={x(i) - barW / 2} y={y1} width={barW} height={Math.max(0, y0 - y1)} fill={color(m)} rx={2}>
                      <title>{`${label(b.start, size, span)} · ${m}: ${v.toLocaleString()} tokens`}</title>
                    </rect>
                  );
                })}
              {xLabels.has(i) && (
                <text className="chart-xlabel" x={x(i)} y={H - PAD.bottom + 18} textAnchor="middle">
                  {xLabels.get(i)}
                </text>
              )}
            </g>
          );
        })}

        {buckets.length > 1 && <polyline className="chart-cost-line" points={costPoints} fill="none" />}
        {buckets.map((b, i) =>
          b.cost > 0 ? (
            <circle key={`p${b.start}`} className="chart-cost-dot" cx={x(i)} cy={yCost(b.cost)} r={3}>
              <title>{`${label(b.start, size, span)}: ${formatCost(b.cost)}`}</title>
            </circle>
          ) : null,
        )}
        <line className="chart-axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + plotH} y2={PAD.top + plotH} />
      </svg>
      <ChartLegend models={models} />
    </figure>
  );
}
