-- Every signed-in page shows the balance less the user's lots whose year is up but that the five-minute job has not
-- taken yet (app/services/sessions.server.ts). Lots are kept after they are spent or expire, so the page reads only
-- the ones that still count (none, once the job has run), not every old lot of the account.
CREATE INDEX `connect_lots_user_due_idx` ON `connect_lots` (`user_id`,`expires_at`) WHERE remaining > 0;