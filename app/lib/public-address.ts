/**
 * Which addresses the product may fetch on a user's behalf: public web sites by name, over http or
 * https on their default ports. Pure, so it is unit-tested without a runtime; the safe fetch applies it to every
 * hop of every fetch of a user-supplied address. See docs/decisions/0020-safe-fetch.md.
 */

export type AddressRefusal = "invalid" | "scheme" | "credentials" | "port" | "private_network" | "ip_literal" | "local_name";

export type AddressCheck = { ok: true; url: URL } | { ok: false; refusal: AddressRefusal };

/**
 * Reserved or private-use names that never lead to a public web site. A public name that resolves to a private address
 * (a wildcard DNS service such as nip.io) is not caught here: deployed, the Workers runtime's fetch does not reach
 * private networks; locally, the development web sandbox answers user addresses (decision 21).
 */
const RESERVED_SUFFIXES = [
  "localhost",
  "localdomain",
  "local",
  "internal",
  "test",
  "invalid",
  "example",
  "arpa",
  "lan",
  "home",
  "corp",
  "intranet",
  "private",
];

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Private, loopback, link-local (cloud metadata), shared, multicast and other non-public IPv4 ranges. */
function isNonPublicIPv4(parts: number[]): boolean {
  const [a = 0, b = 0] = parts;
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** Expands an IPv6 literal (as the URL parser writes it, without brackets) to its eight 16-bit groups. */
export function ipv6Groups(literal: string): number[] | null {
  const halves = literal.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const head = parse(halves[0] ?? "");
  const tail = halves.length === 2 ? parse(halves[1] ?? "") : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...Array<number>(missing).fill(0), ...tail];
  return groups.some((group) => Number.isNaN(group)) ? null : groups;
}

function isNonPublicIPv6(literal: string): boolean {
  const groups = ipv6Groups(literal);
  if (!groups) return true;
  const [first = 0] = groups;
  const allZeroBefore = (index: number) => groups.slice(0, index).every((group) => group === 0);
  if (allZeroBefore(8)) return true; // ::
  if (allZeroBefore(7) && groups[7] === 1) return true; // ::1 loopback
  if (allZeroBefore(5) && groups[5] === 0xffff) return true; // ::ffff:a.b.c.d, IPv4-mapped
  if (allZeroBefore(6)) return true; // ::a.b.c.d, IPv4-compatible (deprecated)
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xff00) === 0xff00) return true; // multicast
  if (first === 0x64 && groups[1] === 0xff9b) return true; // 64:ff9b::/96 NAT64 reaches IPv4 ranges
  if (first === 0x2001 && groups[1] === 0x0db8) return true; // documentation
  return false;
}

/**
 * Parses and checks an address. The WHATWG URL parser already turns every IPv4 notation (decimal `2130706433`,
 * octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`) into dotted form, so one dotted check covers them all.
 */
export function checkPublicAddress(input: string | URL): AddressCheck {
  let url: URL;
  try {
    url = typeof input === "string" ? new URL(input) : new URL(input.href);
  } catch {
    return { ok: false, refusal: "invalid" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, refusal: "scheme" };
  if (url.username || url.password) return { ok: false, refusal: "credentials" };
  // The parser drops a default port (":443" on https), so any port left is not the default one.
  if (url.port !== "") return { ok: false, refusal: "port" };

  const host = url.hostname.toLowerCase().replace(/\.+$/, "");
  if (host.startsWith("[")) {
    return { ok: false, refusal: isNonPublicIPv6(host.slice(1, -1)) ? "private_network" : "ip_literal" };
  }
  const ipv4 = IPV4.exec(host);
  if (ipv4) {
    return { ok: false, refusal: isNonPublicIPv4(ipv4.slice(1).map(Number)) ? "private_network" : "ip_literal" };
  }
  const labels = host.split(".");
  const last = labels[labels.length - 1] ?? "";
  if (labels.length < 2 || RESERVED_SUFFIXES.includes(last)) return { ok: false, refusal: "local_name" };
  return { ok: true, url };
}
