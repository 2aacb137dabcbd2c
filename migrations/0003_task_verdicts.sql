-- The latest verdict on a task's result (Task.verdict), as JSON: its card shows it after a reload.
ALTER TABLE `tasks` ADD `verdict` text;