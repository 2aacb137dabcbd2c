CREATE TABLE `attachments` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`thread_id` text NOT NULL,
	`name` text NOT NULL,
	`media_type` text NOT NULL,
	`bytes` integer NOT NULL,
	`r2_key` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`thread_id`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `attachments_owner` ON `attachments` (`owner_id`);--> statement-breakpoint
CREATE INDEX `attachments_thread` ON `attachments` (`thread_id`);--> statement-breakpoint
-- Full-text search over the text messages (user, assistant and system text), kept in step with the
-- messages table by triggers, so the objects' mirror flushes index as they write. The index row's
-- rowid is the message row's, so an update or a delete finds it directly.
CREATE VIRTUAL TABLE `messages_fts` USING fts5(`content`, `message_id` UNINDEXED, `thread_id` UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');--> statement-breakpoint
CREATE TRIGGER `messages_fts_insert` AFTER INSERT ON `messages` WHEN new.kind = 'text' BEGIN
  INSERT INTO `messages_fts` (rowid, content, message_id, thread_id) VALUES (new.rowid, new.content, new.id, new.thread_id);
END;--> statement-breakpoint
CREATE TRIGGER `messages_fts_update` AFTER UPDATE OF `content`, `kind` ON `messages` BEGIN
  DELETE FROM `messages_fts` WHERE rowid = old.rowid;
  INSERT INTO `messages_fts` (rowid, content, message_id, thread_id) SELECT new.rowid, new.content, new.id, new.thread_id WHERE new.kind = 'text';
END;--> statement-breakpoint
CREATE TRIGGER `messages_fts_delete` AFTER DELETE ON `messages` BEGIN
  DELETE FROM `messages_fts` WHERE rowid = old.rowid;
END;--> statement-breakpoint
INSERT INTO `messages_fts` (rowid, content, message_id, thread_id) SELECT rowid, content, id, thread_id FROM `messages` WHERE kind = 'text';
