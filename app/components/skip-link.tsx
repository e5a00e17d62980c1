/**
 * The first stop of the keyboard on a page with a header: straight to the page's own content (its `<main id="main">`),
 * past the header's links. Hidden until it has the focus.
 */
export function SkipLink() {
  return (
    <a className="skip-link" href="#main">
      Skip to content
    </a>
  );
}
