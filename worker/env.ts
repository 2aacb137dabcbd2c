import { PROJECT_FILES_DEFAULT, RESEARCH_MAX_TASKS } from "../protocol";

/** Bindings and raw settings of the Worker and of its objects, ThreadRoom and UserRoom (wrangler.toml, secrets). */
export interface Env {
  DB: D1Database;
  /** The threads' objects (ThreadRoom); thread/room-stub.ts gives them their type. */
  THREAD_ROOM: DurableObjectNamespace;
  /** The users' objects (UserRoom: what spans a user's threads); user/stub.ts gives them their type. */
  USER_ROOM: DurableObjectNamespace;
  /** Files' bytes: attachments at `<owner>/<thread>/<id>`, projects' at `<owner>/projects/<project>/<id>`, shares' copies at `shares/<share>/<id>`. */
  FILES: R2Bucket;
  /** The MCP server's OAuth authorization server: clients, grants and tokens (hashed, props encrypted), by the OAuth library (worker/http/oauth/). */
  OAUTH_KV: KVNamespace;
  /** Workers AI and a Vectorize index of 768 dimensions (cosine): where both are bound, project search ranks by BM25 and embeddings together. */
  AI?: Ai;
  VECTORS?: Vectorize;
  /** Bytes of attachments each user may keep (default 100 MiB). */
  USER_STORAGE_QUOTA_BYTES?: string;
  /** Share links a thread may have at once (default 20), and a user (default 200). */
  SHARES_PER_THREAD?: string;
  SHARES_PER_USER?: string;
  /** none | token | access */
  AUTH_MODE?: string;
  /** token mode: "token1:userA,token2:userB" (a secret) */
  AUTH_TOKENS?: string;
  /** User ids that may change plugins, comma-separated (in `none` mode the one local user is an admin). */
  ADMIN_USERS?: string;
  /** "true": AUTH_MODE none also answers requests that do not come from localhost (on purpose only). */
  ALLOW_ANONYMOUS?: string;
  /** Each user's spend cap per UTC day, in US dollars (unset: no cap). */
  USER_DAILY_COST_USD?: string;
  /** Posts and new threads per user per minute (the rate-limiting binding, wrangler.toml). */
  POST_LIMITER?: RateLimit;
  THREAD_LIMITER?: RateLimit;
  /** The share links' public routes, per address. */
  SHARE_LIMITER?: RateLimit;
  /** Workers Analytics Engine, where bound: a data point per run (tokens, cost, duration, model, user). */
  ANALYTICS?: AnalyticsEngineDataset;
  /** The web app's built files (wrangler.toml [assets]). */
  ASSETS?: Fetcher;
  /** access mode: the team domain (https://<team>.cloudflareaccess.com) and the application AUD */
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  DEFAULT_MODEL?: string;
  /** The models threads may use, comma-separated (default: every model the Models API lists). */
  MODELS?: string;
  CONTEXT_TOKEN_BUDGET?: string;
  MAX_OUTPUT_TOKENS?: string;
  THINKING?: string;
  RUN_TIMEOUT_MS?: string;
  MAX_QUEUED_MESSAGES?: string;
  /** Runs in a row a thread makes on news (its tasks' results) without a message from its user. */
  MAX_AUTO_RUNS?: string;
  /** Tasks each user may delegate per UTC day. */
  USER_TASKS_PER_DAY?: string;
  /** Context files (the memory's included) each user may keep, and their bytes in all. */
  USER_CONTEXT_FILES_MAX?: string;
  USER_CONTEXT_BYTES_MAX?: string;
  RETRY_MAX_ATTEMPTS?: string;
  RETRY_BASE_MS?: string;
  MAX_TOOL_TURNS?: string;
  STREAM_FLUSH_MS?: string;
  HOOK_TIMEOUT_MS?: string;
  STEP0_FRESH_MS?: string;
  STEP0_MAX_AGE_MS?: string;
  /** Bench and tests only: a delay added to every D1 round trip, standing in for a distant primary. */
  D1_LATENCY_MS?: string;
  /** Schedules: the shortest interval (seconds), and how many one user may keep. */
  SCHEDULE_MIN_INTERVAL_S?: string;
  MAX_SCHEDULES_PER_USER?: string;
  /** Runs each user's schedules may start per UTC day (unattended: nobody posted them). */
  USER_UNATTENDED_RUNS_PER_DAY?: string;
  /** Bench only ("1"): /api/dev/d1 takes D1 away for the whole local app, and counts its round trips. */
  DEV_FAULTS?: string;
  /** eu, us, fedramp or fedramp-high: every object is made, runs and keeps its data in that jurisdiction (lib/placement.ts). */
  DATA_JURISDICTION?: string;
  /** "1": threads and users from before the objects are imported from D1 on their first touch (a deployment with old data). */
  LEGACY_IMPORT?: string;
  /** MCP: a tool call's limit (ms), how long a call waits for the user's approval (s), and "1" to reach localhost (npm run dev, tests). */
  MCP_TOOL_TIMEOUT_MS?: string;
  APPROVAL_TIMEOUT_S?: string;
  MCP_ALLOW_LOCAL?: string;
  /** "0" turns the code plugin's code execution off; on by default where a model key is set. */
  CODE_EXECUTION?: string;
  /** The most code runs one answer may make (default 20). */
  CODE_RUNS_PER_RUN?: string;
  /** Files a project keeps at most (default 500). */
  PROJECT_FILES_MAX?: string;
  /** Research: "0" starts a plan's tasks without the person's review; its sub-questions (3 to 8), budget ($2), time (900 s), searches per task (10). */
  RESEARCH_REVIEW?: string;
  RESEARCH_MIN_TASKS?: string;
  RESEARCH_MAX_TASKS?: string;
  RESEARCH_BUDGET_USD?: string;
  RESEARCH_TIME_LIMIT_S?: string;
  RESEARCH_SEARCHES_PER_TASK?: string;
  /** The share of the model's window a project's text may fill and still be sent whole (default 0.25). */
  PROJECT_WHOLE_SHARE?: string;
  /** Characters of text one document may hold (default 5,000,000), and the time its extraction may take (ms, default 20,000). */
  DOCUMENT_MAX_CHARS?: string;
  DOCUMENT_PARSE_MS?: string;
  /** Characters of text a project's documents may hold together (default 50,000,000). */
  PROJECT_MAX_CHARS?: string;
}

/** The settings, parsed once into the types the code uses. */
export interface Config {
  authMode: string;
  adminUsers: Set<string>;
  allowAnonymous: boolean;
  dailyCostUsd: number | null;
  defaultModel: string;
  models: string[] | null;
  /** Overrides the window the model catalog gives (estimated tokens); null: from the catalog. */
  contextTokenBudget: number | null;
  maxOutputTokens: number;
  /** "adaptive", "off", or a token budget for budget-based thinking. */
  thinking: string;
  runTimeoutMs: number;
  maxQueuedMessages: number;
  maxAutoRuns: number;
  scheduleMinIntervalS: number;
  maxSchedulesPerUser: number;
  unattendedRunsPerDay: number;
  userTasksPerDay: number;
  userContextFilesMax: number;
  userContextBytesMax: number;
  retryAttempts: number;
  retryBaseMs: number;
  maxToolTurns: number;
  streamFlushMs: number;
  hookTimeoutMs: number;
  /** Step-0 inputs (plugin configs, context files) younger than this are used as they are. */
  step0FreshMs: number;
  /** Older than this, or invalidated, they are read again before the run (one D1 batch). */
  step0MaxAgeMs: number;
  d1LatencyMs: number;
  devFaults: boolean;
  /** Threads and users from before the objects are looked for in D1 (LEGACY_IMPORT); off, D1 is never read for them. */
  legacyImport: boolean;
  userStorageQuotaBytes: number;
  sharesPerThread: number;
  sharesPerUser: number;
  mcpToolTimeoutMs: number;
  approvalTimeoutMs: number;
  mcpAllowLocal: boolean;
  /** The deployment offers code execution (a thread may still turn it off). */
  codeExecution: boolean;
  /** The most code runs one answer may make (CODE_RUNS_PER_RUN): past it, the model answers in words. */
  maxCodeRuns: number;
  projectFilesMax: number;
  projectWholeShare: number;
  documentMaxChars: number;
  documentParseMs: number;
  projectMaxChars: number;
  /** A research's defaults (the request may lower its bounds). */
  research: { review: boolean; minTasks: number; maxTasks: number; budgetUsd: number; timeLimitS: number; searchesPerTask: number };
}

export const VERSION = "0.2.0";

function numberVar(value: string | undefined, fallback: number): number {
  const n = value === undefined || value === "" ? NaN : Number(value);
  return Number.isFinite(n) ? n : fallback;
}

const parsed = new WeakMap<Env, Config>();

export function configOf(env: Env): Config {
  let config = parsed.get(env);
  if (!config) {
    config = {
      authMode: env.AUTH_MODE || "none",
      adminUsers: new Set((env.ADMIN_USERS ?? "").split(",").map((u) => u.trim()).filter(Boolean)),
      allowAnonymous: env.ALLOW_ANONYMOUS === "true",
      dailyCostUsd: env.USER_DAILY_COST_USD ? numberVar(env.USER_DAILY_COST_USD, 0) || null : null,
      defaultModel: env.DEFAULT_MODEL || "claude-sonnet-4-6",
      models: env.MODELS ? env.MODELS.split(",").map((m) => m.trim()).filter(Boolean) : null,
      contextTokenBudget: env.CONTEXT_TOKEN_BUDGET ? numberVar(env.CONTEXT_TOKEN_BUDGET, 0) || null : null,
      maxOutputTokens: numberVar(env.MAX_OUTPUT_TOKENS, 8192),
      thinking: (env.THINKING ?? "adaptive").trim().toLowerCase(),
      runTimeoutMs: numberVar(env.RUN_TIMEOUT_MS, 300_000),
      maxQueuedMessages: numberVar(env.MAX_QUEUED_MESSAGES, 20),
      maxAutoRuns: numberVar(env.MAX_AUTO_RUNS, 5),
      scheduleMinIntervalS: numberVar(env.SCHEDULE_MIN_INTERVAL_S, 300),
      maxSchedulesPerUser: numberVar(env.MAX_SCHEDULES_PER_USER, 50),
      unattendedRunsPerDay: numberVar(env.USER_UNATTENDED_RUNS_PER_DAY, 50),
      userTasksPerDay: numberVar(env.USER_TASKS_PER_DAY, 100),
      userContextFilesMax: numberVar(env.USER_CONTEXT_FILES_MAX, 500),
      userContextBytesMax: numberVar(env.USER_CONTEXT_BYTES_MAX, 10 * 1024 * 1024),
      retryAttempts: numberVar(env.RETRY_MAX_ATTEMPTS, 4),
      retryBaseMs: numberVar(env.RETRY_BASE_MS, 500),
      maxToolTurns: numberVar(env.MAX_TOOL_TURNS, 8),
      streamFlushMs: numberVar(env.STREAM_FLUSH_MS, 30),
      hookTimeoutMs: numberVar(env.HOOK_TIMEOUT_MS, 10_000),
      step0FreshMs: numberVar(env.STEP0_FRESH_MS, 5_000),
      step0MaxAgeMs: numberVar(env.STEP0_MAX_AGE_MS, 10 * 60_000),
      d1LatencyMs: numberVar(env.D1_LATENCY_MS, 0),
      devFaults: env.DEV_FAULTS === "1",
      legacyImport: env.LEGACY_IMPORT === "1",
      userStorageQuotaBytes: numberVar(env.USER_STORAGE_QUOTA_BYTES, 100 * 1024 * 1024),
      sharesPerThread: numberVar(env.SHARES_PER_THREAD, 20),
      sharesPerUser: numberVar(env.SHARES_PER_USER, 200),
      mcpToolTimeoutMs: numberVar(env.MCP_TOOL_TIMEOUT_MS, 60_000),
      approvalTimeoutMs: numberVar(env.APPROVAL_TIMEOUT_S, 600) * 1000,
      mcpAllowLocal: env.MCP_ALLOW_LOCAL === "1",
      maxCodeRuns: numberVar(env.CODE_RUNS_PER_RUN, 20),
      projectFilesMax: numberVar(env.PROJECT_FILES_MAX, PROJECT_FILES_DEFAULT),
      projectWholeShare: numberVar(env.PROJECT_WHOLE_SHARE, 0.25),
      documentMaxChars: numberVar(env.DOCUMENT_MAX_CHARS, 5_000_000),
      documentParseMs: numberVar(env.DOCUMENT_PARSE_MS, 20_000),
      projectMaxChars: numberVar(env.PROJECT_MAX_CHARS, 50_000_000),
      research: {
        review: env.RESEARCH_REVIEW !== "0",
        minTasks: numberVar(env.RESEARCH_MIN_TASKS, 3),
        maxTasks: Math.min(numberVar(env.RESEARCH_MAX_TASKS, RESEARCH_MAX_TASKS), RESEARCH_MAX_TASKS),
        budgetUsd: numberVar(env.RESEARCH_BUDGET_USD, 2),
        timeLimitS: numberVar(env.RESEARCH_TIME_LIMIT_S, 900),
        searchesPerTask: numberVar(env.RESEARCH_SEARCHES_PER_TASK, 10),
      },
      codeExecution: env.CODE_EXECUTION !== undefined ? env.CODE_EXECUTION === "1" || env.CODE_EXECUTION === "true" : Boolean(env.ANTHROPIC_API_KEY),
    };
    parsed.set(env, config);
  }
  return config;
}
