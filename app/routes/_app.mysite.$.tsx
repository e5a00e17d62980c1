import { data, type MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";

export const meta: MetaFunction = () => [{ title: "Page not found - Backlink Market" }];

/** Unknown pages of the owner's area answer 404 inside it, so the navigation stays at hand. */
export function loader() {
  return data(null, { status: 404 });
}

export default function MySiteNotFound() {
  return (
    <section className="card stack">
      <h2>Page not found</h2>
      <p className="muted">There is nothing at this address in your site's area.</p>
      <Link to="/mysite" className="text-link">
        Back to your dashboard
      </Link>
    </section>
  );
}
