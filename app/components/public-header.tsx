import { Link } from "@remix-run/react";
import { Wordmark } from "./brand";
import { SkipLink } from "./skip-link";

export function PublicHeader() {
  return (
    <>
      <SkipLink />
      <header className="public-header">
        <Wordmark />
        <nav className="public-nav" aria-label="Account">
          <Link to="/login" className="button button-ghost">
            Login
          </Link>
          <Link to="/signup" className="button button-primary">
            Join
          </Link>
        </nav>
      </header>
    </>
  );
}
