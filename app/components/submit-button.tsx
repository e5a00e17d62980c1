import type { ButtonHTMLAttributes, ReactNode } from "react";
import { FIELD_LABELS } from "~/domain/form-rules";
import { Spinner } from "./spinner";
import { useHydrated } from "./use-hydrated";

/**
 * A form's submit button, grey until every field it depends on passes, with what is still to fill in beside it.
 * Without JavaScript nothing checks the fields in the browser, so it stays enabled and the server answers with the
 * messages.
 */
export function SubmitButton({
  ready,
  missing,
  hintId,
  busy = false,
  busyLabel,
  children,
  ...button
}: {
  ready: boolean;
  /** The fields still to fill in (their form names; shown as `FIELD_LABELS` names them). */
  missing: readonly string[];
  hintId: string;
  busy?: boolean;
  busyLabel?: string;
  children: ReactNode;
} & Omit<ButtonHTMLAttributes<HTMLButtonElement>, "type" | "disabled" | "children">) {
  const hydrated = useHydrated();
  const grey = hydrated && !ready;
  return (
    <>
      <button
        type="submit"
        className="button button-primary button-block"
        disabled={busy || grey}
        aria-busy={busy || undefined}
        aria-describedby={grey ? hintId : undefined}
        {...button}
      >
        {busy ? <Spinner label={busyLabel} /> : null} {children}
      </button>
      {grey ? (
        <p className="muted small" id={hintId}>
          Still to fill in: {missing.map((name) => FIELD_LABELS[name] ?? name).join(", ")}.
        </p>
      ) : null}
    </>
  );
}
