-- Threads now live first in their Durable Object; D1 mirrors them. New fields: instructions, head_id
-- (branches), messages.parent_id. Usage outlives its thread: agent_runs loses its foreign key to
-- threads. Metrics become idempotent by (run_id, name), so a retried mirror flush never doubles them.
--
-- Rebuilding agent_runs drops the old table, and D1 always enforces foreign keys, so that drop
-- cascades to metrics: the metrics rows are kept aside and put back.
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__metrics_keep` AS SELECT * FROM `metrics`;--> statement-breakpoint
CREATE TABLE `__new_agent_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`thread_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`task_id` text,
	`model` text NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cache_read_tokens` integer DEFAULT 0 NOT NULL,
	`cache_write_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	`duration_ms` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`started_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_agent_runs`("id", "thread_id", "owner_id", "task_id", "model", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "duration_ms", "status", "started_at") SELECT "id", "thread_id", "owner_id", "task_id", "model", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "duration_ms", "status", "started_at" FROM `agent_runs`;--> statement-breakpoint
DROP TABLE `agent_runs`;--> statement-breakpoint
ALTER TABLE `__new_agent_runs` RENAME TO `agent_runs`;--> statement-breakpoint
CREATE INDEX `agent_runs_owner_started` ON `agent_runs` (`owner_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `agent_runs_thread` ON `agent_runs` (`thread_id`);--> statement-breakpoint
DELETE FROM `metrics`;--> statement-breakpoint
INSERT INTO `metrics` SELECT * FROM `__metrics_keep` WHERE `id` IN (SELECT min(`id`) FROM `__metrics_keep` GROUP BY `run_id`, `name`);--> statement-breakpoint
DROP TABLE `__metrics_keep`;--> statement-breakpoint
DROP INDEX `metrics_run`;--> statement-breakpoint
CREATE UNIQUE INDEX `metrics_run_name` ON `metrics` (`run_id`,`name`);--> statement-breakpoint
ALTER TABLE `messages` ADD `parent_id` text;--> statement-breakpoint
ALTER TABLE `threads` ADD `instructions` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `threads` ADD `head_id` text;
