import { useEffect, useState } from "react";
import { useHydrated } from "./use-hydrated";

/** How long the button says "Copied" (and the status region with it). */
const COPIED_MS = 3000;

/**
 * Copies `text` to the clipboard; only with JavaScript and a clipboard (without, the text is there to select). "Copied" is
 * also said from a status region that is there from the start, since a button's own label changing is not announced;
 * emptied as a copy starts, so that a second copy is said again. It is about this text: a new one (a new tag) reads
 * "Copy" again.
 */
export function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState<{ text: string } | null>(null);
  const hydrated = useHydrated();
  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  if (!hydrated || !navigator.clipboard) return null;
  const done = copied?.text === text;
  return (
    <>
      <button
        type="button"
        className="button button-outline button-small"
        onClick={() => {
          setCopied(null);
          navigator.clipboard.writeText(text).then(
            () => setCopied({ text }),
            () => setCopied(null),
          );
        }}
      >
        {done ? "Copied" : "Copy"}
      </button>
      <span role="status" className="visually-hidden">
        {done ? "Copied" : ""}
      </span>
    </>
  );
}
