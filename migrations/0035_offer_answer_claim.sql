-- The request that answers an offer marks it with a random claim beside answered_at; the answer's other writes (the
-- sender's materials, the email) run only where the claim is its own (two answers in one millisecond share answered_at).
ALTER TABLE `offers` ADD `answer_claim` text;