import { describe, expect, it } from "vitest";
import { resolveDateRange } from "../../src/persons/analysis/dates";
import { addIntervals, fromLocal, iso, startOfInterval } from "../../src/persons/analysis/zone";

/** Period and date arithmetic in the project's zone (America/New_York: DST starts 2024-03-10 02:00). */
const NY = "America/New_York";
const NOW = Date.parse("2024-03-10T12:00:00Z"); // 08:00 EDT
const range = async (date_from?: string, date_to?: string) => {
  const r = await resolveDateRange({ date_from, date_to }, NY, NOW, async () => Date.parse("2023-06-15T03:00:00Z"));
  return [iso(r.from), iso(r.to)];
};

describe("date parameters in the project's time zone", () => {
  it("reads relative dates as local days", async () => {
    expect(await range("-7d")).toEqual(["2024-03-03T05:00:00.000Z", "2024-03-11T04:00:00.000Z"]);
    expect((await range("-1w"))[0]).toBe("2024-03-03T05:00:00.000Z");
    expect((await range("-1m"))[0]).toBe("2024-02-10T05:00:00.000Z");
    expect((await range("-2h"))[0]).toBe("2024-03-10T10:00:00.000Z");
    expect((await range("dStart"))[0]).toBe("2024-03-10T05:00:00.000Z");
    expect((await range("mStart"))[0]).toBe("2024-03-01T05:00:00.000Z");
    expect((await range("yStart"))[0]).toBe("2024-01-01T05:00:00.000Z");
    // `all`: from the start of the local day of the project's first event (2023-06-14 23:00 EDT).
    expect((await range("all"))[0]).toBe("2023-06-14T04:00:00.000Z");
  });

  it("reads absolute dates as local, a date-only date_to as the whole day", async () => {
    expect(await range("2024-03-09", "2024-03-10")).toEqual(["2024-03-09T05:00:00.000Z", "2024-03-11T04:00:00.000Z"]);
    expect((await range("2024-03-10 01:30:00"))[0]).toBe("2024-03-10T06:30:00.000Z");
    expect((await range("2024-03-10T01:30:00Z"))[0]).toBe("2024-03-10T01:30:00.000Z");
    expect((await range("2024-03-10T01:30:00+01:00"))[0]).toBe("2024-03-10T00:30:00.000Z");
  });

  it("refuses invalid dates and inverted ranges with a 400 naming the field", async () => {
    await expect(range("2024-02-30")).rejects.toMatchObject({ status: 400, attr: "date_from" });
    await expect(range("last week")).rejects.toMatchObject({ status: 400, attr: "date_from" });
    await expect(range("2024-03-05", "2024-03-01")).rejects.toMatchObject({ status: 400, attr: "date_to" });
  });

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
});
