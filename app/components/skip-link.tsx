/**
 * The first stop of the keyboard on a page with a header: straight to the page's own content (its `<main id="main">`,
 * which takes focus), past the header's links. Hidden until it has the focus. With JavaScript the focus moves without
 * changing the address: a "#main" navigation would count as a new location and show the page's notice again.
 */
export function SkipLink() {
  return (
    <a
      className="skip-link"
      href="#main"
      onClick={(event) => {
        event.preventDefault();
        document.getElementById("main")?.focus();
      }}
    >
      Skip to content
    </a>
  );
}
