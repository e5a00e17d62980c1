/**
 * The whole data model of the marketplace. Times are UTC epoch milliseconds; connects are integers.
 * Lists of option ids (tags, materials, content types) are JSON arrays of the ids in app/domain/options.ts.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** 40 to 99 from the first eight characters of a site's id (random hex): the placeholder score's formula. */
const PLACEHOLDER_SCORE_SQL =
  "40 + ((coalesce(unicode(substr(id, 1, 1)), 0) * 3 + coalesce(unicode(substr(id, 2, 1)), 0) * 5 + coalesce(unicode(substr(id, 3, 1)), 0) * 7" +
  " + coalesce(unicode(substr(id, 4, 1)), 0) * 11 + coalesce(unicode(substr(id, 5, 1)), 0) * 13 + coalesce(unicode(substr(id, 6, 1)), 0) * 17" +
  " + coalesce(unicode(substr(id, 7, 1)), 0) * 19 + coalesce(unicode(substr(id, 8, 1)), 0) * 23) % 60)";

const createdAt = () =>
  integer("created_at", { mode: "number" })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`);

const idList = (name: string) =>
  text(name, { mode: "json" })
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'`);

// ---------------------------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------------------------

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    /** Lower-cased, trimmed. */
    email: text("email").notNull(),
    emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
    /** Connects available to spend now (sum of unexpired lots minus holds); changed only by guarded statements. */
    connects: integer("connects").notNull().default(0),
    /** Connects held by proposals that are waiting for an answer. */
    connectsHeld: integer("connects_held").notNull().default(0),
    /** Notification emails (offers, messages, the site's verification); receipts and security emails always go. */
    notificationEmails: integer("notification_emails", { mode: "boolean" }).notNull().default(true),
    /** The secret of the user's unsubscribe links, made when the first notification email is sent. */
    unsubscribeToken: text("unsubscribe_token"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email), uniqueIndex("users_unsubscribe_token_unique").on(t.unsubscribeToken)],
);

export const passwordCredentials = sqliteTable("password_credentials", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** `scrypt$N$r$p$salt$hash` (base64), so the parameters can be raised later. */
  passwordHash: text("password_hash").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const oauthAccounts = sqliteTable(
  "oauth_accounts",
  {
    provider: text("provider", { enum: ["google", "github"] }).notNull(),
    providerUserId: text("provider_user_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerUserId] }), index("oauth_accounts_user_idx").on(t.userId)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    /** Hex SHA-256 of the token in the cookie; the token itself is never stored. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    activeSiteId: text("active_site_id"),
    createdAt: createdAt(),
    /** Sliding idle expiry. */
    expiresAt: integer("expires_at").notNull(),
    /** Absolute limit, never extended. */
    absoluteExpiresAt: integer("absolute_expires_at").notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

/**
 * Browsers an account signed in from with its password (OWASP's device cookies): a sign-in from one of them is not
 * refused by the account-wide ceiling on wrong passwords, only by a limit of its own. One browser's cookie may stand
 * for several accounts, a row each.
 */
export const knownDevices = sqliteTable(
  "known_devices",
  {
    /** Hex SHA-256 of the token in the device cookie. */
    id: text("id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.id, t.userId] }), index("known_devices_expires_idx").on(t.expiresAt)],
);

export const passwordResetTokens = sqliteTable(
  "password_reset_tokens",
  {
    /** Hex SHA-256 of the token in the emailed link. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    /** A random value the request that used the link wrote with `usedAt`: its other writes run only where it is theirs. */
    claim: text("claim"),
    createdAt: createdAt(),
  },
  (t) => [index("password_reset_tokens_user_idx").on(t.userId), index("password_reset_tokens_expires_idx").on(t.expiresAt)],
);

/**
 * Sign-up without JavaScript posts its steps one by one: step 0's email and password wait here (the password as
 * its hash) for half an hour, so the page of step 1 never carries the password back. The id is the hash of the
 * draft token in the form.
 */
export const signupDrafts = sqliteTable(
  "signup_drafts",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    expiresAt: integer("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("signup_drafts_expires_idx").on(t.expiresAt)],
);

/** Email confirmation links (docs/decisions/0022-email-confirmation.md): single use, a day long; only the token's hash is stored. */
export const emailConfirmationTokens = sqliteTable(
  "email_confirmation_tokens",
  {
    /** Hex SHA-256 of the token in the emailed link. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("email_confirmation_tokens_user_idx").on(t.userId), index("email_confirmation_tokens_expires_idx").on(t.expiresAt)],
);

/** Fixed-window counters for rate limits; `key` names the action and the subject (ip or account). */
export const rateLimits = sqliteTable(
  "rate_limits",
  {
    key: text("key").notNull(),
    windowStart: integer("window_start").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] }), index("rate_limits_window_idx").on(t.windowStart)],
);

// ---------------------------------------------------------------------------------------------
// Sites and listings
// ---------------------------------------------------------------------------------------------

export const sites = sqliteTable(
  "sites",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The address as the owner typed it. */
    url: text("url").notNull(),
    /** Normalised: lower-case host, no scheme, no www., no trailing slash. */
    host: text("host").notNull(),
    description: text("description").notNull().default(""),
    category: text("category").notNull().default("blog"),
    /** Full https address of the site's icon or the name of a local logo; null shows the product favicon. */
    icon: text("icon"),
    verified: integer("verified", { mode: "boolean" }).notNull().default(false),
    verificationToken: text("verification_token").notNull(),
    verifiedAt: integer("verified_at"),
    /** Last check of the verification tag (by the owner or the monthly re-check) and what went wrong, if anything. */
    verificationCheckedAt: integer("verification_checked_at"),
    verificationError: text("verification_error"),
    /** Re-checks of a verified site that failed in a row; three remove the verification. */
    verificationFailures: integer("verification_failures").notNull().default(0),
    /** When the scheduled job re-checks this verified site's tag next. */
    verificationDueAt: integer("verification_due_at"),
    /** Authority score, rounded up; null until the first audit. */
    score: integer("score"),
    /**
     * Shown (and filtered on) in place of the score until the first audit (docs/decisions/0024-placeholder-score.md):
     * derived from the site's random id, so it is the same on every page, in every filter, for everyone.
     */
    placeholderScore: integer("placeholder_score").generatedAlwaysAs(sql.raw(PLACEHOLDER_SCORE_SQL), { mode: "virtual" }),
    scoreRunAt: integer("score_run_at"),
    domainAuthority: integer("domain_authority"),
    onPageSeo: integer("on_page_seo"),
    technicalSeo: integer("technical_seo"),
    links: integer("links"),
    speed: integer("speed"),
    ssl: integer("ssl"),
    /**
     * When the scheduled job audits the site next: 0 (at once) for a new site, though the audit after sign-up or
     * add-site normally gets there first; then weekly, or a day after a run that could not read the site.
     */
    auditDueAt: integer("audit_due_at").notNull().default(0),
    /**
     * The site's record from what the product saw (`app/services/reputation.server.ts`), kept up to date when it
     * answers an offer, moves a trade, or one of its delivered links is checked: its sides of accepted trades
     * completed and settled (completed, stopped, or accepted more than 30 days ago), offers answered and the median
     * time to answer, and its delivered links checked at 30 and 90 days and how many were live then.
     */
    repCompleted: integer("rep_completed").notNull().default(0),
    repSettled: integer("rep_settled").notNull().default(0),
    repAnswered: integer("rep_answered").notNull().default(0),
    repAnswerMs: integer("rep_answer_ms"),
    repLinks30: integer("rep_links_30").notNull().default(0),
    repLive30: integer("rep_live_30").notNull().default(0),
    repLinks90: integer("rep_links_90").notNull().default(0),
    repLive90: integer("rep_live_90").notNull().default(0),
    /** Sort key of "Best record": 0 a poor record, 1 no record yet, above that the better the higher. */
    repSort: integer("rep_sort").notNull().default(1),
    /**
     * When the record stored was counted (ms): a count that started earlier never overwrites it, so two refreshes
     * that overlap leave the later count.
     */
    repCountedAt: integer("rep_counted_at").notNull().default(0),
    tags: idList("tags"),
    materials: idList("materials"),
    contentTypes: idList("content_types"),
    /** The site's row in the full-text index `site_search` (migrations/0002), set by a trigger. */
    searchRowid: integer("search_rowid"),
    createdAt: createdAt(),
  },
  (t) => [
    index("sites_user_idx").on(t.userId, t.createdAt),
    uniqueIndex("sites_search_rowid_unique").on(t.searchRowid),
    uniqueIndex("sites_user_host_unique").on(t.userId, t.host),
    index("sites_host_idx").on(t.host),
    index("sites_score_idx").on(t.score),
    index("sites_verification_due_idx").on(t.verificationDueAt),
    // The sites the weekly audit is for: verified ones (docs/decisions/0011-authority-score-audit.md).
    index("sites_audit_due_idx")
      .on(t.auditDueAt)
      .where(sql`verified = 1`),
    // migrations/0023 adds the partial index `sites_tradable_idx` (verified sites only) that the search checks its
    // candidates in, and 0025 `sites_tradable_record_idx` (verified sites in record order, newest first among equal
    // records since 0028, which dropped 0018's `sites_rep_sort_idx`) that the market and a search sorted by record
    // walk; like the search's other indexes and tables (0020 to 0028: `site_tag_pairs` in 0024, the index of the tags'
    // sites `site_tag_search` and its `search_tag_groups` in 0026, `site_tags` and `site_tag_pairs` made again in
    // record order in 0027) they are written by hand, not generated from here.
  ],
);

/** A site's offer in the market ("post"). One listing per site. */
export const listings = sqliteTable(
  "listings",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Price of a proposal in connects, 1 to 99. */
    connects: integer("connects").notNull(),
    contentTypes: idList("content_types"),
    materials: idList("materials"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("listings_site_unique").on(t.siteId),
    index("listings_active_created_idx").on(t.active, t.createdAt),
    index("listings_user_idx").on(t.userId),
    // migrations/0023 adds the partial index `listings_active_site_idx` (active listings only), written by hand.
  ],
);

// ---------------------------------------------------------------------------------------------
// Offers and trades
// ---------------------------------------------------------------------------------------------

export const offers = sqliteTable(
  "offers",
  {
    id: text("id").primaryKey(),
    listingId: text("listing_id").references(() => listings.id, { onDelete: "set null" }),
    senderUserId: text("sender_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    senderSiteId: text("sender_site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    receiverUserId: text("receiver_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    receiverSiteId: text("receiver_site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    /** Price held from the sender when the proposal was sent. */
    connects: integer("connects").notNull(),
    /** `expired`: nobody answered in time; the hold was returned (shown as NORES Incomplete). */
    status: text("status", { enum: ["pending", "declined", "rescind", "accepted", "expired"] })
      .notNull()
      .default("pending"),
    /** When a pending offer's hold is returned for lack of an answer. */
    answerBy: integer("answer_by").notNull(),
    answeredAt: integer("answered_at"),
    /** Set when nobody answered in time (shown as NORES Incomplete). */
    expiredAt: integer("expired_at"),
    /** A random value the answer's request wrote with it: the answer's other writes run only where it is theirs. */
    answerClaim: text("answer_claim"),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("offers_sender_site_idx").on(t.senderSiteId, t.createdAt),
    index("offers_receiver_site_idx").on(t.receiverSiteId, t.createdAt),
    index("offers_status_answer_by_idx").on(t.status, t.answerBy),
    // One pending proposal per sending site and listing: a double submit can never hold twice.
    uniqueIndex("offers_pending_unique")
      .on(t.senderSiteId, t.listingId)
      .where(sql`status = 'pending'`),
  ],
);

/** One entry per participant of an offer. */
export const offerEntries = sqliteTable(
  "offer_entries",
  {
    offerId: text("offer_id")
      .notNull()
      .references(() => offers.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["sender", "receiver"] }).notNull(),
    createContentType: text("create_content_type").notNull(),
    provideMaterials: idList("provide_materials"),
    status: text("status", { enum: ["not_started", "in_progress", "completed", "stopped"] })
      .notNull()
      .default("not_started"),
    contentUrl: text("content_url"),
    /** The delivered page itself (where it was read after redirects, less what its canonical drops): one page, one delivery. */
    pageUrl: text("page_url"),
    /**
     * The delivered link as the last check saw it (live, nofollow, hidden, lost, moved: it points elsewhere now), when
     * it is checked next (daily, spread over the day) and until when it is watched (a year after delivery).
     */
    linkStatus: text("link_status", { enum: ["live", "nofollow", "hidden", "lost", "moved"] }),
    linkCheckedAt: integer("link_checked_at"),
    linkDueAt: integer("link_due_at"),
    linkWatchUntil: integer("link_watch_until"),
    /** Trash is per participant: it hides the offer for this side only. */
    trashedAt: integer("trashed_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.offerId, t.userId] }),
    index("offer_entries_user_idx").on(t.userId),
    index("offer_entries_link_due_idx").on(t.linkDueAt),
  ],
);

/** Checks of delivered backlinks: the content url of an entry, fetched and searched for a link to the other site. */
export const linkChecks = sqliteTable(
  "link_checks",
  {
    id: text("id").primaryKey(),
    offerId: text("offer_id")
      .notNull()
      .references(() => offers.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    contentUrl: text("content_url").notNull(),
    targetHost: text("target_host").notNull(),
    state: text("state", { enum: ["found", "missing", "changed", "nofollow", "error"] }).notNull(),
    /** follow, nofollow, sponsored or ugc: the link found (the best one when there are several). */
    rel: text("rel"),
    anchorText: text("anchor_text"),
    /** The link's address as written on the page, resolved, and whether it is hidden (hidden, inline style, zero size). */
    href: text("href"),
    hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
    error: text("error"),
    checkedAt: integer("checked_at").notNull(),
  },
  (t) => [index("link_checks_offer_idx").on(t.offerId, t.checkedAt), index("link_checks_checked_idx").on(t.checkedAt)],
);

// ---------------------------------------------------------------------------------------------
// Connects
// ---------------------------------------------------------------------------------------------

export const connectLots = sqliteTable(
  "connect_lots",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    source: text("source", { enum: ["starter", "purchase", "return"] }).notNull(),
    amount: integer("amount").notNull(),
    remaining: integer("remaining").notNull(),
    expiresAt: integer("expires_at").notNull(),
    paymentEventId: text("payment_event_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("connect_lots_user_expires_idx").on(t.userId, t.expiresAt),
    // A user's lots whose year is up and that still count (none, once the five-minute job has run): every signed-in
    // page leaves them out of the balance it shows, reading only these.
    index("connect_lots_user_due_idx")
      .on(t.userId, t.expiresAt)
      .where(sql`remaining > 0`),
    // The lots whose year is up and that still count, found every five minutes without reading the others.
    index("connect_lots_due_idx")
      .on(t.expiresAt)
      .where(sql`remaining > 0`),
  ],
);

export const connectLedger = sqliteTable(
  "connect_ledger",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** refund and chargeback: connects of a purchase taken back after the payment was refunded or a dispute lost. */
    kind: text("kind", { enum: ["grant", "purchase", "hold", "spend", "return", "expire", "refund", "chargeback"] }).notNull(),
    /** Signed change of the available balance. */
    amount: integer("amount").notNull(),
    /** Signed change of the held balance (holds of sent proposals). */
    held: integer("held").notNull().default(0),
    lotId: text("lot_id"),
    offerId: text("offer_id"),
    paymentEventId: text("payment_event_id"),
    createdAt: createdAt(),
  },
  (t) => [index("connect_ledger_user_idx").on(t.userId, t.createdAt), index("connect_ledger_offer_idx").on(t.offerId)],
);

/** What a refund or lost dispute took back from each lot of the purchase (its own lot and the holds it returned). */
export const paymentTakebacks = sqliteTable(
  "payment_takebacks",
  {
    eventId: text("event_id").notNull(),
    lotId: text("lot_id")
      .notNull()
      .references(() => connectLots.id, { onDelete: "cascade" }),
    amount: integer("amount").notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.lotId] })],
);

/** Where a proposal's hold came from: the lots it took connects from, expiring first (see migrations/0004). */
export const connectHoldParts = sqliteTable(
  "connect_hold_parts",
  {
    offerId: text("offer_id")
      .notNull()
      .references(() => offers.id, { onDelete: "cascade" }),
    lotId: text("lot_id")
      .notNull()
      .references(() => connectLots.id, { onDelete: "cascade" }),
    amount: integer("amount").notNull(),
  },
  (t) => [primaryKey({ columns: [t.offerId, t.lotId] })],
);

/**
 * Payment provider events, each recorded once by its id (a replay finds its row and changes nothing). A credited
 * checkout also holds its checkout session (unique: one credit per session, whichever event brings it), its
 * payment intent (so a refund or a lost dispute finds the lot), the receipt (amount and currency) and how many of
 * its connects were taken back.
 */
export const paymentEvents = sqliteTable(
  "payment_events",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** credited | revoked | failed (a pending payment that did not go through) | ignored (with `note` saying why). */
    outcome: text("outcome", { enum: ["credited", "revoked", "failed", "ignored"] })
      .notNull()
      .default("ignored"),
    note: text("note"),
    checkoutSessionId: text("checkout_session_id"),
    paymentIntentId: text("payment_intent_id"),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    /** Connects credited (credited) or taken back (revoked). */
    connects: integer("connects"),
    lotId: text("lot_id"),
    amountTotal: integer("amount_total"),
    currency: text("currency"),
    connectsRevoked: integer("connects_revoked").notNull().default(0),
    /**
     * On a credited purchase: connects a refund or lost dispute still claims that were held by pending proposals
     * when it came; they are taken back as those holds return (migrations/0013). On a revoking event: how many
     * it added to that claim.
     */
    connectsOwed: integer("connects_owed").notNull().default(0),
    /** A random token of the request that wrote the row: the statements after it in its batch act only on their own row. */
    claim: text("claim"),
    processedAt: integer("processed_at").notNull(),
  },
  (t) => [uniqueIndex("payment_events_checkout_unique").on(t.checkoutSessionId), index("payment_events_intent_idx").on(t.paymentIntentId)],
);

// ---------------------------------------------------------------------------------------------
// Chats
// ---------------------------------------------------------------------------------------------

/** Two users have at most one conversation: userA < userB. Messages live in the conversation's Durable Object. */
export const chats = sqliteTable(
  "chats",
  {
    id: text("id").primaryKey(),
    userAId: text("user_a_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    userBId: text("user_b_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    siteAId: text("site_a_id").references(() => sites.id, { onDelete: "set null" }),
    siteBId: text("site_b_id").references(() => sites.id, { onDelete: "set null" }),
    /** Mirrored from the conversation's Durable Object after each message, for the list of conversations. */
    lastMessage: text("last_message"),
    lastSenderId: text("last_sender_id"),
    lastUpdated: integer("last_updated").notNull(),
    /** Id of the last message mirrored here (messages are numbered 1, 2, 3... by the object); a mirror only moves forward. */
    lastMessageId: integer("last_message_id").notNull().default(0),
    /** The last message each participant has seen: anything newer is unread. */
    userAReadId: integer("user_a_read_id").notNull().default(0),
    userBReadId: integer("user_b_read_id").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("chats_pair_unique").on(t.userAId, t.userBId),
    index("chats_user_b_idx").on(t.userBId, t.lastUpdated),
    index("chats_user_a_idx").on(t.userAId, t.lastUpdated),
  ],
);

// ---------------------------------------------------------------------------------------------
// Feedback, waitlist, email, audits
// ---------------------------------------------------------------------------------------------

export const feedback = sqliteTable(
  "feedback",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    siteId: text("site_id").references(() => sites.id, { onDelete: "set null" }),
    text: text("text").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("feedback_created_idx").on(t.createdAt)],
);

/** The beta waitlist: site-add form entries from the landing page (sources hero and other). */
export const betaSignups = sqliteTable(
  "beta_signups",
  {
    id: text("id").primaryKey(),
    email: text("email"),
    url: text("url").notNull(),
    host: text("host").notNull(),
    category: text("category").notNull(),
    description: text("description").notNull(),
    source: text("source", { enum: ["hero", "market", "other"] }).notNull(),
    createdAt: createdAt(),
  },
  // Each email once (rows from the "other" source have none).
  (t) => [uniqueIndex("beta_signups_email_unique").on(t.email), index("beta_signups_created_idx").on(t.createdAt)],
);

export const emailOutbox = sqliteTable(
  "email_outbox",
  {
    id: text("id").primaryKey(),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    textBody: text("text_body").notNull(),
    kind: text("kind").notNull(),
    /** One email per event: a second insert with the same key is ignored (e.g. `offer:ID:accepted`). */
    dedupeKey: text("dedupe_key"),
    /** cancelled: a notification whose recipient turned notification emails off before it went. */
    status: text("status", { enum: ["pending", "sent", "failed", "cancelled"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** Which transport delivered it (mailbox, resend, postmark, cloudflare, http) and the provider's message id. */
    transport: text("transport"),
    providerMessageId: text("provider_message_id"),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    sentAt: integer("sent_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("email_outbox_status_next_idx").on(t.status, t.nextAttemptAt),
    index("email_outbox_created_idx").on(t.createdAt),
    uniqueIndex("email_outbox_dedupe_unique").on(t.dedupeKey),
  ],
);

/** Audits of a site that produce its authority score and the Your Score cards. */
export const scoreRuns = sqliteTable(
  "score_runs",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["running", "done", "failed"] }).notNull(),
    /** What started it: sign-up, add-site, the owner from Your Score (once an hour), or the weekly job. */
    reason: text("reason", { enum: ["signup", "added", "owner", "weekly"] })
      .notNull()
      .default("weekly"),
    /** How far a running audit has got, for the progress shown on Your Score. */
    step: text("step", { enum: ["home", "files", "links", "score"] }),
    score: integer("score"),
    /** The measured parts and the facts behind them, as shown on Your Score. */
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    error: text("error"),
    startedAt: integer("started_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    index("score_runs_site_idx").on(t.siteId, t.startedAt),
    // The few runs still running, for the job that closes those whose Worker stopped.
    index("score_runs_running_idx")
      .on(t.startedAt)
      .where(sql`status = 'running'`),
    // Done runs that still carry their facts, for the daily job that drops them once superseded.
    index("score_runs_details_idx")
      .on(t.finishedAt)
      .where(sql`status = 'done' AND details IS NOT NULL`),
  ],
);

// ---------------------------------------------------------------------------------------------
// Development only: the local web sandbox (/dev/sites), never read in production
// ---------------------------------------------------------------------------------------------

/** Pages published in the local web sandbox; with DEV_WEB_SANDBOX on, the safe fetch answers from here. */
export const devSandboxPages = sqliteTable(
  "dev_sandbox_pages",
  {
    /** Lower-case host as typed in the address (www. kept). */
    host: text("host").notNull(),
    /** Path with its query, starting with "/". */
    path: text("path").notNull(),
    contentType: text("content_type").notNull(),
    body: text("body").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.host, t.path] })],
);

/** What the product fetched from the sandbox, newest first on /dev/sites. */
export const devSandboxRequests = sqliteTable(
  "dev_sandbox_requests",
  {
    id: text("id").primaryKey(),
    method: text("method").notNull(),
    url: text("url").notNull(),
    status: integer("status").notNull(),
    at: integer("at").notNull(),
  },
  (t) => [index("dev_sandbox_requests_at_idx").on(t.at)],
);

export type User = typeof users.$inferSelect;
export type Site = typeof sites.$inferSelect;
export type Listing = typeof listings.$inferSelect;
export type Session = typeof sessions.$inferSelect;
export type Offer = typeof offers.$inferSelect;
export type OfferEntry = typeof offerEntries.$inferSelect;
