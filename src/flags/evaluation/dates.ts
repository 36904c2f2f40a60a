import { exactInstant, toWall } from "../../lib/time/zone";
import { FILTER_FORM, parseRelative, timeBefore } from "../../lib/time/relative";

/**
 * Date handling for `is_date_before/after/exact`, server semantics (flag-eval.md §4.4):
 * a relative value `-?N[hdwmy]` means "now minus N units" on the project's wall clock (months
 * step one at a time, clamping the day at each step); otherwise an absolute date. Dates without
 * an offset are read in the project's time zone; one its clocks skip (a spring-forward gap) is no
 * date, so the operator does not match, as PostHog's matcher has it.
 */

const ABSOLUTE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/** A wall time of the project's clock as a Date; no zone means UTC. */
function instantOfWall(wall: number, zone: string | undefined): Date | undefined {
  const instant = exactInstant(wall, zone || "UTC");
  return instant === undefined ? undefined : new Date(instant);
}

/** The instant a relative date names, or undefined when `value` is not relative. */
export function parseRelativeDate(value: string, now: Date, zone?: string): Date | undefined {
  const relative = parseRelative(value, FILTER_FORM);
  // PostHog's guard against overflow: such a count is not a relative date.
  if (!relative || relative.count >= 10_000) return undefined;
  const wall = timeBefore(toWall(now.getTime(), zone || "UTC"), relative, "clamp");
  return instantOfWall(wall, zone);
}

function offsetMinutes(zone: string | undefined): number {
  if (!zone || /^(Z|UTC|GMT)$/i.test(zone)) return 0;
  const sign = zone[0] === "-" ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0"));
}

/** An absolute date (ISO 8601 / RFC 3339; without an offset it is read in `projectZone`), else undefined. */
export function parseAbsoluteDate(value: string, projectZone?: string): Date | undefined {
  const match = ABSOLUTE.exec(value.trim());
  if (match) {
    const [, y, mo, d, h, mi, s, frac, zone] = match;
    const ms = frac ? Number(`0.${frac}`) * 1000 : 0;
    const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms);
    const date = zone ? new Date(wall - offsetMinutes(zone) * 60_000) : instantOfWall(wall, projectZone);
    return date && !Number.isNaN(date.getTime()) ? date : undefined;
  }
  // Anything else Date understands (RFC 2822 and friends); there is no meaningful local zone here.
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : new Date(parsed);
}

/** A filter value: relative first, then absolute. */
export function parseFilterDate(value: unknown, now: Date, zone?: string): Date | undefined {
  if (typeof value !== "string") return undefined;
  return parseRelativeDate(value, now, zone) ?? parseAbsoluteDate(value, zone);
}

/** A person's value: numbers and numeric strings are epoch seconds; strings are dates. */
export function parsePersonDate(value: unknown, zone?: string): Date | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? new Date(value * 1000) : undefined;
  if (typeof value !== "string") return undefined;
  if (/^[+-]?\d+(\.\d+)?$/.test(value.trim())) return new Date(Number(value) * 1000);
  return parseAbsoluteDate(value, zone);
}
