// /briefs is in the route table but not specified: it renders the landing page (docs/decisions/0025-briefs-and-unspecified-routes.md).
export default function LandingAlias() {
  return null;
}
