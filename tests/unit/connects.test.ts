import { describe, expect, it } from "vitest";
import { checkoutState, MAX_RECHECKS, recheckAddress, spendableLots } from "~/domain/connects";

describe("the Connects page", () => {
  it("lists only the lots with connects left that have not expired", () => {
    const now = 1_000;
    const lots = [
      { id: "spent", remaining: 0, expiresAt: 2_000 },
      { id: "expired", remaining: 5, expiresAt: 1_000 },
      { id: "live", remaining: 3, expiresAt: 1_001 },
    ];
    expect(spendableLots(lots, now).map((lot) => lot.id)).toEqual(["live"]);
  });

  it("says a payment is credited once its connects landed, expected while it looks again, processing after", () => {
    expect(checkoutState(50, MAX_RECHECKS)).toBe("credited");
    expect(checkoutState(null, 0)).toBe("pending");
    expect(checkoutState(null, MAX_RECHECKS - 1)).toBe("pending");
    expect(checkoutState(null, MAX_RECHECKS)).toBe("processing");
  });

  it("looks again at the same checkout, counting the looks, with the session id escaped", () => {
    expect(recheckAddress("cs_test_a&b", 3)).toBe("/mysite/connects?checkout=success&session_id=cs_test_a%26b&tries=3");
  });
});
