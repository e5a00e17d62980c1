import { Link } from "@remix-run/react";
import { messages } from "~/domain/messages";

export function VerifyBanner() {
  return (
    <div className="banner-warning" role="note">
      <span>{messages.verifyBanner}</span>
      <Link to="/mysite/verify" className="button button-small button-primary">
        Get verified
      </Link>
    </div>
  );
}
