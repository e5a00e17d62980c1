ALTER TABLE `link_checks` ADD `href` text;--> statement-breakpoint
ALTER TABLE `link_checks` ADD `hidden` integer DEFAULT false NOT NULL;