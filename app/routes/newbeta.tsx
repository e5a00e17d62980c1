import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { Wordmark } from "~/components/brand";
import { messages } from "~/domain/messages";
import { publicPageMeta } from "~/lib/page-meta";
import { SkipLink } from "~/components/skip-link";

export const meta: MetaFunction = () => publicPageMeta("See you soon - Backlink Market");

export default function NewBeta() {
  return (
    <div className="page centered-page">
      <SkipLink />
      <header className="public-header">
        <Wordmark />
        <Link to="/" className="button button-ghost">
          Exit
        </Link>
      </header>
      <main className="thanks" id="main">
        <h1>
          See You Soon! <span className="accent">{messages.launchText}</span>
        </h1>
        <p>{messages.contactWithMatches}.</p>
        <Link to="/" className="button button-primary">
          Home
        </Link>
      </main>
    </div>
  );
}
