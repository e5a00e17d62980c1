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
