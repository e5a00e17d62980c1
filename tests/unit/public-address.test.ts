import { describe, expect, it } from "vitest";
import { checkPublicAddress } from "~/lib/public-address";
import { isSameSite, typedHost } from "~/domain/site-address";
import { verificationTag } from "~/domain/verification";
import { withNotice } from "~/domain/redirects";

const refusal = (address: string) => {
  const result = checkPublicAddress(address);
  return result.ok ? "ok" : result.refusal;
};

describe("which addresses the safe fetch may read", () => {
  it.each([
    ["https://garden-notes.com/", "ok"],
    ["http://www.garden-notes.com/blog?page=2", "ok"],
    ["https://garden-notes.com:443/", "ok"],
    ["http://garden-notes.com:80/", "ok"],
  ])("reads %s", (address, expected) => expect(refusal(address)).toBe(expected));

  it.each([
    ["http://127.0.0.1/", "private_network"],
    ["http://127.1/", "private_network"],
    ["http://10.0.0.8/", "private_network"],
    ["http://172.16.4.2/", "private_network"],
    ["http://192.168.1.1/", "private_network"],
    ["http://100.64.0.1/", "private_network"],
    ["http://169.254.169.254/latest/meta-data/", "private_network"],
    ["http://0.0.0.0/", "private_network"],
    ["http://2130706433/", "private_network"],
    ["http://0177.0.0.1/", "private_network"],
    ["http://0x7f.0x0.0x0.0x1/", "private_network"],
    ["http://0x7f000001/", "private_network"],
    ["http://[::1]/", "private_network"],
    ["http://[::]/", "private_network"],
    ["http://[::ffff:127.0.0.1]/", "private_network"],
    ["http://[::ffff:a9fe:a9fe]/", "private_network"],
    ["http://[fd00::1]/", "private_network"],
    ["http://[fe80::1]/", "private_network"],
    ["http://8.8.8.8/", "ip_literal"],
    ["http://[2606:4700:4700::1111]/", "ip_literal"],
  ])("refuses the IP literal %s", (address, expected) => expect(refusal(address)).toBe(expected));

  it.each([
    ["http://localhost/", "local_name"],
    ["http://LOCALHOST./", "local_name"],
    ["http://app.localhost/", "local_name"],
    ["http://localhost.localdomain/", "local_name"],
    ["http://intranet/", "local_name"],
    ["http://printer.local/", "local_name"],
    ["http://metadata.google.internal/", "local_name"],
    ["http://shop.test/", "local_name"],
    ["http://x.invalid/", "local_name"],
    ["http://site.example/", "local_name"],
    ["http://1.0.0.127.in-addr.arpa/", "local_name"],
  ])("refuses the local or reserved name %s", (address, expected) => expect(refusal(address)).toBe(expected));

  it.each([
    ["file:///etc/passwd", "scheme"],
    ["data:text/html,<meta>", "scheme"],
    ["ftp://garden-notes.com/", "scheme"],
    ["javascript:alert(1)", "scheme"],
    ["https://user:secret@garden-notes.com/", "credentials"],
    ["https://garden-notes.com:8443/", "port"],
    ["http://garden-notes.com:443/", "port"],
    ["not a url", "invalid"],
  ])("refuses %s", (address, expected) => expect(refusal(address)).toBe(expected));
});

describe("site addresses for verification", () => {
  it("keeps the host as typed, www. included, and compares sites without scheme or www.", () => {
    expect(typedHost("https://WWW.Garden-Notes.com/blog")).toBe("www.garden-notes.com");
    expect(typedHost("garden-notes.com")).toBe("garden-notes.com");
    expect(typedHost("not a site")).toBeNull();
    expect(isSameSite("http://www.garden-notes.com/home", "garden-notes.com")).toBe(true);
    expect(isSameSite("https://elsewhere.com/", "garden-notes.com")).toBe(false);
  });

  it("renders the tag the owner places", () => {
    expect(verificationTag("abc123")).toBe('<meta name="backlink-verification" content="abc123">');
  });

  it("adds a notice to a same-site path, and nothing else", () => {
    expect(withNotice("/mysite/settings?x=1", "icon-updated")).toBe("/mysite/settings?x=1&notice=icon-updated");
    expect(withNotice("/mysite?notice=old", "verified")).toBe("/mysite?notice=verified");
    expect(withNotice("https://evil.com/", "verified")).toBe("/market?notice=verified");
  });
});
