import { Form, Link, useNavigation } from "@remix-run/react";
import { useState, type FormEvent } from "react";
import { CONTENT_TYPES, PROVIDED_MATERIALS } from "~/domain/options";
import { contentTypeProblem } from "~/domain/rules";
import { ChipGroup } from "./chip-group";
import { Spinner } from "./spinner";
import { useHydrated } from "./use-hydrated";

/** Single choice that can be undone: tapping the chosen type again clears it (with JavaScript). */
function ContentTypeChoice({
  name,
  legend,
  value,
  onChange,
}: {
  name: string;
  legend: string;
  value: string | null;
  onChange: (v: string | null) => void;
}) {
  return (
    <fieldset className="chip-group">
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
    </fieldset>
  );
}

export interface ProposalError {
  error: string;
  /** Which help link goes with the message. */
  help?: "verify" | "connects" | null;
}

/** The proposal of the trade terms panel; the server re-checks everything and sets the price itself. */
export function ProposalForm({
  listingId,
  connects,
  theirMaterials,
  failure,
}: {
  listingId: string;
  connects: number;
  theirMaterials: string[];
  failure?: ProposalError | null;
}) {
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const [mine, setMine] = useState<string | null>(null);
  const [theirs, setTheirs] = useState<string | null>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "propose";
  const shown = localError ?? failure?.error;

  const check = (event: FormEvent) => {
    if (busy) return event.preventDefault();
    const problem = contentTypeProblem(mine) ?? contentTypeProblem(theirs);
    if (problem) {
      event.preventDefault();
      setLocalError(problem);
    }
  };
  return (
    <Form method="post" action={`/market?post=${listingId}`} className="stack proposal" onSubmit={check} preventScrollReset>
      <input type="hidden" name="intent" value="propose" />
      <input type="hidden" name="listingId" value={listingId} />
      <h3>Your proposal</h3>
      <ContentTypeChoice name="myContentType" legend="You will create" value={mine} onChange={(v) => (setMine(v), setLocalError(null))} />
      <ChipGroup name="myMaterials" legend="You will provide" options={PROVIDED_MATERIALS} chosen={[]} />
      <ContentTypeChoice name="theirContentType" legend="They will create" value={theirs} onChange={(v) => (setTheirs(v), setLocalError(null))} />
      <ChipGroup name="theirMaterials" legend="They will provide" options={PROVIDED_MATERIALS} chosen={theirMaterials} />
      <p className="muted small">Materials default to a logo when none are chosen.</p>
      {shown ? (
        <p className="form-error" role="alert">
          {shown} {!localError && failure?.help === "verify" ? <Link to="/mysite/verify">Get verified</Link> : null}
          {!localError && failure?.help === "connects" ? <Link to="/mysite/connects">Get connects</Link> : null}
        </p>
      ) : null}
      <button type="submit" className="button button-primary button-block" disabled={hydrated && busy}>
        {busy ? <Spinner label="Sending" /> : null} Send offer for {connects} connects
      </button>
    </Form>
  );
}
