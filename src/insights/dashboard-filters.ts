import { z } from "@hono/zod-openapi";
import { fromZodError } from "../lib/errors";
import { isObject } from "../lib/json";

/**
 * PostHog's DashboardFilter, as `filters_override` carries it to an insight (query_runner.py
 * apply_dashboard_filters): dates replace the query's range, properties are ANDed with its own, a
 * breakdown filter replaces the query's (for kinds with a breakdown). Applied to the query's JSON before it is validated, so the
 * result is checked as any query is.
 */
export const DashboardFilter = z
  .object({
    date_from: z.string().nullish(),
    date_to: z.string().nullish(),
    explicitDate: z.boolean().nullish(),
    properties: z.array(z.unknown()).nullish(),
    breakdown_filter: z.record(z.string(), z.unknown()).nullish(),
  })
  .strict()
  .openapi("DashboardFilter");

const BREAKDOWN_KINDS = new Set(["TrendsQuery", "FunnelsQuery", "RetentionQuery"]);

export function applyDashboardFilters(query: Record<string, unknown>, raw: unknown): Record<string, unknown> {
  const parsed = DashboardFilter.safeParse(raw);
  if (!parsed.success) throw fromZodError(parsed.error).under("filters_override");
  const filter = parsed.data;
  const out = { ...query };
  const range = isObject(query.dateRange) ? query.dateRange : {};
  if (filter.date_from || filter.date_to) {
    out.dateRange = {
      date_from: filter.date_from ?? range.date_from,
      date_to: filter.date_to ?? range.date_to,
      explicitDate: filter.explicitDate ?? range.explicitDate,
    };
    // PostHog switches compare off for an override to all time.
    if (filter.date_from === "all") out.compareFilter = null;
  }
  if (filter.properties?.length) {
    const own = query.properties;
    const ownList = own === null || own === undefined || (Array.isArray(own) && !own.length) ? [] : [own];
    out.properties = { type: "AND", values: [...ownList, { type: "AND", values: filter.properties }] };
  }
  // Kinds without a breakdown (lifecycle, stickiness) keep none (PostHog ignores it for them).
  if (filter.breakdown_filter && BREAKDOWN_KINDS.has(String(query.kind))) out.breakdownFilter = filter.breakdown_filter;
  return out;
}
