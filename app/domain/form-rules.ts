/**
 * Each form's problems per field, without zod, so the browser can check them as the user types and keep the submit
 * button grey until they pass: the server's schemas (validation.ts) give the same first message per field, and a
 * unit test holds the two together. The site-add form's are in site-add.ts.
 */
import type { FieldErrors } from "./validation";
import { messages } from "./messages";
import {
  contentTypeProblem,
  descriptionProblem,
  emailProblem,
  feedbackProblem,
  PASSWORD_MAX_LENGTH,
  PASSWORD_RULES,
  websiteUrlProblem,
} from "./rules";

/** A form's values as read from it (or from a post): anything that is not text counts as empty. */
type Values = Record<string, unknown>;

const text = (value: unknown) => (typeof value === "string" ? value : "");

function problemsOf(checks: Record<string, string | null>): FieldErrors {
  const problems: FieldErrors = {};
  for (const [name, problem] of Object.entries(checks)) if (problem) problems[name] = [problem];
  return problems;
}

/** A new password's first problem: too long, or the first checklist line it does not meet. */
export function passwordProblem(password: string): string | null {
  if (password.length > PASSWORD_MAX_LENGTH) return messages.passwordTooLong;
  return PASSWORD_RULES.find((rule) => !rule.isMet(password))?.label ?? null;
}

/** Sign-up step 0: email and password. */
export function signupAccountProblems(values: Values): FieldErrors {
  return problemsOf({ email: emailProblem(text(values.email)), password: passwordProblem(text(values.password)) });
}

/** The website url and description of sign-up step 1 and the add-website dialog. */
export function websiteProblems(values: Values): FieldErrors {
  return problemsOf({ url: websiteUrlProblem(text(values.url)), description: descriptionProblem(text(values.description)) });
}

/** A trade proposal: a content type for each side (the materials are optional). */
export function proposalProblems(values: Values): FieldErrors {
  return problemsOf({
    myContentType: contentTypeProblem(text(values.myContentType)),
    theirContentType: contentTypeProblem(text(values.theirContentType)),
  });
}

/** The feedback dialog. */
export function feedbackProblems(values: Values): FieldErrors {
  return problemsOf({ feedback: feedbackProblem(text(values.feedback)) });
}

/** Each checked field as "Still to fill in: …" names it beside a grey submit button. */
export const FIELD_LABELS: Readonly<Record<string, string>> = {
  email: "email",
  password: "password",
  url: "website url",
  description: "description",
  category: "category",
  connects: "connects",
  myContentType: "what you will create",
  theirContentType: "what they will create",
  feedback: "your feedback",
};
