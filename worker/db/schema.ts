// The deployment's record (D1): the plugin registry, and a copy of the objects' rows (threads, messages,
// runs, metrics, context files) for the admin's usage view, recovery and the objects' first-touch
// imports. Each thread's primary store is its ThreadRoom's SQLite (worker/thread/store/), each user's
// their UserRoom's (worker/user/, whose tables are these by name); both mirror here through outboxes.
// `tasks` and `attachments` are read by the user's import only (for users from before their object).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { TaskVerdict } from "../../protocol";

const createdAt = () => integer("created_at").notNull();

export const threads = sqliteTable(
  "threads",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    source: text("source").notNull().default("web"),
    sourceId: text("source_id"),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["general", "primary", "task", "cron"] }).notNull().default("general"),
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

export const metrics = sqliteTable(
  "metrics",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: text("run_id")
      .notNull()
      .references(() => agentRuns.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    value: real("value").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("metrics_run_name").on(t.runId, t.name)],
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
