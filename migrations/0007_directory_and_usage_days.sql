CREATE TABLE `thread_directory` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`parent_thread_id` text,
	`last_activity` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `thread_directory_activity` ON `thread_directory` (`last_activity`);--> statement-breakpoint
CREATE TABLE `usage_days` (
	`day` text NOT NULL,
	`owner_id` text NOT NULL,
	`runs` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`cache_read_tokens` integer NOT NULL,
	`cache_write_tokens` integer NOT NULL,
	`cost_usd` real NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`day`, `owner_id`)
);
--> statement-breakpoint
-- What a deployment from before wrote, carried over: its threads' metadata, and each user's days from its copy of every run.
INSERT INTO `thread_directory` (`id`, `owner_id`, `kind`, `name`, `status`, `parent_thread_id`, `last_activity`, `created_at`, `updated_at`)
  SELECT `id`, `owner_id`, `kind`, `name`, `status`, `parent_thread_id`, `last_activity`, `created_at`, `updated_at` FROM `threads`;--> statement-breakpoint
INSERT INTO `usage_days` (`day`, `owner_id`, `runs`, `input_tokens`, `output_tokens`, `cache_read_tokens`, `cache_write_tokens`, `cost_usd`, `updated_at`)
  SELECT strftime('%Y-%m-%d', `started_at` / 1000, 'unixepoch'), `owner_id`, count(*), sum(`input_tokens`), sum(`output_tokens`), sum(`cache_read_tokens`),
    sum(`cache_write_tokens`), sum(`cost_usd`), max(`started_at`)
  FROM `agent_runs` GROUP BY 1, 2;
