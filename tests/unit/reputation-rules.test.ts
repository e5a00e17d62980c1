import { describe, expect, it } from "vitest";
import { formatAnswerTime, recordLines, recordSummary, reputationOf, type ReputationCounts } from "~/domain/reputation";

const none: ReputationCounts = { completed: 0, settled: 0, answered: 0, answerMs: null, links30: 0, live30: 0, links90: 0, live90: 0 };
const HOUR = 3_600_000;

describe("a site's record", () => {
  it("a new site has no record yet: it sorts between poor records and everyone with a record", () => {
    const rep = reputationOf(none);
    expect(rep.sortKey).toBe(1);
    expect(rep.poorReasons).toEqual([]);
    expect(recordSummary(rep)).toBe("No trades yet");
    expect(recordLines(rep).map((line) => line.value)).toEqual([
      "0",
      "no finished trades yet",
      "no offers answered yet",
      "none checked yet",
      "none checked yet",
    ]);
  });

  it("shows the figures it was counted from", () => {
    const rep = reputationOf({ completed: 4, settled: 5, answered: 6, answerMs: 5 * HOUR, links30: 4, live30: 4, links90: 2, live90: 1 });
    expect(rep.completionRate).toBe(0.8);
    expect(recordLines(rep)).toEqual([
      { label: "Trades completed", value: "4" },
      { label: "Completion rate", value: "80% of 5" },
      { label: "Answers offers", value: "in 5 hours (median of 6)" },
      { label: "Links live after 30 days", value: "100% of 4" },
      { label: "Links live after 90 days", value: "50% of 2" },
    ]);
    expect(recordSummary(rep)).toBe("4 trades completed · 80% completion · 100% links live at 30 days");
    expect(rep.sortKey).toBeGreaterThan(1);
  });

  it("marks a poor record: most trades not completed, or most links gone", () => {
    expect(reputationOf({ ...none, completed: 1, settled: 3 }).poorReasons).toEqual(["completed 1 of 3 trades"]);
    expect(reputationOf({ ...none, completed: 2, settled: 2, links30: 3, live30: 1 }).poorReasons).toEqual(["2 of 3 links gone within 30 days"]);
    expect(reputationOf({ ...none, completed: 2, settled: 2, links30: 2, live30: 2, links90: 2, live90: 0 }).poorReasons).toEqual([
      "2 of 2 links gone within 90 days",
    ]);
    // Too little to judge: one lost link, two unfinished trades.
    expect(reputationOf({ ...none, settled: 2, links30: 1 }).poorReasons).toEqual([]);
    expect(reputationOf({ ...none, completed: 1, settled: 3 }).sortKey).toBe(0);
  });

  it("sorts a long good record above a single success, and both above a new site", () => {
    const long = reputationOf({ ...none, completed: 19, settled: 20 }).sortKey;
    const single = reputationOf({ ...none, completed: 1, settled: 1 }).sortKey;
    expect(long).toBeGreaterThan(single);
    expect(single).toBeGreaterThan(reputationOf(none).sortKey);
  });

  it("says how fast a site answers in words", () => {
    expect(formatAnswerTime(20 * 60_000)).toBe("within an hour");
    expect(formatAnswerTime(30 * HOUR)).toBe("in 30 hours");
    expect(formatAnswerTime(70 * 60_000)).toBe("in 1 hour");
    expect(formatAnswerTime(100 * 60_000)).toBe("in 2 hours");
    expect(formatAnswerTime(72 * HOUR)).toBe("in 3 days");
  });
});
