import { describe, expect, it } from "vitest";
import { checkoutState, MAX_RECHECKS, recheckAddress } from "~/domain/connects";

describe("the Connects page", () => {
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
