CREATE TABLE `payment_takebacks` (
	`event_id` text NOT NULL,
	`lot_id` text NOT NULL,
	`amount` integer NOT NULL,
	PRIMARY KEY(`event_id`, `lot_id`),
	FOREIGN KEY (`lot_id`) REFERENCES `connect_lots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `payment_events` ADD `connects_owed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A hold that returns keeps the purchase it came from (so a later refund finds it), and pays first what a refund
-- or lost dispute of that purchase still claims: those connects were held, not spent, when the money went back.
-- Per purchase: min(what it still claims, what of it returns now), spread over the returning parts in lot order.
DROP TRIGGER `offers_return`;
--> statement-breakpoint
CREATE TRIGGER `offers_return` AFTER UPDATE OF `status` ON `offers`
WHEN OLD.`status` = 'pending' AND NEW.`status` IN ('declined', 'rescind', 'expired')
BEGIN
  INSERT INTO `connect_lots` (`id`, `user_id`, `source`, `amount`, `remaining`, `expires_at`, `payment_event_id`, `created_at`)
  SELECT lower(hex(randomblob(16))), NEW.`sender_user_id`, 'return', `amount` - `claimed`, `amount` - `claimed`, `expires_at`, `payment_event_id`, NEW.`updated_at`
  FROM (
    SELECT `p`.`amount`, `l`.`expires_at`, `l`.`payment_event_id`,
      CASE WHEN coalesce(`e`.`connects_owed`, 0) > 0 THEN min(`p`.`amount`, max(0, `e`.`connects_owed` - coalesce(sum(`p`.`amount`) OVER (
        PARTITION BY `l`.`payment_event_id` ORDER BY `p`.`lot_id` ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))) ELSE 0 END AS `claimed`
    FROM `connect_hold_parts` AS `p`
    JOIN `connect_lots` AS `l` ON `l`.`id` = `p`.`lot_id`
    LEFT JOIN `payment_events` AS `e` ON `e`.`id` = `l`.`payment_event_id`
    WHERE `p`.`offer_id` = NEW.`id`
  )
  WHERE `amount` - `claimed` > 0;

  INSERT INTO `connect_ledger` (`id`, `user_id`, `kind`, `amount`, `held`, `offer_id`, `created_at`)
  VALUES (lower(hex(randomblob(16))), NEW.`sender_user_id`, 'return', NEW.`connects`, -NEW.`connects`, NEW.`id`, NEW.`updated_at`);

  INSERT INTO `connect_ledger` (`id`, `user_id`, `kind`, `amount`, `held`, `offer_id`, `created_at`)
  SELECT lower(hex(randomblob(16))), NEW.`sender_user_id`, 'refund', -`claimed`, 0, NEW.`id`, NEW.`updated_at`
  FROM (
    SELECT coalesce(sum(min(`e`.`connects_owed`, `x`.`parts`)), 0) AS `claimed`
    FROM (
      SELECT `l`.`payment_event_id` AS `event_id`, sum(`p`.`amount`) AS `parts`
      FROM `connect_hold_parts` AS `p` JOIN `connect_lots` AS `l` ON `l`.`id` = `p`.`lot_id`
      WHERE `p`.`offer_id` = NEW.`id` AND `l`.`payment_event_id` IS NOT NULL
      GROUP BY `l`.`payment_event_id`
    ) AS `x` JOIN `payment_events` AS `e` ON `e`.`id` = `x`.`event_id`
  )
  WHERE `claimed` > 0;

  UPDATE `users`
  SET `connects` = `connects` + NEW.`connects` - coalesce((
      SELECT sum(min(`e`.`connects_owed`, `x`.`parts`))
      FROM (
        SELECT `l`.`payment_event_id` AS `event_id`, sum(`p`.`amount`) AS `parts`
        FROM `connect_hold_parts` AS `p` JOIN `connect_lots` AS `l` ON `l`.`id` = `p`.`lot_id`
        WHERE `p`.`offer_id` = NEW.`id` AND `l`.`payment_event_id` IS NOT NULL
        GROUP BY `l`.`payment_event_id`
      ) AS `x` JOIN `payment_events` AS `e` ON `e`.`id` = `x`.`event_id`
    ), 0),
    `connects_held` = `connects_held` - NEW.`connects`
  WHERE `id` = NEW.`sender_user_id`;

  UPDATE `payment_events`
  SET `connects_revoked` = `connects_revoked` + min(`connects_owed`, (
        SELECT sum(`p`.`amount`) FROM `connect_hold_parts` AS `p` JOIN `connect_lots` AS `l` ON `l`.`id` = `p`.`lot_id`
        WHERE `p`.`offer_id` = NEW.`id` AND `l`.`payment_event_id` = `payment_events`.`id`)),
      `connects_owed` = `connects_owed` - min(`connects_owed`, (
        SELECT sum(`p`.`amount`) FROM `connect_hold_parts` AS `p` JOIN `connect_lots` AS `l` ON `l`.`id` = `p`.`lot_id`
        WHERE `p`.`offer_id` = NEW.`id` AND `l`.`payment_event_id` = `payment_events`.`id`))
  WHERE `connects_owed` > 0
    AND `id` IN (SELECT `l`.`payment_event_id` FROM `connect_hold_parts` AS `p` JOIN `connect_lots` AS `l` ON `l`.`id` = `p`.`lot_id` WHERE `p`.`offer_id` = NEW.`id`);
END;
