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
