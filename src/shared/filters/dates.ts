import { FILTER_FORM, parseRelative, timeBefore } from "../../lib/time/relative";

/**
 * Parses a date filter value: an absolute date or date-time, or PostHog's relative form
 * (`-7d`, `-24h`, `-2w`, `-1m`, `-1y`, optionally without the minus) counted back from now in UTC,
 * a month back running over as Date does (Mar 31 − 1m = Mar 2).
 */
export function relativeDate(value: unknown, now = new Date()): { ms: number; iso: string; dateOnly: boolean } | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const text = String(value).trim();
  const relative = parseRelative(text, FILTER_FORM);
  if (relative) {
    const ms = timeBefore(now.getTime(), relative, "overflow");
    return { ms, iso: new Date(ms).toISOString(), dateOnly: relative.unit !== "h" };
  }
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const ms = Date.parse(dateOnly ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) return null;
  return { ms, iso: new Date(ms).toISOString(), dateOnly };
}
