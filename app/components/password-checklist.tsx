import { useState } from "react";
import { passwordChecklist } from "~/domain/rules";
import { PasswordField } from "./password-input";

/** The sign-up password rules; each line turns green and is struck through when met. */
export function PasswordChecklist({ password, id }: { password: string; id: string }) {
  return (
    <ul className="checklist" id={id} aria-label="Password requirements">
      {passwordChecklist(password).map((rule) => (
        <li key={rule.id} className={rule.isMet ? "met" : undefined} data-met={rule.isMet}>
          {rule.label}
        </li>
      ))}
    </ul>
  );
}

/**
 * A new password (a reset, or a change in Settings) and its rules below it, each turning green as it is typed. The
 * field is named `name`; `rulesId` names the list it is described by.
 */
export function NewPasswordField({ name, rulesId, invalid }: { name: string; rulesId: string; invalid?: boolean }) {
  const [password, setPassword] = useState("");
  return (
    <>
      <PasswordField
        id={`${rulesId}-password`}
        caption="New password"
        name={name}
        autoComplete="new-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        aria-describedby={rulesId}
        aria-invalid={invalid}
      />
      <PasswordChecklist password={password} id={rulesId} />
    </>
  );
}
