import { useState, type InputHTMLAttributes } from "react";
import { useHydrated } from "./use-hydrated";

/** A password field with a visibility toggle (the toggle needs JavaScript, so it appears once it runs). */
export function PasswordInput(props: Omit<InputHTMLAttributes<HTMLInputElement>, "type">) {
  const [visible, setVisible] = useState(false);
  const hydrated = useHydrated();
  return (
    <span className="password-input">
      <input {...props} type={visible ? "text" : "password"} />
      {hydrated ? (
        <button
          type="button"
          className="password-toggle"
          aria-label={visible ? "Hide password" : "Show password"}
          aria-pressed={visible}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? "Hide" : "Show"}
        </button>
      ) : null}
    </span>
  );
}

/**
 * A labelled password field: the caption labels the input by its id, outside the label, so the input's name is the
 * caption alone (a label around the input and its toggle would name it "Password Show password").
 */
export function PasswordField({
  id,
  caption,
  ...input
}: { id: string; caption: string } & Omit<InputHTMLAttributes<HTMLInputElement>, "type" | "id">) {
  return (
    <div className="field">
      <label htmlFor={id}>{caption}</label>
      <PasswordInput id={id} {...input} />
    </div>
  );
}
