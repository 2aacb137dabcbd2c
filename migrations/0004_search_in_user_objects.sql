-- Search lives in each user's object (worker/user/search.ts): D1's index over every user's messages
-- answers nothing now, and each mirrored message wrote it again. The messages stay (the record).
DROP TRIGGER IF EXISTS `messages_fts_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `messages_fts_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `messages_fts_delete`;--> statement-breakpoint
DROP TABLE IF EXISTS `messages_fts`;
