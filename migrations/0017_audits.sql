ALTER TABLE `score_runs` ADD `reason` text DEFAULT 'weekly' NOT NULL;--> statement-breakpoint
ALTER TABLE `score_runs` ADD `step` text;--> statement-breakpoint
CREATE INDEX `score_runs_running_idx` ON `score_runs` (`started_at`) WHERE status = 'running';--> statement-breakpoint
ALTER TABLE `sites` ADD `audit_due_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `sites_audit_due_idx` ON `sites` (`audit_due_at`);