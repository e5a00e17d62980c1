import { describe, expect, it } from "vitest";
import { addressWith, listReloads } from "~/domain/page-address";

const at = (address: string) => new URL(address, "http://local");
const LIST = ["sort", "after"];

describe("list pages with something shown over them", () => {
  it("opens and closes a panel or dialog over the list without loading it again", () => {
    expect(listReloads(at("/market?after=r5_10"), at("/market?after=r5_10&post=p1"), LIST)).toBe(false);
    expect(listReloads(at("/market?post=p1"), at("/market"), LIST)).toBe(false);
    expect(listReloads(at("/market?notice=offer-sent"), at("/market?feedback=true"), LIST)).toBe(false);
  });

  it("loads the list again when its place, its path or nothing at all changes", () => {
    expect(listReloads(at("/market"), at("/market?sort=record"), LIST)).toBe(true);
    expect(listReloads(at("/market?after=a"), at("/market?after=b"), LIST)).toBe(true);
    expect(listReloads(at("/search?term=blog"), at("/search/blog"), ["term"])).toBe(true);
    // The same address again: an order chosen again, a search sent again, the page revalidated.
    expect(listReloads(at("/market?after=a"), at("/market?after=a"), LIST)).toBe(true);
  });

  it("sets or removes a parameter and drops a notice already shown", () => {
    expect(addressWith("/market", new URLSearchParams("sort=record&notice=offer-sent"), "post", "p1")).toBe("/market?sort=record&post=p1");
    expect(addressWith("/search/blog", new URLSearchParams("post=p1"), "post", null)).toBe("/search/blog");
  });
});
