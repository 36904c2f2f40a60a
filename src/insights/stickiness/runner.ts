import type { z } from "@hono/zod-openapi";
import { stickinessWindows } from "../../analytics/periods";
import type { StickinessQuestion } from "../../analytics/queries";
import { clockOf } from "../../lib/time/date-range";
import { parseFilterGroup, withTestAccounts } from "../../shared/filters";
import type { InsightContext } from "../context";
import { type InsightRange, previousRange, queryRange } from "../date-range";
import { resolvedDateRange } from "../labels";
import type { EventsNode } from "../schema";
import type { StickinessQuery, StickinessSeriesSchema } from "./schema";

/**
 * PostHog's stickiness runner (insights/stickiness_query_runner.py) over the analytics store: the
 * engine counts persons by their number of active intervals (analytics/queries.ts StickinessQuestion,
 * the same statement as the stickiness persons drill-down); slots, cumulative sums, labels and the
 * compare objects are shaped here.
 */

export type StickinessSeries = z.infer<typeof StickinessSeriesSchema>;

export interface StickinessResponse {
  results: StickinessSeries[];
  resolved_date_range: { date_from: string; date_to: string };
  timezone: string;
}

/** What a run would refuse, refused now. */
export function planStickiness(query: StickinessQuery): void {
  if (query.properties) parseFilterGroup(query.properties, "properties", "event");
  query.series.forEach((s, i) => {
    if (s.properties) parseFilterGroup(s.properties, `series__${i}__properties`, "event");
  });
}

/** The store's question for one series over one range, for counts and drill-downs alike. */
export function stickinessQuestion(
  ctx: InsightContext,
  query: StickinessQuery,
  node: EventsNode,
  order: number,
  range: InsightRange,
): StickinessQuestion {
  const criteria = query.stickinessFilter?.stickinessCriteria;
  return {
    projectId: ctx.projectId,
    entity: { event: node.event ?? null, order, properties: node.properties ?? undefined },
    properties: withTestAccounts(query.properties, query.filterTestAccounts, ctx.testAccountFilters),
    ...stickinessWindows(range, range.interval, ctx.timezone, ctx.weekStart, query.intervalCount ?? undefined),
    ...(criteria ? { criteria } : {}),
  };
}

export async function runStickiness(ctx: InsightContext, query: StickinessQuery): Promise<StickinessResponse> {
  planStickiness(query);
  const range = await queryRange(ctx, query);
  const compare = !!query.compareFilter?.compare;
  const periods: { range: InsightRange; label?: "current" | "previous" }[] = compare
    ? [
        { range, label: "current" },
        {
          range: previousRange(range, query.dateRange ?? {}, query.compareFilter?.compare_to, clockOf(ctx)),
          label: "previous",
        },
      ]
    : [{ range }];
  const cumulative = query.stickinessFilter?.computedAs === "cumulative";
  const interval = range.interval;
  // Per series: the current object, then the previous one (PostHog interleaves them).
  const results = await Promise.all(
    query.series.flatMap((node, order) =>
      periods.map(async (period): Promise<StickinessSeries> => {
        const question = stickinessQuestion(ctx, query, node, order, period.range);
        const slots = question.windows.length;
        const exact = new Array<number>(slots).fill(0);
        for (const row of await ctx.store.stickiness(question)) {
          if (row.periods >= 1 && row.periods <= slots) exact[row.periods - 1] += row.persons;
        }
        const count = exact.reduce((a, b) => a + b, 0);
        const data = cumulative ? exact.map((_, i) => exact.slice(i).reduce((a, b) => a + b, 0)) : exact;
        const days = exact.map((_, i) => i + 1);
        const suffix = cumulative ? " or more" : "";
        const name = node.event ?? "All events";
        return {
          count,
          data,
          days,
          label: name,
          labels: days.map((n) => `${n} ${interval}${n === 1 ? "" : "s"}${suffix}`),
          action: { order, type: "events", name, id: node.event ?? null },
          ...(period.label ? { compare: true, compare_label: period.label } : {}),
        };
      }),
    ),
  );
  return { results, resolved_date_range: resolvedDateRange(range, ctx.timezone), timezone: ctx.timezone };
}
