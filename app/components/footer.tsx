export function Footer() {
  return (
    <footer className="site-footer">
      <span className="language">
        <svg viewBox="0 0 20 20" width="16" height="16" aria-hidden="true">
          <circle cx="10" cy="10" r="8" fill="none" stroke="currentColor" strokeWidth="1.5" />
          <path d="M2 10h16M10 2c2.5 2.5 2.5 13.5 0 16M10 2c-2.5 2.5-2.5 13.5 0 16" fill="none" stroke="currentColor" strokeWidth="1.5" />
        </svg>
        English
      </span>
      <span>© 2023 Backlink Market. All rights reserved.</span>
    </footer>
  );
}
