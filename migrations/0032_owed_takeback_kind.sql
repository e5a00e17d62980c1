-- What a returning hold pays toward a purchase's takeback (migration 0013) was always written to the history as a
-- refund ("Taken back: payment refunded"), a lost dispute's too. The ledger row now says chargeback when the purchase's
-- payment lost a dispute, refund otherwise (one row per kind, should one offer's hold span purchases of both).
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
  SELECT lower(hex(randomblob(16))), NEW.`sender_user_id`, `kind`, -sum(`claimed`), 0, NEW.`id`, NEW.`updated_at`
  FROM (
    SELECT min(`e`.`connects_owed`, `x`.`parts`) AS `claimed`,
      CASE WHEN EXISTS (
        SELECT 1 FROM `payment_events` AS `d`
        WHERE `d`.`payment_intent_id` = `e`.`payment_intent_id` AND `d`.`type` = 'charge.dispute.closed' AND `d`.`outcome` = 'revoked'
      ) THEN 'chargeback' ELSE 'refund' END AS `kind`
    FROM (
      SELECT `l`.`payment_event_id` AS `event_id`, sum(`p`.`amount`) AS `parts`
      FROM `connect_hold_parts` AS `p` JOIN `connect_lots` AS `l` ON `l`.`id` = `p`.`lot_id`
      WHERE `p`.`offer_id` = NEW.`id` AND `l`.`payment_event_id` IS NOT NULL
      GROUP BY `l`.`payment_event_id`
    ) AS `x` JOIN `payment_events` AS `e` ON `e`.`id` = `x`.`event_id`
  )
  GROUP BY `kind`
  HAVING sum(`claimed`) > 0;

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
