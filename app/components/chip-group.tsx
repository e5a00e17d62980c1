import type { Option } from "~/domain/options";

/** Checkboxes shown as chips: toggling changes only the page until the form is sent (works without JavaScript). */
export function ChipGroup({
  legend,
  name,
  options,
  chosen,
}: {
  legend: string;
  name: string;
  options: readonly Option[];
  chosen: readonly string[];
}) {
  return (
    <fieldset className="chip-group">
      <legend>{legend}</legend>
      <div className="chip-list">
        {options.map((option) => (
          <label key={option.id} className="chip">
            <input type="checkbox" name={name} value={option.id} defaultChecked={chosen.includes(option.id)} />
            <span>{option.label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
