import { iso } from "../lib/time/iso";
import { addIntervals, fromLocal, type Interval, localParts, startOfInterval, type WeekStart } from "../lib/time/zone";
import { queryTooComplex } from "./errors";
import type { Bucketing, LifecycleQuestion, StickinessQuestion } from "./queries";

/**
 * The periods of lifecycle and stickiness questions, from a range already resolved in the project's
 * zone: the insights (src/insights/) and the persons drill-downs (src/persons/analysis/) cut their
 * ranges here, so the same range is the same question for both.
 */

/** More periods than anyone charts: a range past this is refused rather than computed. */
export const MAX_PERIODS = 2000;

function tooMany(count: number, interval: Interval) {
  if (count > MAX_PERIODS)
    throw queryTooComplex(`The range spans more than ${MAX_PERIODS} ${interval}s; narrow it or use a longer interval.`);
}

/** Whole local intervals from the one starting at `first` to the one starting at `last`, and how they were cut. */
export function wholePeriods(
  first: number,
  last: number,
  interval: Interval,
  zone: string,
  weekStart: WeekStart,
): { periods: [string, string][]; bucketing: Bucketing } {
  const starts: number[] = [];
  for (let s = first; s <= last; s = addIntervals(s, 1, interval, zone)) {
    starts.push(s);
    tooMany(starts.length, interval);
  }
  const periods = starts.map((s): [string, string] => [iso(s), iso(addIntervals(s, 1, interval, zone))]);
  return { periods, bucketing: { interval, timezone: zone, weekStart, starts } };
}

/** A lifecycle's periods: whole local intervals from the one before `first` to `last` (both period starts). */
export function lifecyclePeriods(
  first: number,
  last: number,
  interval: Interval,
  zone: string,
  weekStart: WeekStart,
): Pick<LifecycleQuestion, "periods" | "bucketing"> {
  return wholePeriods(addIntervals(first, -1, interval, zone), last, interval, zone, weekStart);
}

/**
 * A stickiness question's windows over `[from, to)`: its local intervals, the first and last cut to
 * the range; or, with `intervalCount` (PostHog's units of several intervals, counted back from the
 * range's end as ClickHouse's `age` counts them), units of that many intervals ending at `to`, as
 * many as the range's intervals divided by it (rounded up), the earliest cut to the range.
 */
export function stickinessWindows(
  range: { from: number; to: number },
  interval: Interval,
  zone: string,
  weekStart: WeekStart,
  intervalCount?: number,
): Pick<StickinessQuestion, "windows" | "bucketing"> {
  const starts: number[] = [];
  for (
    let s = startOfInterval(range.from, interval, zone, weekStart);
    s < range.to;
    s = addIntervals(s, 1, interval, zone)
  ) {
    starts.push(s);
    tooMany(starts.length, interval);
  }
  const cut = (s: number, e: number): [string, string] => [
    iso(Math.max(s, range.from)),
    iso(Math.max(Math.min(e, range.to), range.from)),
  ];
  if (!intervalCount) {
    const windows = starts.map((s, i) =>
      cut(s, i + 1 < starts.length ? starts[i + 1] : addIntervals(s, 1, interval, zone)),
    );
    return { windows, bucketing: { interval, timezone: zone, weekStart } };
  }
  const units = Math.ceil(starts.length / intervalCount);
  const bounds = Array.from({ length: units + 1 }, (_, j) =>
    back(range.to, (units - j) * intervalCount, interval, zone),
  );
  const windows = bounds.slice(0, -1).map((s, j) => cut(s, bounds[j + 1]));
  return { windows, bucketing: { interval, timezone: zone, weekStart, intervalCount } };
}

/**
 * `n` intervals before `instant` by the local calendar, at the same local time (a month back from a
 * day the earlier month lacks rolls over into the next, as Date.UTC does).
 */
function back(instant: number, n: number, interval: Interval, zone: string): number {
  if (interval === "hour") return instant - n * 3_600_000;
  const p = localParts(instant, zone);
  const days = interval === "day" ? n : interval === "week" ? 7 * n : 0;
  const month = p.month - (interval === "month" ? n : 0);
  return fromLocal(zone, p.year, month, p.day - days, p.hour, p.minute, p.second, p.ms);
}
