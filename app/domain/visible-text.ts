/**
 * Something a reader would see: not only spaces, line breaks, zero-width and other format characters, or the blank
 * letters (Hangul fillers, the blank Braille pattern) that show as nothing. Its own module: the chat's page checks
 * it without loading the forms' rules.
 */
const VISIBLE = /[^\s\p{Cc}\p{Cf}\p{Z}\u115F\u1160\u2800\u3164\uFFA0]/u;

/** Whether a text has anything to read: a description, feedback or chat message of invisible characters only is empty. */
export function hasVisibleText(value: string): boolean {
  return VISIBLE.test(value);
}
