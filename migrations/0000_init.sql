CREATE TABLE `agent_runs` (
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
	`started_at` integer NOT NULL,
	FOREIGN KEY (`thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_runs_owner_started` ON `agent_runs` (`owner_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `agent_runs_thread` ON `agent_runs` (`thread_id`);--> statement-breakpoint
CREATE TABLE `context_files` (
	`owner_id` text NOT NULL,
	`path` text NOT NULL,
	`content` text NOT NULL,
	`bytes` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `path`)
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`thread_id` text NOT NULL,
	`role` text NOT NULL,
	`kind` text DEFAULT 'text' NOT NULL,
	`source` text DEFAULT 'web' NOT NULL,
	`content` text NOT NULL,
	`model` text,
	`metadata` text,
	`client_message_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_client_id_unique` ON `messages` (`thread_id`,`client_message_id`);--> statement-breakpoint
CREATE INDEX `messages_thread_created` ON `messages` (`thread_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_thread_kind` ON `messages` (`thread_id`,`kind`);--> statement-breakpoint
CREATE TABLE `metrics` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`name` text NOT NULL,
	`value` real NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `agent_runs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `metrics_run` ON `metrics` (`run_id`);--> statement-breakpoint
CREATE TABLE `plugin_configs` (
	`name` text PRIMARY KEY NOT NULL,
	`version` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`order` integer NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`thread_id` text NOT NULL,
	`parent_thread_id` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`prompt` text NOT NULL,
	`result` text,
	`model` text,
	`depth` integer DEFAULT 1 NOT NULL,
	`max_iterations` integer NOT NULL,
	`current_iteration` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tasks_parent` ON `tasks` (`parent_thread_id`);--> statement-breakpoint
CREATE INDEX `tasks_owner_status` ON `tasks` (`owner_id`,`status`);--> statement-breakpoint
CREATE TABLE `threads` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`source` text DEFAULT 'web' NOT NULL,
	`source_id` text,
	`name` text NOT NULL,
	`kind` text DEFAULT 'general' NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`session_id` text,
	`model` text NOT NULL,
	`parent_thread_id` text,
	`last_activity` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`parent_thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `threads_source_unique` ON `threads` (`source`,`source_id`);--> statement-breakpoint
CREATE INDEX `threads_owner_activity` ON `threads` (`owner_id`,`last_activity`);--> statement-breakpoint
CREATE INDEX `threads_parent` ON `threads` (`parent_thread_id`);