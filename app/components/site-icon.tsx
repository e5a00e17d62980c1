import { useEffect, useRef, useState } from "react";
import { DEFAULT_ICON, iconSource } from "~/domain/site-icon-source";

/**
 * Every site icon: an https address or a local logo name, and the product favicon when there is none or when the
 * image fails to load (also a failure that happened before the page's script ran).
 */
export function SiteIcon({
  icon,
  size,
  className,
  lazy = false,
}: {
  icon: string | null | undefined;
  size: number;
  className?: string;
  lazy?: boolean;
}) {
  const source = iconSource(icon);
  const [failed, setFailed] = useState<string | null>(null);
  const image = useRef<HTMLImageElement>(null);
  useEffect(() => {
    const element = image.current;
    if (element && element.complete && element.naturalWidth === 0 && source !== DEFAULT_ICON) setFailed(source);
  }, [source]);
  return (
    <img
      ref={image}
      src={failed === source ? DEFAULT_ICON : source}
      alt=""
      width={size}
      height={size}
      className={className}
      loading={lazy ? "lazy" : undefined}
      referrerPolicy="no-referrer"
      onError={() => setFailed(source)}
    />
  );
}
