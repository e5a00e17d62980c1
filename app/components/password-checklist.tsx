import { passwordChecklist } from "~/domain/rules";

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
