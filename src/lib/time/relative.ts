/**
 * PostHog's relative dates: `-7d` is seven days before now. Every date parameter of the API reads
 * them here. The places differ in which spellings they accept (a `RelativeForm`) and in how a
 * month back treats the 31st (`MonthStep`); where "now" is read and what the result is rounded to
 * is the caller's.
 */

export type RelativeUnit = "h" | "d" | "w" | "m" | "q" | "y";

export interface RelativeDate {
  count: number;
  unit: RelativeUnit;
}

/** Property filter values (flags, cohorts, person filters): hours to years, the minus optional (`7d` is `-7d`). */
export const FILTER_FORM = /^-?(\d+)([hdwmy])$/;
/** Insight date ranges: the minus required, quarters too, at most five digits. */
export const RANGE_FORM = /^-(\d{1,5})([hdwmqy])$/;

/** The relative date `text` spells in `form`, else undefined. */
export function parseRelative(text: string, form: RegExp): RelativeDate | undefined {
  const match = form.exec(text.trim());
  return match ? { count: Number(match[1]), unit: match[2] as RelativeUnit } : undefined;
}

/**
 * How a month back treats a day the earlier month lacks. `overflow` runs on into the next month as
 * Date does (Mar 31 − 1m = Mar 2); `clamp` stops at the month's end, one month at a time, as
 * PostHog's flag matcher does (Mar 31 − 2m = Feb 29 − 1m = Jan 29), and steps years a year at a
 * time (Mar 31 − 1y = Mar 31 a year earlier; only Feb 29 becomes Feb 28).
 */
export type MonthStep = "overflow" | "clamp";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MONTHS = { m: 1, q: 3, y: 12 } as const;

/**
 * The reading of a clock `relative` before the reading `wall` (both UTC milliseconds: an instant,
 * or a zone's wall time as in ./zone). Hours, days and weeks are fixed lengths; months, quarters and
 * years move the calendar, keeping the time of day.
 */
export function timeBefore(wall: number, { count, unit }: RelativeDate, months: MonthStep): number {
  if (unit === "h") return wall - count * HOUR_MS;
  if (unit === "d") return wall - count * DAY_MS;
  if (unit === "w") return wall - count * 7 * DAY_MS;
  if (months === "clamp" && unit === "y") return clampYearsBack(wall, count);
  const n = count * MONTHS[unit];
  return months === "overflow" ? overflowMonthsBack(wall, n) : clampMonthsBack(wall, n);
}

function overflowMonthsBack(wall: number, n: number): number {
  const d = new Date(wall);
  return d.setUTCMonth(d.getUTCMonth() - n);
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

function clampMonthsBack(wall: number, n: number): number {
  const d = new Date(wall);
  for (let i = 0; i < n; i++) {
    const year = d.getUTCMonth() === 0 ? d.getUTCFullYear() - 1 : d.getUTCFullYear();
    const month = (d.getUTCMonth() + 11) % 12;
    d.setUTCFullYear(year, month, Math.min(d.getUTCDate(), daysInMonth(year, month)));
  }
  return d.getTime();
}

/** One year at a time, as PostHog does: Feb 29 − 4y is Feb 28 four years back, not Feb 29. */
function clampYearsBack(wall: number, n: number): number {
  const d = new Date(wall);
  for (let i = 0; i < n; i++) {
    const year = d.getUTCFullYear() - 1;
    const month = d.getUTCMonth();
    d.setUTCFullYear(year, month, Math.min(d.getUTCDate(), daysInMonth(year, month)));
  }
  return d.getTime();
}
