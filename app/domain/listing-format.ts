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
 * Whether a host's letters could pass for other Latin ones: a label with letters of a script that has Latin
 * look-alikes (the "а" of "аpple.com" is Cyrillic; Greek, Armenian, Cherokee), Latin mixed with another script, or a
 * Latin letter that is not an ASCII one with accents (the "ɑ" of "ɑpple.com", the dotless "ı"). Such a host shows in its
 * ASCII form (`xn--…`), as the header, offers, chats and emails show every host; one in a single other script
 * (`उदाहरण.भारत`) or in accented Latin (`münchen.de`) shows as written.
 */
function mayPassForLatin(host: string): boolean {
  return host
    .split(".")
    .some(
      (label) =>
        /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]/u.test(label) ||
        (/\p{Script=Latin}/u.test(label) &&
          (/[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u.test(label) ||
            /[\u0080-\uffff]/.test(label.normalize("NFD").replace(/\p{M}/gu, "")))),
    );
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
