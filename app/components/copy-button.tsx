import { useState } from "react";
import { useHydrated } from "./use-hydrated";

/**
 * Copies `text` to the clipboard; only with JavaScript and a clipboard (without, the text is there to select). "Copied" is
 * also said from a status region that is there from the start, since a button's own label changing is not announced.
 */
export function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  const hydrated = useHydrated();
  if (!hydrated || !navigator.clipboard) return null;
  return (
    <>
      <button
        type="button"
        className="button button-outline button-small"
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? "Copied" : "Copy"}
      </button>
      <span role="status" className="visually-hidden">
        {copied ? "Copied" : ""}
      </span>
    </>
  );
}
