// Spend: usage per run, and today's ledger against the daily cap.
export { Spend, USAGE_DAYS_FLUSH_MS, type LedgerRun } from "./spend";
export type { Reservation, SpendState } from "./ledger";
export type { UsageQuery } from "./usage";
