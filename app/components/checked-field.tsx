import type { ReactNode } from "react";

/** What a checked field's control takes: its id, which its caption labels, and what describes it. */
export interface FieldControl {
  id: string;
  "aria-invalid": boolean;
  "aria-describedby": string | undefined;
}

/**
 * A field with a message under it (the checks' or the server's): the caption labels the control, so the control's name
 * is the caption alone, and the message (id `{id}-error`), outside the label, describes it while there is one and is
 * said when it appears (a polite live region: it comes as the user leaves the field, when focus is on the next one).
 * `describedBy` names what else describes the control (a password's rules).
 */
export function CheckedField({
  id,
  caption,
  message,
  describedBy,
  children,
}: {
  id: string;
  caption: string;
  message: string | undefined;
  describedBy?: string;
  children: (control: FieldControl) => ReactNode;
}) {
  const errorId = `${id}-error`;
  const description = [message ? errorId : null, describedBy].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{caption}</label>
      {children({ id, "aria-invalid": Boolean(message), "aria-describedby": description || undefined })}
      <span className="field-error" id={errorId} aria-live="polite">
        {message}
      </span>
    </div>
  );
}
