import type { UsageLimits } from "@protocol";
import { formatCost } from "../lib/format";

/** Today's spend (UTC) against the user's daily cap, when the server reports them. */
export function SpendToday({ limits }: { limits: UsageLimits }) {
  const { spentTodayUsd: spent, dailyCapUsd: cap } = limits;
  if (cap === null) {
    return (
      <p className="spend-today muted" data-testid="spend-today">
        Spent today: <strong>{formatCost(spent)}</strong> (no daily cap)
      </p>
    );
  }
  const share = cap > 0 ? Math.min(1, spent / cap) : 1;
  const level = share >= 1 ? "is-over" : share >= 0.8 ? "is-near" : "";
  return (
    <div className={`spend-today ${level}`} data-testid="spend-today">
      <div className="spend-today-text">
        <span>
          Spent today: <strong>{formatCost(spent)}</strong> of your {formatCost(cap)} daily cap
        </span>
        {share >= 1 && <span className="error-text small"> · new messages wait until the cap resets (midnight UTC)</span>}
      </div>
      <div
        className="meter"
        role="meter"
        aria-label="Today's spend against the daily cap"
        aria-valuemin={0}
        aria-valuemax={cap}
        aria-valuenow={Math.min(spent, cap)}
        aria-valuetext={`${formatCost(spent)} of ${formatCost(cap)}`}
      >
        <span style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
    </div>
  );
}
