// D1: what is small and shared across users, written by the objects through their outboxes, off every
// user's path:
//   plugin_configs    the plugin registry
//   thread_directory  each thread's metadata (owner, kind, name, status, times): no content
//   usage_days        each user's usage per UTC day, the admin's view across users
// Each thread's primary store is its ThreadRoom's SQLite (worker/thread/store/), each user's their
// UserRoom's (worker/user/, whose directory, usage, files and tasks keep these tables by name). The
// other tables (threads, messages, agent_runs, tasks, context_files, attachments) are no longer
// written: they hold what deployments from before the objects wrote, for the objects' one-time import
// (LEGACY_IMPORT).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { THREAD_KINDS, type TaskVerdict } from "../../protocol";

const createdAt = () => integer("created_at").notNull();

export const threads = sqliteTable(
  "threads",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    source: text("source").notNull().default("web"),
    sourceId: text("source_id"),
    name: text("name").notNull(),
    kind: text("kind", { enum: THREAD_KINDS }).notNull().default("general"),
    status: text("status", { enum: ["open", "active", "completed", "failed", "archived"] })
      .notNull()
      .default("open"),
    sessionId: text("session_id"),
    model: text("model").notNull(),
    instructions: text("instructions").notNull().default(""),
    headId: text("head_id"),
    parentThreadId: text("parent_thread_id").references((): any => threads.id, { onDelete: "cascade" }),
    /** The project it is in: projects are their owner's object's (worker/user/projects/). */
    projectId: text("project_id"),
    lastActivity: integer("last_activity").notNull(),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("threads_source_unique").on(t.source, t.sourceId),
    index("threads_owner_activity").on(t.ownerId, t.lastActivity),
    index("threads_parent").on(t.parentThreadId),
  ],
);

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["user", "assistant", "system"] }).notNull(),
    kind: text("kind", {
      enum: ["text", "thinking", "tool_call", "tool_result", "pipeline_step", "status"],
    })
      .notNull()
      .default("text"),
    source: text("source").notNull().default("web"),
    content: text("content").notNull(),
    model: text("model"),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    clientMessageId: text("client_message_id"),
    parentId: text("parent_id"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("messages_client_id_unique").on(t.threadId, t.clientMessageId),
    index("messages_thread_created").on(t.threadId, t.createdAt),
    index("messages_thread_kind").on(t.threadId, t.kind),
  ],
);

export const tasks = sqliteTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    parentThreadId: text("parent_thread_id").references(() => threads.id, { onDelete: "cascade" }),
    status: text("status", {
      enum: ["pending", "running", "evaluating", "completed", "failed", "cancelled"],
    })
      .notNull()
      .default("pending"),
    prompt: text("prompt").notNull(),
    result: text("result"),
    model: text("model"),
    depth: integer("depth").notNull().default(1),
    maxIterations: integer("max_iterations").notNull(),
    currentIteration: integer("current_iteration").notNull().default(0),
    costUsd: real("cost_usd").notNull().default(0),
    verdict: text("verdict", { mode: "json" }).$type<TaskVerdict>(),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("tasks_parent").on(t.parentThreadId), index("tasks_owner_status").on(t.ownerId, t.status)],
);

export const agentRuns = sqliteTable(
  "agent_runs",
  {
    id: text("id").primaryKey(),
    // No foreign key: usage outlives its thread (a deleted thread's runs still count).
    threadId: text("thread_id").notNull(),
    ownerId: text("owner_id").notNull(),
    taskId: text("task_id"),
    model: text("model").notNull(),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    cacheReadTokens: integer("cache_read_tokens").notNull().default(0),
    cacheWriteTokens: integer("cache_write_tokens").notNull().default(0),
    costUsd: real("cost_usd").notNull().default(0),
    durationMs: integer("duration_ms").notNull().default(0),
    status: text("status").notNull(),
    startedAt: integer("started_at").notNull(),
  },
  (t) => [
    index("agent_runs_owner_started").on(t.ownerId, t.startedAt),
    index("agent_runs_thread").on(t.threadId),
    // The admin's usage view reads a range of days across users.
    index("agent_runs_started").on(t.startedAt),
  ],
);

/**
 * How far behind a thread's object the directory's last_activity may be: a conversation's messages
 * within it cost D1 no write (a change of name, status or the like is written at the next flush).
 */
export const DIRECTORY_ACTIVITY_GRAIN_MS = 60_000;

/** A thread's metadata, as its object last reported it: what an operator or a later feature reads across users. */
export const threadDirectory = sqliteTable(
  "thread_directory",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    status: text("status").notNull(),
    parentThreadId: text("parent_thread_id"),
    lastActivity: integer("last_activity").notNull(),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  // Only the threads active lately are looked up (a plugin change's announcement); a user's own list is their object's.
  (t) => [index("thread_directory_activity").on(t.lastActivity)],
);

/** A user's usage on a UTC day, whole (its owner's object writes the day's totals, not increments). */
export const usageDays = sqliteTable(
  "usage_days",
  {
    day: text("day").notNull(),
    ownerId: text("owner_id").notNull(),
    runs: integer("runs").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    cacheReadTokens: integer("cache_read_tokens").notNull(),
    cacheWriteTokens: integer("cache_write_tokens").notNull(),
    costUsd: real("cost_usd").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.ownerId] })],
);

export const pluginConfigs = sqliteTable("plugin_configs", {
  name: text("name").primaryKey(),
  version: text("version").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  order: integer("order").notNull(),
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
  updatedAt: integer("updated_at").notNull(),
});

export const contextFiles = sqliteTable(
  "context_files",
  {
    ownerId: text("owner_id").notNull(),
    path: text("path").notNull(),
    content: text("content").notNull(),
    bytes: integer("bytes").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ownerId, t.path] })],
);

/** Files sent with messages: the bytes are in R2 (the FILES bucket), the record and quota here. */
export const attachments = sqliteTable(
  "attachments",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    threadId: text("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    mediaType: text("media_type").notNull(),
    bytes: integer("bytes").notNull(),
    r2Key: text("r2_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("attachments_owner").on(t.ownerId), index("attachments_thread").on(t.threadId)],
);

export type ThreadRow = typeof threads.$inferSelect;
export type AttachmentRow = typeof attachments.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type RunRow = typeof agentRuns.$inferSelect;
export type PluginConfigRow = typeof pluginConfigs.$inferSelect;
export type ContextFileRow = typeof contextFiles.$inferSelect;
export type DirectoryRow = typeof threadDirectory.$inferInsert;
export type UsageDayRow = typeof usageDays.$inferInsert;
