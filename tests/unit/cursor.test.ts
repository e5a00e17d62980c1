import { describe, expect, it } from "vitest";
import { formatCursor, formatRecordCursor, parseCursor, parseRecordCursor } from "~/domain/cursor";

describe("page cursors", () => {
  it("reads back what it writes", () => {
    const cursor = { at: 1_763_700_000_123, id: "0b6c2f1e-3a4d-4c5e-8f90-a1b2c3d4e5f6" };
    expect(formatCursor(cursor)).toBe("1763700000123_0b6c2f1e-3a4d-4c5e-8f90-a1b2c3d4e5f6");
    expect(parseCursor(formatCursor(cursor))).toEqual(cursor);
    expect(parseCursor(formatCursor(cursor, "r"), "r")).toEqual(cursor);
  });

  it("keeps zero and the largest value of 15 digits", () => {
    expect(parseCursor("0_a")).toEqual({ at: 0, id: "a" });
    expect(parseCursor("999999999999999_x")).toEqual({ at: 999_999_999_999_999, id: "x" });
  });

  it("reads a cursor only in the order it was written for", () => {
    expect(parseCursor("r12_abc")).toBeNull();
    expect(parseCursor("12_abc", "r")).toBeNull();
    expect(parseCursor("q12_abc", "r")).toBeNull();
  });

  it.each([
    ["nothing", null],
    ["undefined", undefined],
    ["an empty value", ""],
    ["no id", "12_"],
    ["no number", "_abc"],
    ["no separator", "12abc"],
    ["a negative number", "-12_abc"],
    ["a fraction", "1.5_abc"],
    ["an exponent", "1e5_abc"],
    ["16 digits", "1234567890123456_abc"],
    ["an id of 65 characters", `12_${"a".repeat(65)}`],
    ["a space", "12_a bc"],
    ["quotes", "12_a'b"],
    ["SQL", "12_a;DROP TABLE offers"],
    ["a percent escape", "12_%00"],
    ["a line break at the end", "12_abc\n"],
    ["a slash", "12_a/b"],
    ["an upper-case prefix", "R12_abc"],
    ["unicode digits", "١٢_abc"],
  ])("refuses %s", (_, value) => {
    expect(parseCursor(value)).toBeNull();
    expect(parseCursor(value, "r")).toBeNull();
  });

  it("reads a record position back, and nothing but a record key and an index row", () => {
    expect(formatRecordCursor({ repSort: 1002, searchRowid: 41 })).toBe("r1002_41");
    expect(parseRecordCursor("r1002_41")).toEqual({ repSort: 1002, searchRowid: 41 });
    expect(parseRecordCursor("r0_999999999999999")).toEqual({ repSort: 0, searchRowid: 999_999_999_999_999 });
    // A cursor of the order before (a site id), another order's, and a row that is not a whole number.
    expect(parseRecordCursor("r5_0b6c2f1e-3a4d-4c5e-8f90-a1b2c3d4e5f6")).toBeNull();
    expect(parseRecordCursor("5_41")).toBeNull();
    expect(parseRecordCursor("r5_4a")).toBeNull();
    expect(parseRecordCursor("r5_1234567890123456")).toBeNull();
    expect(parseRecordCursor(null)).toBeNull();
  });
});
