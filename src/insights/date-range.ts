import { clockOf, type DateClock, parseDate, type ParsedDate } from "../lib/time/date-range";
import type { InsightContext } from "./context";
import { validationError } from "../lib/errors";
import { iso } from "../lib/time/iso";
import { parseRelative, RANGE_FORM, timeBefore } from "../lib/time/relative";
import { addIntervals, fromWall, type Interval, startOfInterval, toWall } from "../lib/time/zone";

/** More buckets than anyone charts: a range past this is refused rather than computed. */
const MAX_BUCKETS = 5000;

/**
 * An insight's date range resolved as PostHog's QueryDateRange does (posthog/hogql_queries/utils/
 * query_date_range.py), in the project's zone: `[from, to)` are the events read, `starts` the
 * buckets' starts (each a whole interval; the first may begin before `from`, e.g. a week).
 */
export interface InsightRange {
  from: number;
  to: number;
  starts: number[];
  interval: Interval;
}

export interface RangeInput {
  date_from?: string | null;
  date_to?: string | null;
  explicitDate?: boolean | null;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * - `date_from` (default `-7d`) starts at its day (its hour for `-Nh` and the hour interval) unless
 *   `explicitDate`; `all` is the day of the project's first event.
 * - `date_to` (default now) runs to the end of its day, or of its hour for the hour interval when
 *   relative or absent (an absolute one is then kept as written); `explicitDate` keeps it exactly.
 * - Buckets run from the interval's start around `date_from` to `date_to`, every one present.
 */
export async function resolveInsightRange(
  input: RangeInput,
  interval: Interval,
  clock: DateClock,
  earliest: () => Promise<number | null>,
): Promise<InsightRange> {
  const { zone, now, weekStart } = clock;
  const explicit = input.explicitDate === true;
  let from: number;
  if (input.date_from === "all") {
    from = startOfInterval((await earliest()) ?? now, "day", zone);
  } else {
    const parsed = parseDate(input.date_from || "-7d", clock, "dateRange__date_from");
    from = explicit ? parsed.instant : roundFrom(parsed, interval, zone);
  }
  const to = resolveTo(input, interval, clock, explicit);
  if (to <= from) throw validationError("date_to must be after date_from.", "dateRange");
  const starts: number[] = [];
  for (let s = startOfInterval(from, interval, zone, weekStart); s < to; s = addIntervals(s, 1, interval, zone)) {
    if (starts.length >= MAX_BUCKETS)
      throw validationError(`The range has more than ${MAX_BUCKETS} ${interval}s; use a longer interval.`, "interval");
    starts.push(s);
  }
  // A month bucket reads its whole month (a week only the range's days: PostHog rounds the lower
  // bound to the interval's start except for weeks).
  if (!explicit && interval === "month" && starts.length) from = starts[0];
  return { from, to, starts, interval };
}

function roundFrom(parsed: ParsedDate, interval: Interval, zone: string): number {
  if (parsed.relativeHours || interval === "hour") return startOfInterval(parsed.instant, "hour", zone);
  return startOfInterval(parsed.instant, "day", zone);
}

function resolveTo(input: RangeInput, interval: Interval, clock: DateClock, explicit: boolean): number {
  const { zone, now } = clock;
  if (!input.date_to) {
    if (explicit) return now + 1;
    const unit = interval === "hour" ? "hour" : "day";
    return addIntervals(startOfInterval(now, unit, zone), 1, unit, zone);
  }
  const parsed = parseDate(input.date_to, clock, "dateRange__date_to");
  if (explicit) return parsed.instant + 1;
  if (interval === "hour") {
    // A relative date_to runs to the end of its hour; an absolute one is kept (PostHog: 2020-01-04 is 00:00).
    return parseRelative(input.date_to.trim(), RANGE_FORM)
      ? startOfInterval(parsed.instant, "hour", zone) + HOUR_MS
      : parsed.instant + 1;
  }
  return addIntervals(startOfInterval(parsed.instant, "day", zone), 1, "day", zone);
}

/** The range an insight query with a `dateRange` and an `interval` (default day) reads, in its context. */
export function queryRange(
  ctx: InsightContext,
  query: { dateRange?: RangeInput | null; interval?: Interval | null },
): Promise<InsightRange> {
  return resolveInsightRange(query.dateRange ?? {}, query.interval ?? "day", clockOf(ctx), () =>
    ctx.store.earliestEvent(ctx.projectId),
  );
}

/** Each bucket's events: its interval, cut to the range. */
export function bucketWindows(range: InsightRange, zone: string): [string, string][] {
  return range.starts.map((s, i) => {
    const end = i + 1 < range.starts.length ? range.starts[i + 1] : addIntervals(s, 1, range.interval, zone);
    return [iso(Math.max(s, range.from)), iso(Math.min(end, range.to))];
  });
}

/**
 * The range with `periods` more whole periods before it (weekly and monthly active users count the
 * days, or hours, before the first bucket too).
 */
export function extendedBack(range: InsightRange, periods: number, zone: string): InsightRange {
  const first = range.starts[0] ?? range.from;
  const earlier = Array.from({ length: periods }, (_, i) => addIntervals(first, i - periods, range.interval, zone));
  return { ...range, from: periods ? earlier[0] : range.from, starts: [...earlier, ...range.starts] };
}

/**
 * The previous period of `compareFilter`: as long as the current one and ending where it starts
 * (on the day interval, `-Nd` with N a multiple of 7 and no relative date_to, one day later, so
 * weekdays line up: PostHog's get_compare_period_dates), or `compare_to` before the current start.
 */
export function previousRange(
  current: InsightRange,
  input: RangeInput,
  compareTo: string | null | undefined,
  clock: DateClock,
): InsightRange {
  const { zone, weekStart } = clock;
  const hourly = current.interval === "hour";
  // Lengths in wall time, so a period across a DST change keeps its local days.
  const currentStart = toWall(current.from, zone);
  const length = toWall(current.to, zone) - currentStart;
  let start: number;
  if (compareTo) {
    const relative = parseRelative(compareTo, RANGE_FORM);
    if (!relative)
      throw validationError(`compare_to must be a relative date such as -1w or -1m.`, "compareFilter__compare_to");
    start = timeBefore(currentStart, relative, "overflow");
  } else {
    // One period back (PostHog's end is inclusive: a moment less), at the current start's time of
    // day (hours) or at midnight, so the periods line up bucket by bucket.
    const back = currentStart - length + 1;
    const timeOfDay = hourly ? currentStart % DAY_MS : 0;
    start = back - (((back % DAY_MS) + DAY_MS) % DAY_MS) + timeOfDay;
    const fromDays = parseRelative((input.date_from ?? "-7d").trim(), RANGE_FORM);
    const relativeTo = input.date_to ? parseRelative(input.date_to.trim(), RANGE_FORM) : undefined;
    if (
      !hourly &&
      current.interval === "day" &&
      fromDays?.unit === "d" &&
      fromDays.count % 7 === 0 &&
      fromDays.count > 0 &&
      !relativeTo
    )
      start += 24 * HOUR_MS;
  }
  const from = fromWall(start, zone);
  const to = fromWall(start + length, zone);
  const starts: number[] = [];
  for (
    let s = startOfInterval(from, current.interval, zone, weekStart);
    s < to;
    s = addIntervals(s, 1, current.interval, zone)
  )
    starts.push(s);
  return { from, to, starts, interval: current.interval };
}
