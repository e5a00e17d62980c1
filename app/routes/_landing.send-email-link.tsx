// Its behaviour is not specified: it renders the landing page (decisions, "Not in this product").
export default function LandingAlias() {
  return null;
}
