// Cloudflare's list prices and limits that docs/scale.md is computed with, each with its page. Paid
// plan, marginal prices (past what the plan includes each month). Check them again before relying on
// the figures they make.
export const CHECKED = "2026-11-27";

export const PRICES = {
  workersRequests: { usd: 0.3, per: 1e6, unit: "requests", source: "https://developers.cloudflare.com/workers/platform/pricing/" },
  doRequests: { usd: 0.15, per: 1e6, unit: "requests (each RPC call, each alarm)", source: "https://developers.cloudflare.com/durable-objects/platform/pricing/" },
  doDuration: { usd: 12.5, per: 1e6, unit: "GB-s (128 MB per object while it is active)", source: "https://developers.cloudflare.com/durable-objects/platform/pricing/" },
  doRowsRead: { usd: 0.001, per: 1e6, unit: "rows read", source: "https://developers.cloudflare.com/durable-objects/platform/pricing/" },
  doRowsWritten: { usd: 1.0, per: 1e6, unit: "rows written", source: "https://developers.cloudflare.com/durable-objects/platform/pricing/" },
  doStorage: { usd: 0.2, per: 1, unit: "GB-month", source: "https://developers.cloudflare.com/durable-objects/platform/pricing/" },
  d1RowsWritten: { usd: 1.0, per: 1e6, unit: "rows written", source: "https://developers.cloudflare.com/d1/platform/pricing/" },
  d1Storage: { usd: 0.75, per: 1, unit: "GB-month", source: "https://developers.cloudflare.com/d1/platform/pricing/" },
  r2ClassA: { usd: 4.5, per: 1e6, unit: "class A operations (writes, lists)", source: "https://developers.cloudflare.com/r2/pricing/" },
  r2ClassB: { usd: 0.36, per: 1e6, unit: "class B operations (reads)", source: "https://developers.cloudflare.com/r2/pricing/" },
  analyticsPoints: { usd: 0.25, per: 1e6, unit: "data points written", source: "https://developers.cloudflare.com/analytics/analytics-engine/pricing/" },
};

export const LIMITS = {
  d1Bytes: { value: 10 * 1e9, text: "10 GB per database, not raised on request", source: "https://developers.cloudflare.com/d1/platform/limits/" },
  objectBytes: { value: 10 * 1e9, text: "10 GB per SQLite-backed object", source: "https://developers.cloudflare.com/durable-objects/platform/limits/" },
  objectMemoryGb: { value: 0.128, text: "128 MB of memory, the size duration is billed at", source: "https://developers.cloudflare.com/durable-objects/platform/pricing/" },
};

/** Before this record was cut (issue 33's review, on the same machine and bench): what a message cost then. */
export const BEFORE = {
  d1BytesStoredPerMessage: { value: 7_300, source: "npm run dev's local D1 file before and after 30 messages with a 750-token answer" },
  objectRowsWrittenPerMessage: { value: 492, source: "npm run bench -- --only cost at cd0f160" },
  d1RowsWrittenPerMessage: { value: 64.7, source: "npm run bench -- --only cost at cd0f160" },
  d1BytesWrittenPerMessage: { value: 6_021, source: "npm run bench -- --only cost at cd0f160" },
};
