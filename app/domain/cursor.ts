/**
 * Keyset paging: a list's next page starts after the last row shown, named by a cursor `{at}_{id}` (its sort value and
 * its id, so rows with the same value neither repeat nor go missing). A list with another order puts a lower-case
 * letter before it (the market and the search sorted by record write `r{repSort}_{searchRowid}`,
 * `formatRecordCursor`), so one order's cursor is never read as another's.
 */
export interface Cursor {
  at: number;
  id: string;
}

/** A non-negative whole number of up to 15 digits (a safe integer: epoch milliseconds, record sort keys), then an id. */
const CURSOR_PATTERN = /^([a-z]?)(\d{1,15})_([\w-]{1,64})$/;

/**
 * Where a list's first page starts, as a position: a cursor's value has at most 15 digits, and stored values (epoch
 * milliseconds) are never negative, so every row comes after the first and before the second. A statement then needs
 * no variant without a cursor.
 */
export const BEFORE_ALL: { ascending: Cursor; descending: Cursor } = {
  ascending: { at: Number.MIN_SAFE_INTEGER, id: "" },
  descending: { at: Number.MAX_SAFE_INTEGER, id: "" },
};

export function formatCursor(cursor: Cursor, prefix = ""): string {
  return `${prefix}${cursor.at}_${cursor.id}`;
}

/**
 * A page read with one row more than it shows (a limit of `size + 1`): the rows it shows, and the cursor of the next
 * page when the extra row says there is one (null on the last page).
 */
export function keysetPage<Row>(rows: readonly Row[], size: number, positionOf: (row: Row) => Cursor): { shown: Row[]; next: string | null } {
  const shown = rows.slice(0, size);
  const last = shown.at(-1);
  return { shown, next: rows.length > size && last ? formatCursor(positionOf(last)) : null };
}

/** The position a cursor names, or null for anything else: no value, another order's prefix, a malformed value. */
export function parseCursor(value: string | null | undefined, prefix = ""): Cursor | null {
  const match = value ? CURSOR_PATTERN.exec(value) : null;
  if (!match || match[1] !== prefix) return null;
  return { at: Number(match[2]), id: match[3] as string };
}

/**
 * A place in a list sorted by record: the site's record key (`sites.rep_sort`), then its row in the search index
 * (`sites.search_rowid`, newest first among equal keys; docs/decisions/0046-record-ties-newest-first.md).
 */
export interface RecordPosition {
  repSort: number;
  searchRowid: number;
}

export function formatRecordCursor(position: RecordPosition): string {
  return formatCursor({ at: position.repSort, id: String(position.searchRowid) }, "r");
}

/** The place a record cursor (`r{repSort}_{searchRowid}`) names, or null for anything else (a site id where the row goes). */
export function parseRecordCursor(value: string | null | undefined): RecordPosition | null {
  const cursor = parseCursor(value, "r");
  if (!cursor || !/^\d{1,15}$/.test(cursor.id)) return null;
  return { repSort: cursor.at, searchRowid: Number(cursor.id) };
}
