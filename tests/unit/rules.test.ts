import { describe, expect, it } from "vitest";
import { previewDescription, shortenAddress } from "~/domain/listing-format";
import { iconSource } from "~/domain/site-icon-source";
import { popularSiteCards, rotate } from "~/domain/popular-sites";
import { safeRedirectPath } from "~/domain/redirects";
import { scoreColour } from "~/domain/score";
import { isWebsiteUrl, normaliseHost } from "~/domain/site-address";
import { isRefusedCrossSiteRequest } from "~/lib/security.server";

describe("normaliseHost", () => {
  it.each([
    ["Example.com", "example.com"],
    ["https://www.Example.com/", "example.com"],
    ["http://blog.example.com/path?q=1", "blog.example.com"],
    ["www.example.co.uk", "example.co.uk"],
    ["münchen.de", "xn--mnchen-3ya.de"],
    // An internationalised top-level domain, in its own script or in the ASCII form it is also written in.
    ["пример.рф", "xn--e1afmkfd.xn--p1ai"],
    ["https://www.xn--e1afmkfd.xn--p1ai/", "xn--e1afmkfd.xn--p1ai"],
    ["shop.example.XN--P1AI", "shop.example.xn--p1ai"],
    // Scripts whose words carry combining marks (Devanagari, Thai).
    ["उदाहरण.भारत", "xn--p1b6ci4b4b3a.xn--h2brj9c"],
    ["ตัวอย่าง.ไทย", "xn--72c1a1bt4awk9o.xn--o3cw4h"],
  ])("%s -> %s", (input, host) => {
    expect(normaliseHost(input)).toBe(host);
  });
  it("is null for what is not a website", () => {
    expect(normaliseHost("not a url")).toBeNull();
    expect(isWebsiteUrl("localhost")).toBe(false);
  });
  it.each(["mysite.com:99999", "https://mysite.com:65536/", "www.mysite.com:70000/blog"])(
    "refuses %s, whose port the URL parser refuses",
    (input) => {
      expect(isWebsiteUrl(input)).toBe(false);
      expect(normaliseHost(input)).toBeNull();
    },
  );
  it.each(["example.xn--p1ai-", "example.xn---", "example.xn--"])("refuses %s, an ASCII form of a top-level domain cut short", (input) => {
    expect(isWebsiteUrl(input)).toBe(false);
  });
  it("keeps a port the parser takes", () => {
    expect(normaliseHost("mysite.com:8080")).toBe("mysite.com");
  });
});

describe("safeRedirectPath", () => {
  it("keeps same-site paths", () => {
    expect(safeRedirectPath("/mysite/offers?x=1")).toBe("/mysite/offers?x=1");
  });
  it.each([
    null,
    "",
    "https://evil.test",
    "//evil.test",
    "/\\evil.test",
    "javascript:alert(1)",
    "/\u0000x",
    "/..//evil.test/x",
    "/a/../..//evil.test",
    "/.//evil.test",
  ])("falls back for %j", (value) => {
    expect(safeRedirectPath(value)).toBe("/market");
  });
  it("gives the path as a browser reads it", () => {
    expect(safeRedirectPath("/mysite/../market?post=1#x")).toBe("/market?post=1#x");
  });
});

describe("popular sites carousel", () => {
  it("has the five sample types with scores from 40 to 99", () => {
    expect(popularSiteCards(() => 0).map((card) => card.type)).toEqual(["Blog", "Product", "Cooking", "Educational", "Gaming"]);
    expect(popularSiteCards(() => 0).every((card) => card.score === 40)).toBe(true);
    expect(popularSiteCards(() => 0.9999).every((card) => card.score === 99)).toBe(true);
  });
  it("rotates in both directions", () => {
    expect(rotate([1, 2, 3, 4, 5], 1)).toEqual([2, 3, 4, 5, 1]);
    expect(rotate([1, 2, 3, 4, 5], -1)).toEqual([5, 1, 2, 3, 4]);
    expect(rotate([1, 2, 3, 4, 5], 5)).toEqual([1, 2, 3, 4, 5]);
    expect(rotate([], 3)).toEqual([]);
  });
});

describe("score colour on the rounded-up score", () => {
  it.each([
    [0, "red"],
    [19, "red"],
    [19.2, "orange"],
    [20, "orange"],
    [49, "orange"],
    [49.5, "yellow"],
    [69, "yellow"],
    [69.01, "green"],
    [100, "green"],
  ])("%s is %s", (score, colour) => {
    expect(scoreColour(score)).toBe(colour);
  });
});

describe("post card formatting", () => {
  it("shortens addresses to 19 characters and drops the path", () => {
    expect(shortenAddress("https://www.example.com/blog/post")).toBe("example.com");
    expect(shortenAddress("https://a-very-long-domain-name-here.com")).toBe("a-very-long-domain-...");
    expect(shortenAddress("https://medium.com/@ana")).toBe("medium.com/@ana");
    expect(shortenAddress(`https://medium.com/@${"ü".repeat(6)}😀😀`)).toBe(`medium.com/@${"ü".repeat(6)}😀...`);
    // A host whose letters could pass for Latin ones shows in its ASCII form: a look-alike of a known name shows
    // what it is. One written in a single other script, or in Latin with accents, shows as written.
    expect(shortenAddress("https://www.\u0430pple.com/")).toBe("xn--pple-43d.com");
    expect(shortenAddress("p\u0430ypal.com")).toBe("xn--pypal-4ve.com");
    expect(shortenAddress("пример.рф")).toBe("xn--e1afmkfd.xn--p1...");
    expect(shortenAddress("shop中文.com")).toBe("xn--shop-3f5fy05j.c...");
    expect(shortenAddress("\u0251pple.com")).toBe(new URL("https://\u0251pple.com").host);
    expect(shortenAddress("\u0251pple.com")).toMatch(/^xn--/);
    expect(shortenAddress("\u0131ntel.com")).toMatch(/^xn--/);
    expect(shortenAddress("g\u0585\u0585gle.com")).toMatch(/^xn--/);
    // Only the scripts with no Latin look-alikes show as written: Lisu's "ꓮꓑꓑꓲꓱ" (APPLE), Canadian Syllabics and Coptic
    // letters, and a sign common to all scripts that passes for a slash, show in the ASCII form.
    expect(shortenAddress("\ua4ee\ua4d1\ua4d1\ua4f2\ua4f1.com")).toMatch(/^xn--/);
    expect(shortenAddress("\u146d\u1455\u1466.com")).toMatch(/^xn--/);
    expect(shortenAddress("\u2c9f\u2c9f.com")).toMatch(/^xn--/);
    expect(shortenAddress("उदाहरण\u2044.भारत")).toMatch(/^xn--/);
    expect(shortenAddress("例え.テスト")).toBe("例え.テスト");
    expect(shortenAddress("도메인.한국")).toBe("도메인.한국");
    expect(shortenAddress("مثال.إختبار")).toBe("مثال.إختبار");
    expect(shortenAddress("उदाहरण.भारत")).toBe("उदाहरण.भारत");
    expect(shortenAddress("münchen.de")).toBe("münchen.de");
    expect(shortenAddress("https://Example.com")).toBe("Example.com");
  });
  it("cuts descriptions to 100 characters", () => {
    expect(previewDescription("")).toBe("No description");
    expect(previewDescription(null)).toBe("No description");
    expect(previewDescription("x".repeat(100))).toBe("x".repeat(100));
    expect(previewDescription("x".repeat(101))).toBe(`${"x".repeat(100)}...`);
    // By characters, not UTF-16 units: an emoji is one, and never cut in half.
    expect(previewDescription(`${"x".repeat(99)}😀y`)).toBe(`${"x".repeat(99)}😀...`);
    expect(previewDescription(`${"😀".repeat(100)}`)).toBe("😀".repeat(100));
  });
  it("resolves icons", () => {
    expect(iconSource(null)).toBe("/favicon.svg");
    expect(iconSource("https://cdn.example.com/i.png")).toBe("https://cdn.example.com/i.png");
    expect(iconSource(`https://cdn.example.com/i.png?${"v".repeat(2100)}`)).toBe("/favicon.svg");
    expect(iconSource("http://insecure.example.com/i.png")).toBe("/favicon.svg");
    expect(iconSource("blog")).toBe("/logos/blog.svg");
  });
});

describe("cross-site form posts", () => {
  const post = (headers: Record<string, string>) => new Request("https://market.test/login", { method: "POST", headers });
  it("refuses posts from other sites", () => {
    expect(isRefusedCrossSiteRequest(post({ "Sec-Fetch-Site": "cross-site" }))).toBe(true);
    expect(isRefusedCrossSiteRequest(post({ "Sec-Fetch-Site": "same-site" }))).toBe(true);
    expect(isRefusedCrossSiteRequest(post({ Origin: "https://evil.test" }))).toBe(true);
    expect(isRefusedCrossSiteRequest(post({ Origin: "null" }))).toBe(true);
  });
  it("allows same-origin posts, requests without browser headers, and reads", () => {
    expect(isRefusedCrossSiteRequest(post({ "Sec-Fetch-Site": "same-origin", Origin: "https://market.test" }))).toBe(false);
    expect(isRefusedCrossSiteRequest(post({}))).toBe(false);
    expect(isRefusedCrossSiteRequest(new Request("https://market.test/login", { headers: { "Sec-Fetch-Site": "cross-site" } }))).toBe(false);
  });
});
