/**
 * Calendar arithmetic in a project's IANA time zone. SQLite has no time-zone support, so every
 * period boundary is computed here (with Intl) and handed to SQL as a UTC instant; that keeps
 * day/week/month buckets right across DST changes.
 */

export type Interval = "hour" | "day" | "week" | "month";

export interface LocalParts {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

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

/** Milliseconds to add to UTC to get the zone's wall clock at `instant`. */
function offsetAt(instant: number, zone: string): number {
  const p = localParts(instant, zone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.ms) - instant;
}

/**
 * The UTC instant at which the zone's wall clock reads the given local time. Month and day may
 * overflow (Date.UTC normalises them). A wall time skipped by a DST jump resolves forward.
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
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const o1 = offsetAt(wall, zone);
  const t1 = wall - o1;
  const o2 = offsetAt(t1, zone);
  if (o2 === o1) return t1;
  const t2 = wall - o2;
  if (offsetAt(t2, zone) === o2) return t2;
  // In a gap neither guess reads back as `wall`: take the later instant, as most libraries do.
  return Math.max(t1, t2);
}

/** The start (UTC instant) of the period containing `instant`. Weeks start on Sunday, as PostHog's default. */
export function startOfInterval(instant: number, interval: Interval, zone: string): number {
  const p = localParts(instant, zone);
  switch (interval) {
    case "hour":
      return fromLocal(zone, p.year, p.month, p.day, p.hour);
    case "day":
      return fromLocal(zone, p.year, p.month, p.day);
    case "week": {
      const weekday = new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
      return fromLocal(zone, p.year, p.month, p.day - weekday);
    }
    case "month":
      return fromLocal(zone, p.year, p.month, 1);
  }
}

/** The start of the period `n` periods after the one starting at `start` (n may be negative). */
export function addIntervals(start: number, n: number, interval: Interval, zone: string): number {
  if (interval === "hour") return start + n * 3_600_000;
  const p = localParts(start, zone);
  if (interval === "day") return fromLocal(zone, p.year, p.month, p.day + n);
  if (interval === "week") return fromLocal(zone, p.year, p.month, p.day + 7 * n);
  return fromLocal(zone, p.year, p.month + n, 1);
}

/** Canonical stored form of instants: ISO 8601 UTC with milliseconds and `Z` (as events.timestamp). */
export const iso = (instant: number) => new Date(instant).toISOString();
