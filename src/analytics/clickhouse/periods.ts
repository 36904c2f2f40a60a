import type { Interval, WeekStart } from "../../lib/time/zone";

/**
 * The start of the local period an event's time `t` falls in, by ClickHouse's own time-zone functions:
 * the same periods as lib/time/zone.ts's startOfInterval, DST days included (toStartOfWeek's mode 0
 * starts weeks on Sunday, 1 on Monday). Weeks and months are Dates, hours and days DateTimes.
 */
export function periodStart(interval: Interval, t: string, zone: string, weekStart: WeekStart): string {
  switch (interval) {
    case "hour":
      return `toStartOfHour(${t}, ${zone})`;
    case "day":
      return `toStartOfDay(${t}, ${zone})`;
    case "week":
      return `toStartOfWeek(${t}, ${weekStart}, ${zone})`;
    case "month":
      return `toStartOfMonth(${t}, ${zone})`;
  }
}
