import { describe, expect, it } from "vitest";
import { checkoutState, connectsRefunded, MAX_RECHECKS, oneYearAfter, recheckAddress } from "~/domain/connects";

describe("the Connects page", () => {
  it("says a payment is credited once its connects landed, failed when the bank payment did not go through, expected while it looks again, processing after", () => {
    expect(checkoutState({ credited: 50 }, MAX_RECHECKS)).toBe("credited");
    expect(checkoutState("failed", 0)).toBe("failed");
    expect(checkoutState("failed", MAX_RECHECKS)).toBe("failed");
    expect(checkoutState(null, 0)).toBe("pending");
    expect(checkoutState(null, MAX_RECHECKS - 1)).toBe("pending");
    expect(checkoutState(null, MAX_RECHECKS)).toBe("processing");
  });

  it("looks again at the same checkout, counting the looks, with the session id escaped", () => {
    expect(recheckAddress("cs_test_a&b", 3)).toBe("/mysite/connects?checkout=success&session_id=cs_test_a%26b&tries=3");
  });
});

describe("a lot's year", () => {
  it("ends at the same moment a calendar year later, across a 29 February too", () => {
    const at = (iso: string) => Date.parse(iso);
    expect(oneYearAfter(at("2026-11-28T04:30:00.000Z"))).toBe(at("2027-11-28T04:30:00.000Z"));
    // 2028 is a leap year: 366 days, not 365, from June 2027 to June 2028.
    expect(oneYearAfter(at("2027-06-01T12:00:00.000Z"))).toBe(at("2028-06-01T12:00:00.000Z"));
    expect(oneYearAfter(at("2028-02-29T23:59:59.999Z"))).toBe(at("2029-03-01T23:59:59.999Z"));
  });
});

describe("connects taken back by a refund", () => {
  it("takes the refunded share, rounded up, in whole numbers", () => {
    // In floating point 100 * (371 / 5300) is 7.000000000000001, which rounded up would be 8.
    expect(connectsRefunded(100, 371, 5300)).toBe(7);
    for (const percent of [14, 28, 55, 56]) expect(connectsRefunded(100, percent * 53, 5300)).toBe(percent);
    expect(connectsRefunded(100, 372, 5300)).toBe(8);
    expect(connectsRefunded(30, 1000, 2000)).toBe(15);
    expect(connectsRefunded(30, 1, 2000)).toBe(1);
    expect(connectsRefunded(30, 0, 2000)).toBe(0);
  });
  it("takes all of them for a whole refund, more than was paid, or a purchase that cost nothing", () => {
    expect(connectsRefunded(60, 2000, 2000)).toBe(60);
    expect(connectsRefunded(60, 2500, 2000)).toBe(60);
    expect(connectsRefunded(60, 0, 0)).toBe(60);
  });
});
