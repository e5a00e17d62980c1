/**
 * The product's validation rules as plain predicates, without zod, so the pages that only
 * check them as the user types stay light. `validation.ts` builds the server's schemas on them.
 */
import { messages } from "./messages";
import { CONTENT_TYPES } from "./options";
import { isWebsiteUrl } from "./site-address";
import { hasVisibleText } from "./visible-text";

export { hasVisibleText };

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)*\.[^\s@.]{2,}$/u;
export const MAX_EMAIL_LENGTH = 254;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
export const DESCRIPTION_MIN_LENGTH = 30;
export const DESCRIPTION_MAX_LENGTH = 500;
export const LISTING_CONNECTS_MAX = 99;

/**
 * A price typed in a form as the number it says, if it is written as people write a whole number ("12", " 12 ",
 * "12.0"; not "0x0C" or "1.2e1", which JavaScript would also read as 12); NaN otherwise. Range is checked apart.
 */
export function typedWholeNumber(value: string): number {
  return /^\s*\d+(\.0*)?\s*$/.test(value) ? Number(value) : Number.NaN;
}

export function isEmail(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(trimmed);
}

/** The sign-up password checklist, in the order it is shown. */
export const PASSWORD_RULES = [
  { id: "length", label: messages.passwordMinLength, isMet: (p: string) => p.length >= PASSWORD_MIN_LENGTH },
  { id: "uppercase", label: messages.passwordUppercase, isMet: (p: string) => /\p{Lu}/u.test(p) },
  { id: "lowercase", label: messages.passwordLowercase, isMet: (p: string) => /\p{Ll}/u.test(p) },
  { id: "number", label: messages.passwordNumber, isMet: (p: string) => /\p{Nd}/u.test(p) },
] as const;

export function passwordChecklist(password: string) {
  return PASSWORD_RULES.map((rule) => ({ id: rule.id, label: rule.label, isMet: rule.isMet(password) }));
}

/*
 * What is wrong with a field, as the message the user sees, or null. The zod schemas of validation.ts are built on
 * these very functions, and the forms call them as the user types: one rule, one message, browser and server.
 */

export function descriptionProblem(value: string): string | null {
  const length = value.trim().length;
  if (length < DESCRIPTION_MIN_LENGTH || !hasVisibleText(value)) return messages.descriptionMinimum;
  if (length > DESCRIPTION_MAX_LENGTH) return messages.descriptionMaximum;
  return null;
}

/*
 * A sign-up address has its parts right (docs/decisions/0027-invalid-email-at-sign-up.md): a local part of letters,
 * digits and the few signs addresses use, with single dots inside it; a domain of labels that start and end with a
 * letter or digit; a top-level domain that is not a number.
 */
const EMAIL_LOCAL_PART = /^[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const EMAIL_DOMAIN_LABEL = /^[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]{0,61}[\p{L}\p{M}\p{N}])?$/u;
const EMAIL_LOCAL_MAX_LENGTH = 64;

/** Whether a complete-looking address (isEmail) is also made of valid parts. */
export function isEmailAddress(value: string): boolean {
  const trimmed = value.trim();
  const at = trimmed.lastIndexOf("@");
  const local = trimmed.slice(0, at);
  const labels = trimmed.slice(at + 1).split(".");
  return (
    at > 0 &&
    local.length <= EMAIL_LOCAL_MAX_LENGTH &&
    EMAIL_LOCAL_PART.test(local) &&
    labels.length >= 2 &&
    labels.every((label) => EMAIL_DOMAIN_LABEL.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1]!)
  );
}

/** The sign-up email: 'Looks like this email is incomplete' until it looks whole, then 'Invalid email' if a part is wrong. */
export function emailProblem(value: string): string | null {
  if (!isEmail(value)) return messages.emailIncomplete;
  return isEmailAddress(value) ? null : messages.invalidEmail;
}

export function websiteUrlProblem(value: string): string | null {
  return isWebsiteUrl(value) ? null : messages.linkIncomplete;
}

export const FEEDBACK_MAX_LENGTH = 5000;

export function feedbackProblem(value: string): string | null {
  const length = value.trim().length;
  if (!hasVisibleText(value)) return messages.feedbackEmpty;
  return length > FEEDBACK_MAX_LENGTH ? messages.feedbackTooLong : null;
}

/** A trade proposal needs a content type for each side. */
export function contentTypeProblem(value: string | null | undefined): string | null {
  return value && CONTENT_TYPES.some((type) => type.id === value) ? null : messages.selectContentType;
}
