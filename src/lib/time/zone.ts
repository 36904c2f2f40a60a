/**
 * Wall clocks of IANA time zones. SQLite has no time-zone support, so every local date or period
 * boundary is computed here (with Intl) and handed on as a UTC instant.
 *
 * A "wall" time is a reading of a zone's clock written as UTC milliseconds (Date.UTC of the local
 * year, month, day, hour, ...), so that calendar arithmetic on it is plain Date arithmetic.
 * Turning a wall time back into an instant is where daylight saving time bites: a reading can be
 * skipped (spring forward) or happen twice (fall back). `fromWall` always answers, for period
 * boundaries; `exactInstant` says when there is no such instant, for comparisons that must not
 * shift a value (PostHog's flag matcher).
 */

export type Interval = "hour" | "day" | "week" | "month";

/** The first day of a week: 0 Sunday (PostHog's default), 1 Monday (a project's `week_start_day`). */
export type WeekStart = 0 | 1;

export interface LocalParts {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** True when `zone` is an IANA time zone the runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

// Building an Intl.DateTimeFormat costs far more than using one: one per zone, kept.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string) {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, f);
  }
  return f;
}

const isUtc = (zone: string) => zone === "UTC" || zone === "Etc/UTC";

/** The wall-clock reading of `instant` in `zone`. */
export function localParts(instant: number, zone: string): LocalParts {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(instant))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour === 24 ? 0 : parts.hour,
    minute: parts.minute,
    second: parts.second,
    ms: ((instant % 1000) + 1000) % 1000,
  };
}

/** The wall time (see above) of `instant` in `zone`. */
export function toWall(instant: number, zone: string): number {
  if (isUtc(zone)) return instant;
  const p = localParts(instant, zone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.ms);
}

/** Milliseconds to add to UTC to get the zone's wall clock at `instant`. */
const offsetAt = (instant: number, zone: string) => toWall(instant, zone) - instant;

/**
 * The instant at which the zone's clock reads `wall`; of two (clocks going back), the earlier.
 * `NaN` when the clocks skip it, unless `skipped` says what to do then.
 */
function instantOf(wall: number, zone: string, skipped: "later" | "none"): number {
  if (isUtc(zone)) return wall;
  // Offsets a day either side bound every offset in force near `wall` (as Temporal does it).
  const before = offsetAt(wall - DAY_MS, zone);
  const after = offsetAt(wall + DAY_MS, zone);
  if (before === after) return wall - before; // no change of offset nearby: the usual case, two lookups
  const early = Math.min(wall - before, wall - after);
  const late = Math.max(wall - before, wall - after);
  if (toWall(early, zone) === wall) return early;
  if (toWall(late, zone) === wall) return late;
  // Skipped: read with the offset from before the jump, the wall time lands as far past it (02:30 → 03:30).
  return skipped === "later" ? wall - before : Number.NaN;
}

/**
 * The instant of `wall` in `zone`. A wall time the clocks skip resolves forward by the length of the
 * jump (02:30 on a spring-forward night is 03:30), as Temporal's "compatible" disambiguation does;
 * one that happens twice is the earlier.
 */
export const fromWall = (wall: number, zone: string): number => instantOf(wall, zone, "later");

/**
 * The instant of `wall` in `zone`, or undefined when the clocks skip that wall time: PostHog's flag
 * matcher reads a date in a spring-forward gap as no date at all, rather than shift it
 * (rust/feature-flags properties/relative_date.rs, `naive_to_utc_in_tz`). One that happens twice is
 * the earlier, there too.
 */
export function exactInstant(wall: number, zone: string): number | undefined {
  const instant = instantOf(wall, zone, "none");
  return Number.isNaN(instant) ? undefined : instant;
}

/**
 * The UTC instant at which the zone's wall clock reads the given local time, as `fromWall`.
 * Month and day may overflow (Date.UTC normalises them).
 */
export function fromLocal(
  zone: string,
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  ms = 0,
) {
  return fromWall(Date.UTC(year, month - 1, day, hour, minute, second, ms), zone);
}

/** The start (UTC instant) of the period containing `instant`; weeks start on `weekStart` (Sunday unless told). */
export function startOfInterval(instant: number, interval: Interval, zone: string, weekStart: WeekStart = 0): number {
  const p = localParts(instant, zone);
  switch (interval) {
    case "hour":
      return fromLocal(zone, p.year, p.month, p.day, p.hour);
    case "day":
      return fromLocal(zone, p.year, p.month, p.day);
    case "week": {
      const weekday = (new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay() + 7 - weekStart) % 7;
      return fromLocal(zone, p.year, p.month, p.day - weekday);
    }
    case "month":
      return fromLocal(zone, p.year, p.month, 1);
  }
}

/** The start of the period `n` periods after the one starting at `start` (n may be negative). */
export function addIntervals(start: number, n: number, interval: Interval, zone: string): number {
  if (interval === "hour") return start + n * HOUR_MS;
  const p = localParts(start, zone);
  if (interval === "day") return fromLocal(zone, p.year, p.month, p.day + n);
  if (interval === "week") return fromLocal(zone, p.year, p.month, p.day + 7 * n);
  return fromLocal(zone, p.year, p.month + n, 1);
}
