/** What the lists of posts (the market, the search results) say above and below their cards. Only they load it. */
import { useSignedInShell } from "./use-signed-in-shell";
import { VerifyBanner } from "./verify-banner";

/** A later page left empty (its posts taken down since): the list's end, not an empty market. */
export const NO_MORE_POSTS = "No more posts here. The list starts again on its first page.";

/** The banner over a list of posts while the active site (or the account, with none yet) cannot trade. */
export function ActiveSiteVerifyBanner() {
  const shell = useSignedInShell();
  return shell && !shell.activeSite?.verified ? <VerifyBanner /> : null;
}
