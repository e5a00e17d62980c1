-- The weekly audit is for verified sites (docs/decisions/0011-authority-score-audit.md): the job finds those due
-- through this index without reading unverified ones, however many free sign-ups leave.
DROP INDEX `sites_audit_due_idx`;--> statement-breakpoint
CREATE INDEX `sites_audit_due_idx` ON `sites` (`audit_due_at`) WHERE verified = 1;