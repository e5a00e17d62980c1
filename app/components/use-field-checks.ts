import { useCallback, useEffect, useRef, useState, type FocusEvent, type FormEvent } from "react";
import type { FieldErrors } from "~/domain/validation";

export interface FieldChecks {
  /** The message a field shows now, if any. */
  messageOf: (name: string) => string | undefined;
  /** Marks a field as left: from now on its message follows what it holds. */
  leave: (name: string) => void;
  /** For the form element: leaving a field, or choosing in a group of radios or checkboxes, counts as leaving it. */
  formEvents: { onBlur: (event: FocusEvent<HTMLFormElement>) => void; onChange: (event: FormEvent<HTMLFormElement>) => void };
  /** Every field passes. */
  ready: boolean;
  /** The fields that do not pass yet, in the order of `problems`. */
  missing: string[];
}

/**
 * Live checks of a form's fields by the rules' problems (app/domain): a field's message shows once the user has left
 * it and then follows what is typed; until then the server's message for it, if it sent one. A new answer from the
 * server (`answer`, the action's data that brought `serverErrors`, by identity) starts over. Forms without
 * JavaScript get only the server's messages.
 */
export function useFieldChecks(problems: FieldErrors, serverErrors?: FieldErrors, answer?: unknown): FieldChecks {
  const [left, setLeft] = useState<ReadonlySet<string>>(() => new Set());
  useEffect(() => setLeft((names) => (names.size > 0 ? new Set() : names)), [answer]);
  const leave = useCallback((name: string) => setLeft((names) => (names.has(name) ? names : new Set(names).add(name))), []);
  const messageOf = (name: string) => (left.has(name) ? problems[name]?.[0] : serverErrors?.[name]?.[0]);
  const missing = Object.keys(problems).filter((name) => (problems[name]?.length ?? 0) > 0);
  return {
    messageOf,
    leave,
    formEvents: {
      onBlur: (event) => {
        const name = (event.target as unknown as { name?: unknown }).name;
        if (typeof name === "string" && name) leave(name);
      },
      onChange: (event) => {
        const target = event.target as HTMLInputElement;
        if (target.name && (target.type === "radio" || target.type === "checkbox")) leave(target.name);
      },
    },
    ready: missing.length === 0,
    missing,
  };
}

/**
 * What a form's fields hold, read from the form itself on every change, so the fields need no state of their own.
 * What was typed (or restored by the browser) before the page's script ran counts too.
 */
export function useFormValues(initial: Record<string, string>) {
  const form = useRef<HTMLFormElement>(null);
  const [values, setValues] = useState<Record<string, string>>(initial);
  const read = useCallback(() => {
    if (form.current)
      setValues(Object.fromEntries([...new FormData(form.current)].filter((entry): entry is [string, string] => typeof entry[1] === "string")));
  }, []);
  useEffect(read, [read]);
  return { form, values, read };
}
