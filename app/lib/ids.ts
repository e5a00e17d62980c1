/** Identifiers of new rows: random UUIDs, so nothing about a row can be guessed from its id. */
export function newId(): string {
  return crypto.randomUUID();
}
