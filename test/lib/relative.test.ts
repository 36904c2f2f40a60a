import { describe, expect, it } from "vitest";
import { FILTER_FORM, parseRelative, RANGE_FORM, timeBefore } from "../../src/lib/time/relative";

describe("relative dates", () => {
  it("reads the spellings each form allows", () => {
    expect(parseRelative(" -7d ", FILTER_FORM)).toEqual({ count: 7, unit: "d" });
    expect(parseRelative("7d", FILTER_FORM)).toEqual({ count: 7, unit: "d" });
    expect(parseRelative("-1q", FILTER_FORM)).toBeUndefined();
    expect(parseRelative("-1q", RANGE_FORM)).toEqual({ count: 1, unit: "q" });
    expect(parseRelative("7d", RANGE_FORM)).toBeUndefined();
    expect(parseRelative("-123456d", RANGE_FORM)).toBeUndefined();
    expect(parseRelative("dStart", RANGE_FORM)).toBeUndefined();
  });

  it("counts hours to weeks as lengths and months on the calendar, overflowing or clamping", () => {
    const at = (text: string) => Date.parse(text);
    const iso = (ms: number) => new Date(ms).toISOString();
    const march31 = at("2024-03-31T10:00:00.000Z");
    expect(iso(timeBefore(march31, { count: 25, unit: "h" }, "clamp"))).toBe("2024-03-30T09:00:00.000Z");
    expect(iso(timeBefore(march31, { count: 2, unit: "w" }, "clamp"))).toBe("2024-03-17T10:00:00.000Z");
    expect(iso(timeBefore(march31, { count: 1, unit: "m" }, "overflow"))).toBe("2024-03-02T10:00:00.000Z");
    expect(iso(timeBefore(march31, { count: 1, unit: "m" }, "clamp"))).toBe("2024-02-29T10:00:00.000Z");
    expect(iso(timeBefore(march31, { count: 2, unit: "m" }, "clamp"))).toBe("2024-01-29T10:00:00.000Z");
    expect(iso(timeBefore(march31, { count: 1, unit: "q" }, "overflow"))).toBe("2023-12-31T10:00:00.000Z");
    const leapDay = at("2024-02-29T00:00:00.000Z");
    expect(iso(timeBefore(leapDay, { count: 1, unit: "y" }, "overflow"))).toBe("2023-03-01T00:00:00.000Z");
    expect(iso(timeBefore(leapDay, { count: 1, unit: "y" }, "clamp"))).toBe("2023-02-28T00:00:00.000Z");
  });

  it("steps years a year at a time under the clamp rule, as PostHog's flags service does", () => {
    // relative_date.rs: a year back keeps month and day (only 29 February becomes the 28th), where
    // twelve clamped months would stop at the 29th of each shorter month on the way.
    const iso = (ms: number) => new Date(ms).toISOString();
    const march31 = Date.parse("2024-03-31T10:00:00.000Z");
    expect(iso(timeBefore(march31, { count: 1, unit: "y" }, "clamp"))).toBe("2023-03-31T10:00:00.000Z");
    expect(iso(timeBefore(march31, { count: 2, unit: "y" }, "clamp"))).toBe("2022-03-31T10:00:00.000Z");
    const leapDay = Date.parse("2024-02-29T00:00:00.000Z");
    expect(iso(timeBefore(leapDay, { count: 4, unit: "y" }, "clamp"))).toBe("2020-02-28T00:00:00.000Z");
  });
});
