import { describe, expect, it } from "vitest";
import { formatMoney } from "~/domain/money";

describe("receipt amounts", () => {
  it("read Stripe's amounts in each currency's smallest unit: cents, whole yen, thousandths of a dinar", () => {
    expect(formatMoney(2000, "usd")).toBe("$20.00");
    expect(formatMoney(1850, "EUR")).toBe("€18.50");
    expect(formatMoney(3200, "jpy")).toBe("¥3,200");
    expect(formatMoney(5000, "krw")).toBe("₩5,000");
    expect(formatMoney(12_340, "kwd")).toBe("KWD\u00a012.340");
  });
});
