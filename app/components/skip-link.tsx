/**
 * The first stop of the keyboard on a page with a header: straight to the page's own content (its `<main id="main">`),
 * past the header's links. Hidden until it has the focus. Without JavaScript the "#main" jump moves the keyboard's
 * starting point; with it, the focus moves to the main without changing the address (a "#main" navigation would count
 * as a new location and show the page's notice again). The main takes focus only for that moment: focusable all the
 * time, a click on its text would focus it and send the next Tab back to its top.
 */
export function SkipLink() {
  return (
    <a
      className="skip-link"
      href="#main"
      onClick={(event) => {
        const main = document.getElementById("main");
        if (!main) return;
        event.preventDefault();
        main.tabIndex = -1;
        main.focus();
        main.onblur = () => main.removeAttribute("tabindex");
      }}
    >
      Skip to content
    </a>
  );
}
