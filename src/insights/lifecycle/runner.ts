import type { z } from "@hono/zod-openapi";
import { lifecyclePeriods } from "../../analytics/periods";
import { LIFECYCLE_TYPES, type LifecycleQuestion } from "../../analytics/queries";
import { parseFilterGroup, withTestAccounts } from "../../shared/filters";
import type { InsightContext } from "../context";
import { type InsightRange, queryRange } from "../date-range";
import { bucketDay, bucketLabel, resolvedDateRange } from "../labels";
import type { LifecycleQuery, LifecycleSeriesSchema } from "./schema";

/**
 * PostHog's lifecycle runner (insights/lifecycle/lifecycle_query_runner.py) over the analytics
 * store: the engine counts persons per period and status (analytics/queries.ts LifecycleQuestion,
 * the same statement as the lifecycle persons drill-down); the four series are shaped here.
 */

export type LifecycleSeries = z.infer<typeof LifecycleSeriesSchema>;

export interface LifecycleResponse {
  results: LifecycleSeries[];
  resolved_date_range: { date_from: string; date_to: string };
  timezone: string;
}

/** What a run would refuse, refused now (an endpoint saving the query learns it at once). */
export function planLifecycle(query: LifecycleQuery): void {
  if (query.properties) parseFilterGroup(query.properties, "properties", "event");
  if (query.series[0].properties) parseFilterGroup(query.series[0].properties, "series__0__properties", "event");
}

/** The store's question for a lifecycle over `range` (its buckets), for counts and drill-downs alike. */
export function lifecycleQuestion(ctx: InsightContext, query: LifecycleQuery, range: InsightRange): LifecycleQuestion {
  const node = query.series[0];
  const { starts, interval } = range;
  return {
    projectId: ctx.projectId,
    series: { event: node.event ?? null, order: 0, properties: node.properties ?? undefined },
    properties: withTestAccounts(query.properties, query.filterTestAccounts, ctx.testAccountFilters),
    ...lifecyclePeriods(starts[0], starts[starts.length - 1], interval, ctx.timezone, ctx.weekStart),
  };
}

export async function runLifecycle(ctx: InsightContext, query: LifecycleQuery): Promise<LifecycleResponse> {
  planLifecycle(query);
  const range = await queryRange(ctx, query);
  const interval = range.interval;
  const counts = await ctx.store.lifecycle(lifecycleQuestion(ctx, query, range));
  const zone = ctx.timezone;
  const labels = range.starts.map((s) => bucketLabel(s, interval, zone, range));
  const days = range.starts.map((s) => bucketDay(s, interval, zone));
  const event = query.series[0].event ?? null;
  const name = event ?? "All events";
  const customName = query.series[0].custom_name;
  const action = {
    id: event,
    name,
    type: "events",
    order: 0,
    math: "total",
    ...(customName !== undefined && customName !== null ? { custom_name: customName } : {}),
  };
  const results = LIFECYCLE_TYPES.map((status): LifecycleSeries => {
    const data = range.starts.map(() => 0);
    const sign = status === "dormant" ? -1 : 1;
    // Period p of the question is bucket p − 1 (period 0 is the one before the range).
    for (const row of counts) if (row.status === status) data[row.period - 1] = sign * row.persons;
    const count = data.reduce((a, b) => a + b, 0);
    return { action, data, count, labels, days, label: `${name} - ${status}`, status };
  });
  return { results, resolved_date_range: resolvedDateRange(range, zone), timezone: zone };
}
