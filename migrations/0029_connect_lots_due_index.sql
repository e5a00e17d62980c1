-- Connects whose year is up leave the balance within five minutes (the five-minute job), not at the next daily run:
-- until then the balance counted them but a proposal could not hold them. The job finds the lots that are due and
-- still count through this index, without reading every lot.
CREATE INDEX `connect_lots_due_idx` ON `connect_lots` (`expires_at`) WHERE remaining > 0;
