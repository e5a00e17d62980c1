// /briefs is in the route table but not specified: it renders the landing page (decisions, "Not in this product").
export default function LandingAlias() {
  return null;
}
