/**
 * The site-add form's rules, without zod, so the browser can check them as the user types: the server's schema
 * (siteAddSchema in validation.ts) says the same with the same messages, and a unit test holds the two together.
 */
import type { FieldErrors } from "./validation";
import { messages } from "./messages";
import { SITE_CATEGORIES } from "./options";
import { EMAIL_PATTERN, DESCRIPTION_MAX_LENGTH, hasVisibleText, LISTING_CONNECTS_MAX, MAX_EMAIL_LENGTH, typedWholeNumber } from "./rules";
import { isWebsiteUrl } from "./site-address";

export const SITE_ADD_SOURCES = ["hero", "market", "other"] as const;
export type SiteAddSource = (typeof SITE_ADD_SOURCES)[number];

export function siteAddSource(value: string | null | undefined): SiteAddSource {
  return SITE_ADD_SOURCES.find((source) => source === value) ?? "other";
}

/** Each field's message, for the fields the form of this source has (email only from the hero, a price only from the market). */
export function siteAddProblems(source: SiteAddSource, values: Record<string, string | undefined>): FieldErrors {
  const problems: FieldErrors = {};
  const url = (values.url ?? "").trim();
  if (!isWebsiteUrl(url)) problems.url = [messages.invalidUrl];
  if (source === "hero") {
    const email = (values.email ?? "").trim();
    if (email.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(email)) problems.email = [messages.invalidEmailAddress];
  }
  if (!SITE_CATEGORIES.some((category) => category.id === values.category)) problems.category = [messages.selectCategory];
  const description = (values.description ?? "").trim();
  if (!hasVisibleText(description)) problems.description = [messages.enterDescription];
  else if (description.length > DESCRIPTION_MAX_LENGTH) problems.description = [messages.descriptionMaximum];
  if (source === "market") {
    const connects = typedWholeNumber(values.connects ?? "");
    if (!Number.isInteger(connects) || connects < 1 || connects > LISTING_CONNECTS_MAX) problems.connects = [messages.connectsRange];
  }
  return problems;
}
