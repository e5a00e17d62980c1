/**
 * The product's validation rules as zod schemas, shared by the browser and the server.
 * Every schema caps its strings, so oversized input gets a message instead of reaching the database.
 */
import { z } from "zod";
import { messages } from "./messages";
import { CATEGORY_TAGS, CONTENT_TYPES, PROVIDED_MATERIALS, SITE_CATEGORIES } from "./options";
import { isWebsiteUrl } from "./site-address";
import { parseCursor, type Cursor } from "./cursor";
import {
  DESCRIPTION_MAX_LENGTH,
  contentTypeProblem,
  descriptionProblem,
  emailProblem,
  feedbackProblem,
  EMAIL_PATTERN,
  hasVisibleText,
  LISTING_CONNECTS_MAX,
  MAX_EMAIL_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_RULES,
  typedWholeNumber,
} from "./rules";
import { SITE_ADD_SOURCES, siteAddSource, type SiteAddSource } from "./site-add";

/** Messages per field of a refused form, in the order of the schema's rules. */
export type FieldErrors = Record<string, string[] | undefined>;

export * from "./rules";

/**
 * A form's text field whose problems with its presence or its kind (missing, sent twice, a file) all say `message`: a
 * user never reads zod's own English.
 */
const textField = (message: string) => z.string({ required_error: message, invalid_type_error: message });

const emailField = (message: string) =>
  textField(message)
    .trim()
    .max(MAX_EMAIL_LENGTH, message)
    .regex(EMAIL_PATTERN, message)
    .transform((email) => email.toLowerCase());

export const newPasswordField = textField(messages.passwordMinLength)
  .max(PASSWORD_MAX_LENGTH, messages.passwordTooLong)
  .superRefine((password, ctx) => {
    for (const rule of PASSWORD_RULES) {
      if (!rule.isMet(password)) ctx.addIssue({ code: z.ZodIssueCode.custom, message: rule.label });
    }
  });

const websiteUrlField = (message: string) => textField(message).trim().refine(isWebsiteUrl, message);

/** A zod string checked by one of the rules' problem functions (rules.ts), with the same message. */
const ruled = (problem: (value: string) => string | null, missing: string) =>
  textField(missing).superRefine((value, ctx) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: z.ZodIssueCode.custom, message });
  });

const descriptionField = ruled(descriptionProblem, messages.descriptionMinimum).transform((value) => value.trim());

/** The description of the site-add form and the site's settings: required (something to read), at most 500 characters. */
const listingDescriptionField = textField(messages.enterDescription)
  .trim()
  .refine(hasVisibleText, messages.enterDescription)
  .pipe(z.string().max(DESCRIPTION_MAX_LENGTH, messages.descriptionMaximum));

/** Sign-up step 0: email and password. */
export const signupAccountSchema = z.object({
  email: ruled(emailProblem, messages.emailIncomplete).transform((email) => email.trim().toLowerCase()),
  password: newPasswordField,
});

/** Sign-up step 1 needs everything: email, password, url and description. */
export const signupSchema = signupAccountSchema.extend({
  url: websiteUrlField(messages.linkIncomplete),
  description: descriptionField,
});

/** Login and reset have no client-side rules; the server only bounds the input. */
export const loginSchema = z.object({
  email: textField(messages.incorrectCredentials).trim().max(MAX_EMAIL_LENGTH, messages.incorrectCredentials),
  password: textField(messages.incorrectCredentials).max(1024, messages.incorrectCredentials),
  // Where to go after signing in, however long the page's address: `safeRedirectPath` drops one of another site, and
  // it is never a reason to refuse the sign-in (sent twice, or as a file, it is dropped too).
  redirectTo: z.preprocess((value) => (typeof value === "string" ? value : undefined), z.string().optional()),
});

export const resetRequestSchema = z.object({
  email: emailField(messages.resetFailed),
});

export const resetPasswordSchema = z.object({
  token: textField(messages.resetLinkInvalid).max(200, messages.resetLinkInvalid),
  password: newPasswordField,
});

/** A signed-in owner's new password: the current one proves it is them. */
export const changePasswordSchema = z.object({
  currentPassword: textField(messages.currentPasswordWrong).max(128, messages.currentPasswordWrong),
  newPassword: newPasswordField,
});

/** The add-website dialog of the signed-in area: url and description; the category is always blog. */
export const addWebsiteSchema = z.object({
  url: websiteUrlField(messages.linkIncomplete),
  description: descriptionField,
});

export { SITE_ADD_SOURCES, siteAddSource, type SiteAddSource };

/**
 * A listing's price in connects, a whole number from 1 to 99 written as people write one ("12", not "0x0C" or
 * "1.2e1"): the site-add form's, the settings' and a proposal's.
 */
const priceField = (message: string) =>
  z.preprocess(
    (value) => (typeof value === "string" ? typedWholeNumber(value) : value),
    z.number({ required_error: message, invalid_type_error: message }).int(message).min(1, message).max(LISTING_CONNECTS_MAX, message),
  );

const siteAddBase = {
  url: websiteUrlField(messages.invalidUrl),
  category: z.enum(SITE_CATEGORIES.map((c) => c.id) as ["blog", "product"], {
    errorMap: () => ({ message: messages.selectCategory }),
  }),
  description: listingDescriptionField,
};

const heroSiteAddSchema = z.object({ ...siteAddBase, email: emailField(messages.invalidEmailAddress) });
const marketSiteAddSchema = z.object({ ...siteAddBase, connects: priceField(messages.connectsRange) });
const otherSiteAddSchema = z.object(siteAddBase);

/** The site-add form, whose fields depend on its source (email only from the hero, a price only from the market). */
export function siteAddSchema(source: "market"): typeof marketSiteAddSchema;
export function siteAddSchema(source: SiteAddSource): typeof heroSiteAddSchema | typeof marketSiteAddSchema | typeof otherSiteAddSchema;
export function siteAddSchema(source: SiteAddSource) {
  if (source === "hero") return heroSiteAddSchema;
  if (source === "market") return marketSiteAddSchema;
  return otherSiteAddSchema;
}

export const feedbackSchema = z.object({
  feedback: ruled(feedbackProblem, messages.feedbackEmpty).transform((value) => value.trim()),
});

const idsOf = (options: readonly { id: string }[]) =>
  z
    .array(z.enum(options.map((option) => option.id) as [string, ...string[]]), { invalid_type_error: "Choose from the list" })
    .max(options.length)
    .default([])
    .transform((ids) => [...new Set(ids)]);

/** Site settings: the description and the three chip lists (content types, materials, tags). */
export const siteSettingsSchema = z
  .object({
    description: listingDescriptionField,
    contentTypes: idsOf(CONTENT_TYPES),
    materials: idsOf(PROVIDED_MATERIALS),
    tags: idsOf(CATEGORY_TAGS),
    /** The site's listing in the market: shown or not, and its price. */
    listed: z
      .literal("on")
      .optional()
      .transform((value) => value === "on"),
    connects: priceField(messages.connectsRange).optional(),
    /** The listing as the page showed it: "off", else its price; anything else (or none) is no such page. */
    shownListing: z
      .string()
      .optional()
      .catch(undefined)
      .transform((value) =>
        value === "off" ? { listed: false } : value !== undefined && /^\d{1,2}$/.test(value) ? { listed: true, connects: Number(value) } : undefined,
      ),
  })
  .refine((settings) => !settings.listed || settings.connects !== undefined, { message: messages.connectsRange, path: ["connects"] });

const contentTypeField = ruled(contentTypeProblem, messages.selectContentType);

/** A trade proposal: for each party a content type (required) and the materials it provides. */
export const proposalSchema = z.object({
  listingId: textField(messages.couldNotSendOffer).max(64, messages.couldNotSendOffer),
  /** The price the sender was shown (the panel sends it): the proposal is refused if the post's price is another now. */
  price: priceField(messages.couldNotSendOffer).optional(),
  myContentType: contentTypeField,
  theirContentType: contentTypeField,
  myMaterials: idsOf(PROVIDED_MATERIALS),
  theirMaterials: idsOf(PROVIDED_MATERIALS),
});

/** Answers to an offer and moves of one's own side of a trade. */
export const offerActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("accept"), materials: idsOf(PROVIDED_MATERIALS) }),
  z.object({ intent: z.enum(["decline", "rescind", "trash"]) }),
  z.object({
    intent: z.literal("move"),
    to: z.enum(["in_progress", "completed", "stopped"]),
    // As typed: only completing reads it (contentUrlOf, in the move), so a half-typed address never blocks a stop.
    contentUrl: textField(messages.enterContentUrl).optional(),
  }),
]);

/** A page cursor from an address (app/domain/cursor.ts), as the position it names. */
export const cursorField = z
  .string()
  .max(100, messages.pageLinkInvalid)
  .transform((value, ctx) => {
    const cursor = parseCursor(value);
    if (!cursor) ctx.addIssue({ code: z.ZodIssueCode.custom, message: messages.pageLinkInvalid });
    return cursor ?? z.NEVER;
  });

/**
 * The page cursor in an address's parameter `name`: its position, or none when the parameter is absent or empty; a
 * malformed one gives no position and the message to show (the list then starts at its beginning).
 */
export function cursorParam(params: URLSearchParams, name: string): { position: Cursor | null; refused: string | null } {
  const value = params.get(name);
  if (!value) return { position: null, refused: null };
  const parsed = cursorField.safeParse(value);
  return parsed.success
    ? { position: parsed.data, refused: null }
    : { position: null, refused: parsed.error.issues[0]?.message ?? messages.pageLinkInvalid };
}
