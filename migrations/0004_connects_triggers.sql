-- The connects ledger (docs/decisions/0012-connects-lots-and-expiry.md and 0013-proposal-holds-connects.md). Every movement of connects happens here, inside the statement that
-- causes it, so it is atomic with it and happens exactly once:
--   a new offer holds its price from the sender's lots that expire first (connect_hold_parts records where from);
--   pending -> accepted spends the hold; pending -> declined / rescind / expired returns it as `return` lots that
--   keep the original expiry.
-- Guards abort the whole statement (and the D1 batch around it) instead of letting a balance go below zero.
-- Invariants: users.connects = sum(connect_ledger.amount), users.connects_held = sum(connect_ledger.held).

CREATE TRIGGER `users_connects_guard` BEFORE UPDATE OF `connects`, `connects_held` ON `users`
WHEN NEW.`connects` < 0 OR NEW.`connects_held` < 0
BEGIN
  SELECT raise(ABORT, 'insufficient connects');
END;
--> statement-breakpoint
CREATE TRIGGER `connect_lots_guard` BEFORE UPDATE OF `remaining` ON `connect_lots`
WHEN NEW.`remaining` < 0
BEGIN
  SELECT raise(ABORT, 'insufficient connects');
END;
--> statement-breakpoint
CREATE TRIGGER `offers_hold` AFTER INSERT ON `offers`
BEGIN
  INSERT INTO `connect_hold_parts` (`offer_id`, `lot_id`, `amount`)
  SELECT NEW.`id`, `id`, min(`remaining`, NEW.`connects` - `before`)
  FROM (
    SELECT `id`, `remaining`,
      coalesce(sum(`remaining`) OVER (ORDER BY `expires_at`, `id` ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS `before`
    FROM `connect_lots`
    WHERE `user_id` = NEW.`sender_user_id` AND `remaining` > 0 AND `expires_at` > NEW.`created_at`
  )
  WHERE `before` < NEW.`connects`;

  SELECT raise(ABORT, 'insufficient connects')
  WHERE coalesce((SELECT sum(`amount`) FROM `connect_hold_parts` WHERE `offer_id` = NEW.`id`), 0) < NEW.`connects`;

  UPDATE `connect_lots`
  SET `remaining` = `remaining` - (
    SELECT `amount` FROM `connect_hold_parts` AS `p` WHERE `p`.`offer_id` = NEW.`id` AND `p`.`lot_id` = `connect_lots`.`id`
  )
  WHERE `id` IN (SELECT `lot_id` FROM `connect_hold_parts` WHERE `offer_id` = NEW.`id`);

  UPDATE `users`
  SET `connects` = `connects` - NEW.`connects`, `connects_held` = `connects_held` + NEW.`connects`
  WHERE `id` = NEW.`sender_user_id`;

  INSERT INTO `connect_ledger` (`id`, `user_id`, `kind`, `amount`, `held`, `offer_id`, `created_at`)
  VALUES (lower(hex(randomblob(16))), NEW.`sender_user_id`, 'hold', -NEW.`connects`, NEW.`connects`, NEW.`id`, NEW.`created_at`);
END;
--> statement-breakpoint
CREATE TRIGGER `offers_spend` AFTER UPDATE OF `status` ON `offers`
WHEN OLD.`status` = 'pending' AND NEW.`status` = 'accepted'
BEGIN
  UPDATE `users` SET `connects_held` = `connects_held` - NEW.`connects` WHERE `id` = NEW.`sender_user_id`;
  INSERT INTO `connect_ledger` (`id`, `user_id`, `kind`, `amount`, `held`, `offer_id`, `created_at`)
  VALUES (lower(hex(randomblob(16))), NEW.`sender_user_id`, 'spend', 0, -NEW.`connects`, NEW.`id`, NEW.`updated_at`);
END;
--> statement-breakpoint
CREATE TRIGGER `offers_return` AFTER UPDATE OF `status` ON `offers`
WHEN OLD.`status` = 'pending' AND NEW.`status` IN ('declined', 'rescind', 'expired')
BEGIN
  INSERT INTO `connect_lots` (`id`, `user_id`, `source`, `amount`, `remaining`, `expires_at`, `created_at`)
  SELECT lower(hex(randomblob(16))), NEW.`sender_user_id`, 'return', `p`.`amount`, `p`.`amount`, `l`.`expires_at`, NEW.`updated_at`
  FROM `connect_hold_parts` AS `p` JOIN `connect_lots` AS `l` ON `l`.`id` = `p`.`lot_id`
  WHERE `p`.`offer_id` = NEW.`id`;

  UPDATE `users`
  SET `connects` = `connects` + NEW.`connects`, `connects_held` = `connects_held` - NEW.`connects`
  WHERE `id` = NEW.`sender_user_id`;

  INSERT INTO `connect_ledger` (`id`, `user_id`, `kind`, `amount`, `held`, `offer_id`, `created_at`)
  VALUES (lower(hex(randomblob(16))), NEW.`sender_user_id`, 'return', NEW.`connects`, -NEW.`connects`, NEW.`id`, NEW.`updated_at`);
END;
