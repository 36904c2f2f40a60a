import type { ActorEvents, RowWindow, TrendsActorsQuery } from "../../analytics/queries";
import { validationError } from "../../lib/errors";
import { clockOf, parseInstant } from "../../lib/time/date-range";
import { startOfInterval } from "../../lib/time/zone";
import type { InsightContext } from "../context";
import { NULL_BREAKDOWN, OTHER_BREAKDOWN } from "./results";
import { planTrends, questionFor, shownValues, type TrendsPlan, trendsPeriods } from "./runner";
import type { TrendsQuery } from "./schema";

/** One point of a trends result, as an InsightActorsQuery names it. */
export interface TrendsPick {
  day?: string | number | null;
  series?: number | null;
  compare?: "current" | "previous" | null;
  breakdown?: string | number | (string | number)[] | null;
}

/** A point checked against its query (and the query's plan): its series, the instant in its bucket, its breakdown value. */
export interface TrendsPoint {
  plan: TrendsPlan;
  series: number;
  day?: number;
  previous: boolean;
  breakdown?: { other: true } | { value: (string | null)[] };
}

/**
 * Checks a point against the query (PostHog's trends actors query builder): a time series needs
 * the `day` of its bucket, a total value has none; a breakdown value has one part per property,
 * with PostHog's sentinels for no value and "other". A 400 names the point's own field.
 */
export function trendsPoint(ctx: InsightContext, query: TrendsQuery, pick: TrendsPick): TrendsPoint {
  const plan = planTrends(query);
  const series = pick.series ?? 0;
  if (series >= query.series.length) throw validationError(`The query has no series ${series}.`, "series");
  const hasDay = pick.day !== null && pick.day !== undefined && pick.day !== "";
  if (plan.totalValue && hasDay)
    throw validationError("A `day` is forbidden for trends actors queries with total value aggregation", "day");
  if (!plan.totalValue && !hasDay)
    throw validationError("A `day` is required for trends actors queries without total value aggregation", "day");
  const point: TrendsPoint = {
    plan,
    series,
    day: hasDay ? parseInstant(String(pick.day), clockOf(ctx), "day") : undefined,
    previous: pick.compare === "previous" && !!query.compareFilter?.compare,
  };
  // Without a breakdown in the query, a breakdown value narrows nothing (as PostHog).
  if (pick.breakdown === null || pick.breakdown === undefined || !plan.breakdown) return point;
  const parts = [pick.breakdown].flat().map(String);
  const keys = plan.breakdown.keys.length;
  if (parts.length !== keys)
    throw validationError(
      `breakdown must have ${keys === 1 ? "one value" : `${keys} values, one per breakdown property`}.`,
      "breakdown",
    );
  point.breakdown = parts.includes(OTHER_BREAKDOWN)
    ? { other: true }
    : { value: parts.map((part) => (part === NULL_BREAKDOWN ? null : part)) };
  return point;
}

/**
 * The persons behind one point of a trends result (PostHog's trends to_actors_query), each with
 * their events there: those with a matching event of the series in the point's bucket (for weekly
 * and monthly active users, the days ending with it; for first-time math, whose first event is
 * there; for a total value, the range), within its breakdown value; "other" is every value the
 * result does not show, found by the result's own ranking. The same series match as the counts.
 */
export async function trendsActors(
  ctx: InsightContext,
  query: TrendsQuery,
  point: TrendsPoint,
  rows: RowWindow,
  byEvents: boolean,
): Promise<ActorEvents[]> {
  const { plan } = point;
  const { periods, properties } = await trendsPeriods(ctx, query, plan);
  const period = (point.previous && periods[1]) || periods[0];
  const question = questionFor(ctx, query.series[point.series], point.series, period.range, plan, properties);
  let bucket: number | undefined;
  if (point.day !== undefined) {
    const start = startOfInterval(point.day, period.range.interval, ctx.timezone, ctx.weekStart);
    // The bucket at the same place in the previous period (as PostHog shifts the day), or the day's own.
    bucket = periods[0].range.starts.indexOf(start);
    if (bucket < 0) bucket = period.range.starts.indexOf(start);
    if (bucket < 0 || bucket > question.windows.length - (question.rolling ?? 1)) return [];
  }
  const actors: TrendsActorsQuery = { question, bucket, rows, byEvents };
  if (point.breakdown && "value" in point.breakdown) actors.breakdownValue = { is: point.breakdown.value };
  if (point.breakdown && "other" in point.breakdown)
    actors.breakdownValue = { notIn: shownValues(await ctx.store.trends(question)) };
  return ctx.store.trendsActors(actors);
}
