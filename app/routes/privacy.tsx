import type { MetaFunction } from "@remix-run/cloudflare";
import { Footer } from "~/components/footer";
import { PublicHeader } from "~/components/public-header";
import { publicPageMeta } from "~/lib/page-meta";

export const meta: MetaFunction = () =>
  publicPageMeta("Privacy policy - Backlink Market", "What Backlink Market keeps about you and your websites, and what it never uses it for.");

export default function Privacy() {
  return (
    <div className="page">
      <PublicHeader />
      <main className="prose" id="main">
        <h1>Privacy policy</h1>
        <p>We keep what the marketplace needs to work, and nothing for advertising:</p>
        <ul>
          <li>your email address and a hash of your password (never the password itself);</li>
          <li>the websites you add, their descriptions, scores and the trades you make;</li>
          <li>a cookie that keeps you signed in, ended when you log out;</li>
          <li>
            a cookie that remembers, for a year, that this browser signed in to your account, so guesses at your password from elsewhere never keep
            you out of it;
          </li>
          <li>with JavaScript on, a cookie with your time zone, so times show as your clock does.</li>
        </ul>
        <p>We email you about your account and your trades, and occasionally about the product.</p>
      </main>
      <Footer />
    </div>
  );
}
