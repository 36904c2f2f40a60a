import { describe, expect, it } from "vitest";
import { resolveDateRange } from "../../src/lib/time/date-range";
import { iso } from "../../src/lib/time/iso";

/** Date parameters in the project's zone (America/New_York: DST starts 2024-03-10 02:00). */
const NY = "America/New_York";
const NOW = Date.parse("2024-03-10T12:00:00Z"); // 08:00 EDT
const range = async (date_from?: string, date_to?: string) => {
  const r = await resolveDateRange({ date_from, date_to }, { zone: NY, now: NOW, weekStart: 0 }, async () =>
    Date.parse("2023-06-15T03:00:00Z"),
  );
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
});
