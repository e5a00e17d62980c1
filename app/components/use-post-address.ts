import { useLocation } from "@remix-run/react";
import { addressWith } from "~/domain/page-address";

/**
 * Where a page's own forms post: its address without the notice it came with ("Settings saved"), so that a refused
 * post does not come back beside the notice of the save before it. (Remix's default is the address as it is.)
 */
export function usePostAddress(): string {
  const { pathname, search } = useLocation();
  return addressWith(pathname, new URLSearchParams(search), "notice", null);
}
