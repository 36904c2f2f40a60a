import type { AnalyticsStore } from "../analytics";
import type { DateClock } from "../lib/time/date-range";
import type { WeekStart } from "../lib/time/zone";

/** What an insight is computed in: the project (zone, week start, test-account filters), "now", and where events are read. */
export interface InsightContext {
  projectId: number;
  timezone: string;
  weekStart: WeekStart;
  testAccountFilters: unknown[];
  now: number;
  store: AnalyticsStore;
}

export const insightClock = (ctx: InsightContext): DateClock => ({
  zone: ctx.timezone,
  now: ctx.now,
  weekStart: ctx.weekStart,
});

/** The filters every event of the insight passes: its `properties`, and the project's test-account filters when asked. */
export function insightFilters(
  ctx: InsightContext,
  properties: unknown,
  filterTestAccounts: boolean | null | undefined,
) {
  const own = properties === null || (Array.isArray(properties) && !properties.length) ? undefined : properties;
  if (!filterTestAccounts || !ctx.testAccountFilters.length) return own;
  return own === undefined ? ctx.testAccountFilters : [own, ctx.testAccountFilters];
}
