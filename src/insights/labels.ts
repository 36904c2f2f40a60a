import { addIntervals, type Interval, localParts } from "../lib/time/zone";
import type { InsightRange } from "./date-range";

/**
 * PostHog's bucket labels and dates (posthog/hogql_queries/utils/timestamp_utils.py, the trends
 * runner), read on the project's wall clock.
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

const dayMonth = (p: { day: number; month: number }) => `${p.day}-${MONTHS[p.month - 1]}`;
const dayMonthYear = (p: { day: number; month: number; year: number }) => `${dayMonth(p)}-${p.year}`;

/**
 * A bucket's label: `1-Jan-2020` (day), `4-Jan 13:00` (hour), `Jan 2020` (month); a week is its days
 * within the range: `29–31 Oct`, `27-Oct – 2-Nov`, `29-Dec-2019 – 4-Jan-2020`, or one day `1-Nov-2020`.
 */
export function bucketLabel(start: number, interval: Interval, zone: string, range: { from: number; to: number }) {
  const p = localParts(start, zone);
  if (interval === "hour") return `${dayMonth(p)} ${pad(p.hour)}:${pad(p.minute)}`;
  if (interval === "day") return dayMonthYear(p);
  if (interval === "month") return `${MONTHS[p.month - 1]} ${p.year}`;
  const first = localParts(Math.max(start, range.from), zone);
  const last = localParts(Math.min(addIntervals(start, 1, "week", zone), range.to) - 1, zone);
  if (first.year === last.year && first.month === last.month && first.day === last.day) return dayMonthYear(first);
  if (first.year !== last.year) return `${dayMonthYear(first)} – ${dayMonthYear(last)}`;
  if (first.month !== last.month) return `${dayMonth(first)} – ${dayMonth(last)}`;
  return `${first.day}–${last.day} ${MONTHS[first.month - 1]}`;
}

/** A bucket's date: `2020-01-01` (the week's start for a week), with ` 13:00:00` for hours. */
export function bucketDay(start: number, interval: Interval, zone: string): string {
  const p = localParts(start, zone);
  const date = `${p.year}-${pad(p.month)}-${pad(p.day)}`;
  return interval === "hour" ? `${date} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}` : date;
}

/**
 * An instant as PostHog serialises the team's datetimes: ISO 8601 in the zone, `Z` for UTC
 * (`2019-12-28T00:00:00Z`, `2020-01-04T23:59:59.999999-08:00`), fractions only when not zero.
 */
export function zonedIso(instant: number, zone: string, microsEnd = false): string {
  const p = localParts(instant, zone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.ms);
  const offset = Math.round((wall - instant) / 60_000);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const suffix = offset === 0 ? "Z" : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  const fraction = microsEnd ? ".999999" : p.ms ? `.${String(p.ms).padStart(3, "0")}` : "";
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${fraction}${suffix}`;
}

/** The inclusive end of a range, as PostHog reports `resolved_date_range.date_to`. */
export const inclusiveEnd = (range: { to: number }, zone: string) =>
  range.to % 1000 === 0 ? zonedIso(range.to - 1000, zone, true) : zonedIso(range.to - 1, zone);

/** A response's `resolved_date_range`: the range's first instant and its inclusive end, in the zone. */
export const resolvedDateRange = (range: InsightRange, zone: string) => ({
  date_from: zonedIso(range.from, zone),
  date_to: inclusiveEnd(range, zone),
});
