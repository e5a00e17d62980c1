/** Reading and validating form posts: every failure becomes field messages and a 4xx, never a 500. */
import { parseWithZod } from "@conform-to/zod";
import type { z } from "zod";
import type { FieldErrors } from "~/domain/validation";

export type { FieldErrors };

export interface FormFailure {
  ok: false;
  /** Messages per field, in the order of the schema's rules. */
  errors: FieldErrors;
  /** What the user typed, so nothing is lost; passwords are never sent back. */
  values: Record<string, string>;
}

export interface FormSuccess<T> {
  ok: true;
  value: T;
}

/**
 * Form data of a post; a body that is not a form reads as an empty form (and fails validation). Line breaks read as
 * the text box had them: a form posted without JavaScript sends each as "\r\n" (HTML's rule), and counted so, text
 * the box let through (its maxlength counts one) was refused as too long, and stored with both.
 */
export async function readFormData(request: Request): Promise<FormData> {
  let posted: FormData;
  try {
    posted = await request.formData();
  } catch {
    return new FormData();
  }
  const formData = new FormData();
  for (const [name, value] of posted) formData.append(name, typeof value === "string" ? value.replace(/\r\n?/g, "\n") : value);
  return formData;
}

export function typedValues(formData: FormData, omit: readonly string[] = ["password"]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of formData) {
    if (typeof value === "string" && !omit.includes(name) && value.length <= 10_000) values[name] = value;
  }
  return values;
}

/** Every value of the named fields (radios and checkboxes), so a refused form shows what was chosen; ids only, capped. */
export function chosenValues(formData: FormData, names: readonly string[]): Record<string, string[]> {
  const chosen: Record<string, string[]> = {};
  for (const name of names) {
    chosen[name] = formData
      .getAll(name)
      .filter((value): value is string => typeof value === "string" && value.length <= 64)
      .slice(0, 20);
  }
  return chosen;
}

/**
 * The field names our forms use: plain words. Conform reads other names as its own: `a[3]` and `a.b` as paths into
 * nested values (`materials[20000000]` builds an array that long, and zod then checks every slot: a request's worth
 * of memory and more), `__intent__` and `__state__` as JSON (which throws on bad JSON: a 500). None of them reaches it.
 */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

function plainFields(formData: FormData): FormData {
  const plain = new FormData();
  for (const [name, value] of formData) if (FIELD_NAME.test(name)) plain.append(name, value);
  return plain;
}

export function parseForm<Schema extends z.ZodTypeAny>(
  formData: FormData,
  schema: Schema,
  omit: readonly string[] = ["password"],
): FormSuccess<z.output<Schema>> | FormFailure {
  const submission = parseWithZod(plainFields(formData), { schema });
  if (submission.status === "success") return { ok: true, value: submission.value };
  const errors: FieldErrors = {};
  for (const [name, list] of Object.entries(submission.error ?? {})) {
    if (list && list.length > 0) errors[name] = list;
  }
  return { ok: false, errors, values: typedValues(formData, omit) };
}

export function firstError(errors: FieldErrors | undefined, name: string): string | undefined {
  return errors?.[name]?.[0];
}
