// Spend: usage per run, and today's ledger against the daily cap.
export { Spend, type LedgerRun } from "./spend";
export type { Reservation, SpendState } from "./ledger";
export type { UsageQuery } from "./usage";
