/** One of the signed-in user's websites, as the header's site switcher and the owner's pages show it. */
export interface UserSite {
  id: string;
  url: string;
  host: string;
  icon: string | null;
  verified: boolean;
  /** The audited score, or the placeholder until the first audit. */
  score: number;
}

/** What every signed-in page has from the signed-in layout's loader (routes/_app.tsx): the user and their sites. */
export interface SignedInShell {
  user: { email: string; emailVerified: boolean; connects: number; connectsHeld: number };
  sites: UserSite[];
  /** Null only while the user has no site yet (the layout then sends them to add one). */
  activeSite: UserSite | null;
}
