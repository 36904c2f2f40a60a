import type { Interval, WeekStart } from "../../lib/time/zone";
import type { Bucketing } from "../queries";
import type { ClickHouseParams } from "./params";

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

/**
 * The 0-based index into `bucketing.starts` of `k`, a period start from `periodStart` (-1 when the
 * period is not one of them): a search of the starts, cheap for a question's few periods.
 */
export function periodIndex(bucketing: Bucketing, k: string, params: ClickHouseParams): string {
  const zone = params.text(bucketing.timezone);
  return `toInt64(indexOf(${params.bind(bucketing.starts, "Array(Int64)")}, toUnixTimestamp(toDateTime(${k}, ${zone})) * 1000)) - 1`;
}
