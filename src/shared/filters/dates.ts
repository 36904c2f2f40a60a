/**
 * Parses a date filter value: an absolute date or date-time, or PostHog's relative form
 * (`-7d`, `-24h`, `-2w`, `-1m`, `-1y`, optionally without the minus) counted back from now.
 */
export function relativeDate(value: unknown, now = new Date()): { ms: number; iso: string; dateOnly: boolean } | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const text = String(value).trim();
  const rel = /^-?(\d+)([hdwmy])$/.exec(text);
  if (rel) {
    const n = Number(rel[1]);
    const d = new Date(now);
    if (rel[2] === "h") d.setUTCHours(d.getUTCHours() - n);
    if (rel[2] === "d") d.setUTCDate(d.getUTCDate() - n);
    if (rel[2] === "w") d.setUTCDate(d.getUTCDate() - 7 * n);
    if (rel[2] === "m") d.setUTCMonth(d.getUTCMonth() - n);
    if (rel[2] === "y") d.setUTCFullYear(d.getUTCFullYear() - n);
    return { ms: d.getTime(), iso: d.toISOString(), dateOnly: rel[2] !== "h" };
  }
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const ms = Date.parse(dateOnly ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) return null;
  return { ms, iso: new Date(ms).toISOString(), dateOnly };
}
