/** How a listing is shown on a post card: a short address, a description preview, 'No description' when empty. */
import { displayScore } from "./score";

export const ADDRESS_DISPLAY_LENGTH = 19;
export const DESCRIPTION_PREVIEW_LENGTH = 100;
/** The one blogging platform whose addresses keep their path (the blog lives under it). */
export const PATH_KEEPING_HOSTS = ["medium.com"];

/**
 * A post as its card and the trade panel show it, made on the server: the score to display and the short address in
 * place of the stored one (so the pages' script carries neither rule).
 */
export function postForDisplay<Post extends { score: number; url: string }>({ url, ...post }: Post) {
  return { ...post, score: displayScore(post.score), address: shortenAddress(url) };
}

export function shortenAddress(url: string): string {
  let address = url
    .trim()
    .replace(/^https?:\/\//i, "")
    .replace(/^www\./i, "");
  const slash = address.indexOf("/");
  if (slash !== -1) {
    const host = address.slice(0, slash).toLowerCase();
    if (!PATH_KEEPING_HOSTS.includes(host)) address = address.slice(0, slash);
  }
  if (!address.includes("/") && mayPassForLatin(address)) address = asciiHost(address);
  address = address.replace(/\/+$/, "");
  return cutToCharacters(address, ADDRESS_DISPLAY_LENGTH);
}

/**
 * The scripts a label may be written in and still show as written, each set alone or with its usual companions
 * (Japanese mixes Han and the kana, Korean Han and Hangul): scripts with no letters that pass for Latin ones.
 * Anything else (Cyrillic's "а" in "аpple.com", Greek, Armenian, Cherokee, Lisu, Canadian Syllabics, Coptic, and any
 * script not listed) shows in its ASCII form. Thai, Lao, Sinhala, Georgian and Ethiopic are left out too: browsers' own
 * look-alike lists name letters of each that pass for Latin ones.
 */
const SHOWN_SCRIPTS = [
  ["Han", "Hiragana", "Katakana"],
  ["Han", "Hangul"],
  ["Han", "Bopomofo"],
  ["Arabic"],
  ["Hebrew"],
  ["Devanagari"],
  ["Bengali"],
  ["Gurmukhi"],
  ["Gujarati"],
  ["Oriya"],
  ["Tamil"],
  ["Telugu"],
  ["Kannada"],
  ["Malayalam"],
  ["Khmer"],
  ["Tibetan"],
];
let shownScriptSets: RegExp[] | undefined;

/**
 * The sets as patterns of a whole label, made when first needed (not at import: the post cards' script imports this
 * module for its other rules, and must not carry these). With ASCII digits and hyphens, combining marks, and, in
 * Japanese, its long-vowel mark (which Unicode counts as common to all scripts; other such signs, slash and dot
 * look-alikes among them, are not let through).
 */
function shownScriptPatterns(): RegExp[] {
  shownScriptSets ??= SHOWN_SCRIPTS.map(
    (scripts) =>
      new RegExp(
        `^[${scripts.map((script) => `\\p{Script=${script}}`).join("")}\\p{Script=Inherited}0-9\\-${
          scripts.includes("Katakana") ? "\\u30fc" : ""
        }]*$`,
        "u",
      ),
  );
  return shownScriptSets;
}

/**
 * Whether a host's letters could pass for other Latin ones, so it shows in its ASCII form (`xn--…`), as the header,
 * offers, chats and emails show every host. A label shows as written only when it is ASCII, Latin with accents
 * (`münchen.de`; not the "ɑ" of "ɑpple.com" or the dotless "ı", which are not accented ASCII letters), or written in
 * one of the scripts above (`उदाहरण.भारत`): an allow-list, so a script nobody thought of is not shown by default.
 */
function mayPassForLatin(host: string): boolean {
  return host.split(".").some((label) => {
    if (/^[\x20-\x7e]*$/.test(label)) return false;
    if (/^[\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]*$/u.test(label)) {
      return /[\u0080-\uffff]/.test(label.normalize("NFD").replace(/\p{M}/gu, ""));
    }
    return !shownScriptPatterns().some((set) => set.test(label));
  });
}

function asciiHost(host: string): string {
  try {
    return new URL(`https://${host}`).host;
  } catch {
    return host;
  }
}

export function previewDescription(description: string | null | undefined): string {
  const text = (description ?? "").trim();
  if (!text) return "No description";
  return cutToCharacters(text, DESCRIPTION_PREVIEW_LENGTH);
}

/** The text cut to `length` characters (not UTF-16 units: never half an emoji) and "...", or whole if it fits. */
function cutToCharacters(text: string, length: number): string {
  if (text.length <= length) return text;
  const characters = [...text];
  return characters.length > length ? `${characters.slice(0, length).join("")}...` : text;
}
