import { describe, expect, it } from "vitest";
import { hashToken } from "~/services/sessions.server";
import { pickActiveSite } from "~/services/sites.server";

describe("session ids", () => {
  it("are the token's SHA-256 in lowercase hex, as the sessions already stored were made", () => {
    // FIPS 180-2's test vector for "abc".
    expect(hashToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashToken("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});

describe("the active site", () => {
  const oldestFirst = [{ id: "first" }, { id: "second" }, { id: "third" }];

  it("is the remembered site while the user owns it", () => {
    expect(pickActiveSite(oldestFirst, "second")).toEqual({ id: "second" });
  });

  it("is the user's first site when none is remembered, or the remembered one is not theirs", () => {
    expect(pickActiveSite(oldestFirst, null)).toEqual({ id: "first" });
    expect(pickActiveSite(oldestFirst, "someone-elses")).toEqual({ id: "first" });
  });

  it("is none for a user without a site", () => {
    expect(pickActiveSite([], "second")).toBeNull();
  });
});
