import { validationError } from "../errors";
import { parseRelative, RANGE_FORM, timeBefore } from "./relative";
import { addIntervals, fromLocal, localParts, startOfInterval, toWall, type WeekStart } from "./zone";

/**
 * PostHog's date parameters, read in the project's time zone (the one reading of them for insights
 * and the persons drill-downs alike):
 * - absolute `YYYY-MM-DD` (the whole day), `YYYY-MM-DD HH:MM[:SS]` or ISO 8601 (with or without offset);
 * - relative `-Nh`, `-Nd`, `-Nw`, `-Nm`, `-Nq`, `-Ny` (truncated to the start of the day, or of the hour for `h`);
 * - `dStart`, `wStart`, `mStart`, `qStart`, `yStart` (start of the current period), and `all` for `date_from`.
 * `date_to` is exclusive here: a date-only or relative day `date_to` covers that whole day.
 */
export interface DateRange {
  /** Inclusive lower bound (UTC ms). */
  from: number;
  /** Exclusive upper bound (UTC ms). */
  to: number;
}

const PERIOD_START = /^([dwmqy])Start$/;
// Months and days may be written without their leading zero (`2020-6-1`), as PostHog's parser allows.
const DATE_ONLY = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const LOCAL_DATETIME = /^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A date parameter read: its instant, and whether it named a whole day (a date, `-7d`, `mStart`) rather than a moment. */
export type ParsedDate = { instant: number; wholeDay: boolean; relativeHours?: boolean };

/** Where a date parameter is read: the project's zone and week start, and "now". */
export interface DateClock {
  zone: string;
  now: number;
  weekStart: WeekStart;
}

/** The clock of an analysis or insight context (its project's zone and week start, its "now"). */
export const clockOf = (ctx: { timezone: string; now: number; weekStart: WeekStart }): DateClock => ({
  zone: ctx.timezone,
  now: ctx.now,
  weekStart: ctx.weekStart,
});

function startOfDay(instant: number, zone: string) {
  return startOfInterval(instant, "day", zone);
}

/** One date parameter (`attr` names it in a 400). */
export function parseDate(raw: string, { zone, now, weekStart }: DateClock, attr: string): ParsedDate {
  const value = raw.trim();
  const relative = parseRelative(value, RANGE_FORM);
  if (relative) {
    // Hours count back on the clock, to the start of that hour; the rest on the calendar, to the start of that day.
    if (relative.unit === "h")
      return {
        instant: startOfInterval(timeBefore(now, relative, "overflow"), "hour", zone),
        wholeDay: false,
        relativeHours: true,
      };
    const day = new Date(timeBefore(toWall(now, zone), relative, "overflow"));
    return { instant: fromLocal(zone, day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()), wholeDay: true };
  }
  const start = PERIOD_START.exec(value);
  if (start) {
    const p = localParts(now, zone);
    const unit = start[1];
    if (unit === "d") return { instant: startOfDay(now, zone), wholeDay: true };
    if (unit === "w") return { instant: startOfInterval(now, "week", zone, weekStart), wholeDay: true };
    if (unit === "m") return { instant: fromLocal(zone, p.year, p.month, 1), wholeDay: true };
    if (unit === "q") return { instant: fromLocal(zone, p.year, p.month - ((p.month - 1) % 3), 1), wholeDay: true };
    return { instant: fromLocal(zone, p.year, 1, 1), wholeDay: true };
  }
  const dateOnly = DATE_ONLY.exec(value);
  if (dateOnly) {
    const [y, m, d] = dateOnly.slice(1).map(Number);
    if (!validDate(y, m, d)) throw validationError(`Invalid date "${raw}".`, attr);
    return { instant: fromLocal(zone, y, m, d), wholeDay: true };
  }
  const local = LOCAL_DATETIME.exec(value);
  if (local) {
    const [y, m, d, h, mi] = local.slice(1, 6).map(Number);
    const s = Number(local[6] ?? 0);
    const ms = Number((local[7] ?? "0").padEnd(3, "0").slice(0, 3));
    if (!validDate(y, m, d) || h > 23 || mi > 59 || s > 59) throw validationError(`Invalid date "${raw}".`, attr);
    return { instant: fromLocal(zone, y, m, d, h, mi, s, ms), wholeDay: false };
  }
  if (WITH_OFFSET.test(value)) {
    const instant = Date.parse(value.replace(" ", "T"));
    if (Number.isFinite(instant)) return { instant, wholeDay: false };
  }
  throw validationError(
    `Invalid date "${raw}": use YYYY-MM-DD, an ISO 8601 date-time, a relative date such as -7d, -1w, -1m, or dStart/mStart/yStart.`,
    attr,
  );
}

function validDate(y: number, m: number, d: number) {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

export interface DateInput {
  date_from?: string;
  date_to?: string;
}

/**
 * Resolves `date_from`/`date_to` into a UTC range. `earliest` is consulted for `date_from=all`
 * (the project's first event). Defaults: the last 7 days up to the end of today, as PostHog's insights.
 */
export async function resolveDateRange(
  input: DateInput,
  clock: DateClock,
  earliest: () => Promise<number | null>,
): Promise<DateRange> {
  const { zone, now } = clock;
  let from: number;
  if (input.date_from === "all") {
    from = startOfDay((await earliest()) ?? now, zone);
  } else {
    from = parseDate(input.date_from ?? "-7d", clock, "date_from").instant;
  }
  let to: number;
  if (input.date_to === undefined || input.date_to === "") {
    to = addIntervals(startOfDay(now, zone), 1, "day", zone);
  } else {
    const parsed = parseDate(input.date_to, clock, "date_to");
    to = parsed.wholeDay ? addIntervals(startOfDay(parsed.instant, zone), 1, "day", zone) : parsed.instant + 1;
  }
  if (to <= from) throw validationError("date_to must be after date_from.", "date_to");
  return { from, to };
}

/** A single point in time (lifecycle `target_date`): the instant itself or the start of a date. */
export function parseInstant(raw: string, clock: DateClock, attr: string): number {
  return parseDate(raw, clock, attr).instant;
}
