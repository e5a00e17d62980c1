/**
 * Addresses of a list page with something shown over it (a panel, a dialog, a notice): the list's own parameters stay,
 * so that opening, closing or answering what is over it returns to the same place in the list.
 */

/** The parameters of `search` named in `names` (every value of each): where the user is in a list. */
export function paramsNamed(search: URLSearchParams, names: readonly string[]): URLSearchParams {
  const kept = new URLSearchParams();
  for (const name of names) for (const value of search.getAll(name)) kept.append(name, value);
  return kept;
}

/** `pathname` with the query `params`, if any. */
export function addressOf(pathname: string, params: URLSearchParams): string {
  const query = params.toString();
  return query ? `${pathname}?${query}` : pathname;
}

/** `pathname` with `search`, its `name` set to `value` (or removed when null), and without a notice already shown. */
export function addressWith(pathname: string, search: URLSearchParams, name: string, value: string | null): string {
  const params = new URLSearchParams(search);
  if (value === null) params.delete(name);
  else params.set(name, value);
  params.delete("notice");
  return addressOf(pathname, params);
}

/**
 * Whether a list page loads its data again on a move from `current` to `next` that sends no form: when its path or its
 * place in the list (the parameters `names`) changes, or when the same address is asked for again (an order chosen
 * again, the page revalidated); not when only what is shown over the list (a panel, a dialog, a notice) opens or closes.
 */
export function listReloads(current: URL, next: URL, names: readonly string[]): boolean {
  return (
    current.href === next.href ||
    current.pathname !== next.pathname ||
    `${paramsNamed(current.searchParams, names)}` !== `${paramsNamed(next.searchParams, names)}`
  );
}
