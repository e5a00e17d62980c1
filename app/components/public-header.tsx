import { Link } from "@remix-run/react";
import { Wordmark } from "./brand";

export function PublicHeader() {
  return (
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
  );
}
