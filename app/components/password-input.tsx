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
