import { Form, Link, useNavigation } from "@remix-run/react";
import { useSignedInShell } from "./use-signed-in-shell";
import { useState } from "react";
import { proposalProblems } from "~/domain/form-rules";
import { CONTENT_TYPES, PROVIDED_MATERIALS } from "~/domain/options";
import { ChipGroup } from "./chip-group";
import { SubmitButton } from "./submit-button";
import { useFieldChecks } from "./use-field-checks";

/** Single choice that can be undone: tapping the chosen type again clears it (with JavaScript). */
function ContentTypeChoice({
  name,
  legend,
  value,
  onChange,
  message,
}: {
  name: string;
  legend: string;
  value: string | null;
  onChange: (v: string | null) => void;
  message: string | undefined;
}) {
  const errorId = `${name}-error`;
  return (
    <fieldset className="chip-group" aria-describedby={message ? errorId : undefined}>
      <legend>{legend}</legend>
      <div className="chip-list">
        {CONTENT_TYPES.map((type) => (
          <label key={type.id} className="chip">
            <input
              type="radio"
              name={name}
              value={type.id}
              checked={value === type.id}
              onChange={() => onChange(type.id)}
              onClick={() => value === type.id && onChange(null)}
            />
            <span>{type.label}</span>
          </label>
        ))}
      </div>
      <span className="field-error" id={errorId} aria-live="polite">
        {message}
      </span>
    </fieldset>
  );
}

export interface ProposalError {
  /** The message about the whole proposal (shown by the button); none when the refusal is about the fields. */
  error: string | null;
  /** The messages about the content type choices, shown in their groups. */
  errors?: Record<string, string[] | undefined>;
  /** Which help link goes with the message. */
  help?: "verify" | "connects" | null;
  /** What the refused proposal had chosen, per field, so the form shows it again. */
  chosen?: Record<string, string[]>;
}

/**
 * The proposal of the trade terms panel; the server re-checks everything and sets the price itself. It posts to
 * `action`, the address of the list it was opened over (the market or the search results) with the post open, so
 * that the answer keeps the list where the user was.
 */
export function ProposalForm({
  action,
  listingId,
  connects,
  theirMaterials,
  failure,
}: {
  action: string;
  listingId: string;
  connects: number;
  theirMaterials: string[];
  failure?: ProposalError | null;
}) {
  const navigation = useNavigation();
  const sender = useSignedInShell()?.activeSite?.id;
  const [mine, setMine] = useState<string | null>(failure?.chosen?.myContentType?.[0] ?? null);
  const [theirs, setTheirs] = useState<string | null>(failure?.chosen?.theirContentType?.[0] ?? null);
  const checks = useFieldChecks(proposalProblems({ myContentType: mine, theirContentType: theirs }), failure?.errors, failure);
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "propose";
  const choose = (name: string, set: (value: string | null) => void) => (value: string | null) => {
    set(value);
    checks.leave(name);
  };

  return (
    <Form
      method="post"
      action={action}
      className="stack proposal"
      onSubmit={(event) => busy && event.preventDefault()}
      onBlur={checks.formEvents.onBlur}
      preventScrollReset
    >
      <input type="hidden" name="intent" value="propose" />
      <input type="hidden" name="listingId" value={listingId} />
      {/* The site the header shows: the offer goes from it even if another tab switches the active site meanwhile. */}
      {sender ? <input type="hidden" name="siteId" value={sender} /> : null}
      {/* The price shown: if the owner changes it before this is sent, the server refuses and names the new one. */}
      <input type="hidden" name="price" value={connects} />
      <h3>Your proposal</h3>
      <ContentTypeChoice
        name="myContentType"
        legend="You will create"
        value={mine}
        onChange={choose("myContentType", setMine)}
        message={checks.messageOf("myContentType")}
      />
      <ChipGroup name="myMaterials" legend="You will provide" options={PROVIDED_MATERIALS} chosen={failure?.chosen?.myMaterials ?? []} />
      <ContentTypeChoice
        name="theirContentType"
        legend="They will create"
        value={theirs}
        onChange={choose("theirContentType", setTheirs)}
        message={checks.messageOf("theirContentType")}
      />
      <ChipGroup
        name="theirMaterials"
        legend="They will provide"
        options={PROVIDED_MATERIALS}
        chosen={failure?.chosen?.theirMaterials ?? theirMaterials}
      />
      <p className="muted small">Materials default to a logo when none are chosen.</p>
      {failure?.error ? (
        <p className="form-error" role="alert">
          {failure.error} {failure.help === "verify" ? <Link to="/mysite/verify">Get verified</Link> : null}
          {failure.help === "connects" ? <Link to="/mysite/connects">Get connects</Link> : null}
        </p>
      ) : null}
      <SubmitButton ready={checks.ready} missing={checks.missing} hintId="proposal-missing" busy={busy} busyLabel="Sending">
        Send offer for {connects} connects
      </SubmitButton>
    </Form>
  );
}
