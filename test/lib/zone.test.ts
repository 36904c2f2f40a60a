import { describe, expect, it } from "vitest";
import { iso } from "../../src/lib/time/iso";
import { addIntervals, exactInstant, fromLocal, startOfInterval, toWall } from "../../src/lib/time/zone";

/** Period arithmetic in a zone with DST (America/New_York: DST starts 2024-03-10 02:00, ends 2024-11-03 02:00). */
const NY = "America/New_York";

describe("wall clocks of a time zone", () => {
  it("resolves skipped and repeated wall times", () => {
    // 02:30 does not exist on 2024-03-10: resolved forward to 03:30 EDT.
    expect(iso(fromLocal(NY, 2024, 3, 10, 2, 30))).toBe("2024-03-10T07:30:00.000Z");
    expect(iso(fromLocal(NY, 2024, 3, 10, 3, 0))).toBe("2024-03-10T07:00:00.000Z");
    // 01:30 happens twice on 2024-11-03: the first (EDT) one.
    expect(iso(fromLocal(NY, 2024, 11, 3, 1, 30))).toBe("2024-11-03T05:30:00.000Z");
    expect(iso(fromLocal("Asia/Kolkata", 2024, 1, 1))).toBe("2023-12-31T18:30:00.000Z");
  });

  it("finds local period starts across DST", () => {
    const wed = Date.parse("2024-03-13T15:00:00Z");
    expect(iso(startOfInterval(wed, "week", NY))).toBe("2024-03-10T05:00:00.000Z");
    expect(iso(startOfInterval(wed, "day", NY))).toBe("2024-03-13T04:00:00.000Z");
    expect(iso(startOfInterval(Date.parse("2024-11-15T12:00:00Z"), "month", NY))).toBe("2024-11-01T04:00:00.000Z");
    // The 23-hour day of the change and the 25-hour day in November.
    expect(iso(addIntervals(Date.parse("2024-03-10T05:00:00Z"), 1, "day", NY))).toBe("2024-03-11T04:00:00.000Z");
    expect(iso(addIntervals(Date.parse("2024-11-03T04:00:00Z"), 1, "day", NY))).toBe("2024-11-04T05:00:00.000Z");
    expect(iso(addIntervals(Date.parse("2024-03-01T05:00:00Z"), -1, "month", NY))).toBe("2024-02-01T05:00:00.000Z");
  });

  it("takes the earlier of a repeated wall time east of UTC too, and can say a skipped one has no instant", () => {
    // London: 01:30 happens twice on 2024-10-27 (BST, then GMT) and never on 2024-03-31.
    expect(iso(fromLocal("Europe/London", 2024, 10, 27, 1, 30))).toBe("2024-10-27T00:30:00.000Z");
    expect(iso(fromLocal("Europe/London", 2024, 3, 31, 1, 30))).toBe("2024-03-31T01:30:00.000Z");
    expect(exactInstant(Date.UTC(2024, 2, 31, 1, 30), "Europe/London")).toBeUndefined();
    expect(exactInstant(Date.UTC(2024, 2, 10, 2, 30), NY)).toBeUndefined();
    expect(exactInstant(Date.UTC(2024, 10, 3, 1, 30), NY)).toBe(Date.parse("2024-11-03T05:30:00Z"));
    expect(exactInstant(Date.UTC(2024, 2, 10, 3, 0), NY)).toBe(Date.parse("2024-03-10T07:00:00Z"));
    // And back: the wall time of an instant.
    expect(toWall(Date.parse("2024-03-10T07:00:00Z"), NY)).toBe(Date.UTC(2024, 2, 10, 3, 0));
    expect(toWall(Date.parse("2024-03-10T06:59:00Z"), NY)).toBe(Date.UTC(2024, 2, 10, 1, 59));
  });
});
