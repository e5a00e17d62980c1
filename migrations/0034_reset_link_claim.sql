-- The request that uses a reset link marks it with a random claim beside used_at; its other writes (the password, the
-- sessions ended, the email) run only where the claim is its own (two sends in one millisecond share used_at).
ALTER TABLE `password_reset_tokens` ADD `claim` text;