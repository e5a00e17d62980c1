import { useState } from "react";
import { useHydrated } from "./use-hydrated";

/** Copies `text` to the clipboard; only with JavaScript and a clipboard (without, the text is there to select). */
export function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  const hydrated = useHydrated();
  if (!hydrated || !navigator.clipboard) return null;
  return (
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
  );
}
