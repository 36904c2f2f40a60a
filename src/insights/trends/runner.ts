import type { TrendsAggregate, TrendsBreakdown, TrendsQuestion, TrendsRow } from "../../analytics/queries";
import { validationError } from "../../lib/errors";
import { parseFilterGroup, withTestAccounts } from "../../shared/filters";
import { clockOf } from "../../lib/time/date-range";
import { iso } from "../../lib/time/iso";
import { addIntervals, type Interval } from "../../lib/time/zone";
import { type InsightContext } from "../context";
import {
  bucketWindows,
  extendedBack,
  type InsightRange,
  previousRange,
  type RangeInput,
  resolveInsightRange,
} from "../date-range";
import { type Formula, parseFormula } from "../formula";
import { resolvedDateRange } from "../labels";
import { type Line, OTHER_BREAKDOWN, type SeriesValues, shaper, type TrendsSeriesResult } from "./results";
import { DEFAULT_BREAKDOWN_LIMIT, type EventsNode } from "../schema";
import { type DISPLAYS, type TrendsQuery } from "./schema";

/**
 * PostHog's trends runner (posthog/hogql_queries/insights/trends/trends_query_runner.py) over the
 * analytics store: each series (and period) is one engine-neutral question; bucket labels, breakdown
 * order, "other", cumulative sums, formulas and the response are shaped here, the same on every engine.
 */

type Display = (typeof DISPLAYS)[number];
/** Displays that answer one value per series over the whole range (trends/display.py). */
const TOTAL_VALUE: ReadonlySet<Display> = new Set([
  "BoldNumber",
  "ActionsPie",
  "ActionsBarValue",
  "ActionsTable",
  "WorldMap",
  "CalendarHeatmap",
]);

const QUANTILES: Record<string, number> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 };

export interface TrendsResponse {
  results: TrendsSeriesResult[];
  hasMore: boolean;
  resolved_date_range: { date_from: string; date_to: string };
  timezone: string;
}

/**
 * What a query asks, checked: its display, interval, filters, breakdown and formulas. Everything a
 * run could refuse is refused here, so an endpoint saving the query learns it at once.
 */
export interface TrendsPlan {
  display: Display;
  totalValue: boolean;
  cumulative: boolean;
  interval: Interval;
  breakdown?: TrendsBreakdown;
  /** Breakdown values are reported as lists (the `breakdowns` form, or a list `breakdown`). */
  list: boolean;
  formulas: { formula: Formula; label: string }[];
  /** Per series: what the engines aggregate, and for weekly (monthly) active users the days counted. */
  series: { aggregate: TrendsAggregate; activeDays?: number }[];
}

export function planTrends(query: TrendsQuery): TrendsPlan {
  const display: Display = query.trendsFilter?.display ?? "ActionsLineGraph";
  const interval = query.interval ?? "day";
  const cumulative = display === "ActionsLineGraphCumulative";
  if (query.properties) parseFilterGroup(query.properties, "properties", "event");
  query.series.forEach((s, i) => {
    if (s.properties) parseFilterGroup(s.properties, `series__${i}__properties`, "event");
  });
  return {
    display,
    totalValue: TOTAL_VALUE.has(display),
    cumulative,
    interval,
    ...breakdownOf(query, display),
    formulas: formulasOf(query),
    series: query.series.map((node, order) => {
      const math = effectiveMath(node, interval);
      const activeDays = math === "weekly_active" ? 7 : math === "monthly_active" ? 30 : undefined;
      return { aggregate: aggregateOf(node, math, order, cumulative), activeDays };
    }),
  };
}

/** The periods a query reads (its range, and the previous one when it compares), and the filters of every series. */
export interface TrendsPeriods {
  range: InsightRange;
  periods: { range: InsightRange; label?: "current" | "previous" }[];
  properties: unknown;
}

export async function trendsPeriods(ctx: InsightContext, query: TrendsQuery, plan: TrendsPlan): Promise<TrendsPeriods> {
  const clock = clockOf(ctx);
  const rangeInput: RangeInput = {
    ...query.dateRange,
    // A bold number is the exact range up to now (PostHog does not round it).
    explicitDate: query.dateRange?.explicitDate ?? (plan.display === "BoldNumber" || undefined),
  };
  const earliest = () => ctx.store.earliestEvent(ctx.projectId);
  // Total values resolve their range by days, whatever the interval.
  const range = await resolveInsightRange(rangeInput, plan.totalValue ? "day" : plan.interval, clock, earliest);
  const periods: TrendsPeriods["periods"] = query.compareFilter?.compare
    ? [
        { range, label: "current" },
        { range: previousRange(range, rangeInput, query.compareFilter.compare_to, clock), label: "previous" },
      ]
    : [{ range }];
  const properties = withTestAccounts(query.properties, query.filterTestAccounts, ctx.testAccountFilters);
  return { range, periods, properties };
}

export async function runTrends(ctx: InsightContext, query: TrendsQuery): Promise<TrendsResponse> {
  const plan = planTrends(query);
  const { range, periods, properties } = await trendsPeriods(ctx, query, plan);

  const answered = await Promise.all(
    periods.map((period) =>
      Promise.all(
        query.series.map(async (node, order): Promise<SeriesValues> => {
          const question = questionFor(ctx, node, order, period.range, plan, properties);
          const rows = await seriesRows(ctx, question);
          const buckets = question.windows.length - (question.rolling ?? 1) + 1;
          return { node, order, lines: linesOf(rows, buckets, plan) };
        }),
      ),
    ),
  );

  const hasMore = answered.some((values) => values.some((v) => [...v.lines.values()].some((l) => l.other)));
  const shapes = periods.map((period) =>
    shaper(ctx, query, period.range, {
      totalValue: plan.totalValue,
      cumulative: plan.cumulative,
      breakdown: plan.breakdown && {
        ...plan.breakdown,
        list: plan.list,
        hideOther: !!query.breakdownFilter?.breakdown_hide_other_aggregation,
      },
      compareLabel: period.label,
    }),
  );
  // Series: every current object, then every previous one; formulas: each one's current, then its previous.
  const results: TrendsSeriesResult[] = plan.formulas.length
    ? plan.formulas.flatMap(({ formula, label }, i) =>
        shapes.flatMap((shape, p) => shape.formula(answered[p], formula, label, i)),
      )
    : shapes.flatMap((shape, p) => answered[p].flatMap((v) => shape.series(v)));
  return {
    results,
    hasMore,
    resolved_date_range: resolvedDateRange(range, ctx.timezone),
    timezone: ctx.timezone,
  };
}

/**
 * The breakdown the engines compute, and whether its values are reported as lists (PostHog does for
 * the `breakdowns` form and a list `breakdown`, even of one property).
 */
function breakdownOf(query: TrendsQuery, display: Display): { breakdown?: TrendsBreakdown; list: boolean } {
  const filter = query.breakdownFilter;
  if (!filter) return { list: false };
  const attr = "breakdownFilter";
  const limit = display === "WorldMap" ? 250 : (filter.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT);
  const normalizeUrl = filter.breakdown_normalize_url === true;
  if (filter.breakdowns?.length) {
    if (filter.breakdown) throw validationError("Use either breakdown or breakdowns, not both.", attr);
    const types = new Set(filter.breakdowns.map((b) => b.type ?? "event"));
    if (types.size > 1)
      throw validationError("Breakdowns must all be event properties or all person properties.", attr);
    const keys = filter.breakdowns.map((b) => b.property);
    return { breakdown: { keys, type: [...types][0], limit, normalizeUrl }, list: true };
  }
  if (filter.breakdown === null || filter.breakdown === undefined || filter.breakdown === "") return { list: false };
  const keys = Array.isArray(filter.breakdown) ? filter.breakdown : [filter.breakdown];
  if (!keys.length || keys.length > 3) throw validationError("A breakdown names one to three properties.", attr);
  const breakdown = { keys, type: filter.breakdown_type ?? "event", limit, normalizeUrl };
  return { breakdown, list: Array.isArray(filter.breakdown) };
}

/** `formulaNodes`, else `formulas`, else `formula` (PostHog's precedence); a bad one is a 400 on the field it came from. */
function formulasOf(query: TrendsQuery): { formula: Formula; label: string }[] {
  const filter = query.trendsFilter;
  const nodes: { formula: string; custom_name?: string | null; attr: string }[] = filter?.formulaNodes?.length
    ? filter.formulaNodes.map((n, i) => ({ ...n, attr: `trendsFilter__formulaNodes__${i}__formula` }))
    : filter?.formulas?.length
      ? filter.formulas.map((formula, i) => ({ formula, attr: `trendsFilter__formulas__${i}` }))
      : filter?.formula
        ? [{ formula: filter.formula, attr: "trendsFilter__formula" }]
        : [];
  return nodes.map((n) => ({
    formula: parseFormula(n.formula, query.series.length, n.attr),
    label: n.custom_name || `Formula (${n.formula})`,
  }));
}

/** The store's question for one series in one period. */
export function questionFor(
  ctx: InsightContext,
  node: EventsNode,
  order: number,
  range: InsightRange,
  plan: TrendsPlan,
  properties: unknown,
): TrendsQuestion {
  const zone = ctx.timezone;
  const { aggregate, activeDays } = plan.series[order];
  const question = {
    projectId: ctx.projectId,
    series: { event: node.event ?? null, order, properties: node.properties ?? undefined },
    properties,
    aggregate,
    breakdown: plan.breakdown,
  };
  if (plan.totalValue) {
    // One value over the range; active users: the actors of the local days ending at its end.
    const from = activeDays ? addIntervals(range.to, -activeDays, "day", zone) : range.from;
    return { ...question, windows: [[iso(from), iso(range.to)]] };
  }
  // Active users: each bucket over the days (hours) ending with it, earlier ones before the range too.
  const rolling = activeDays && (range.interval === "hour" ? activeDays * 24 : activeDays);
  const read = rolling ? extendedBack(range, rolling - 1, zone) : range;
  return {
    ...question,
    windows: bucketWindows(read, zone),
    bucketing: { interval: read.interval, timezone: zone, weekStart: ctx.weekStart, starts: read.starts },
    ...(rolling ? { rolling } : {}),
  };
}

/**
 * A series' rows. With a breakdown, values past the limit are "other": the engines sum their
 * values, which is the other's value where the aggregate adds up across values (events, sums,
 * first-time users); otherwise (distinct users or sessions, averages, extremes, quantiles) the
 * other values' events are aggregated again together, as PostHog aggregates its "other" group.
 */
async function seriesRows(ctx: InsightContext, question: TrendsQuestion): Promise<TrendsRow[]> {
  const rows = await ctx.store.trends(question);
  const { aggregate, breakdown } = question;
  const addsUp =
    aggregate.kind === "events" ||
    aggregate.kind === "firstTime" ||
    (aggregate.kind === "property" && aggregate.fn === "sum");
  if (!breakdown || addsUp || !rows.some((row) => row.other)) return rows;
  const shown = shownValues(rows);
  const folded = await ctx.store.trends({ ...question, breakdown: { ...breakdown, shown } });
  return [...rows.filter((row) => !row.other), ...folded.filter((row) => row.other)];
}

/** The breakdown values an answer shows (not folded into "other"), each once. */
export function shownValues(rows: TrendsRow[]): (string | null)[][] {
  const shown = new Map<string, (string | null)[]>();
  for (const row of rows) if (!row.other && row.breakdown) shown.set(JSON.stringify(row.breakdown), row.breakdown);
  return [...shown.values()];
}

/** Weekly (monthly) active users over week (month) buckets or longer are distinct users per bucket, as PostHog converts them. */
function effectiveMath(node: EventsNode, interval: string) {
  const math = node.math ?? "total";
  if (math === "weekly_active" && (interval === "week" || interval === "month")) return "dau";
  if (math === "monthly_active" && interval === "month") return "dau";
  return math;
}

function aggregateOf(node: EventsNode, math: string, order: number, cumulative: boolean): TrendsAggregate {
  switch (math) {
    case "total":
      return { kind: "events" };
    case "dau":
      return { kind: "actors", firstBucketOnly: cumulative };
    case "weekly_active":
    case "monthly_active":
      return { kind: "actors" };
    case "unique_session":
      return { kind: "sessions" };
    case "first_time_for_user":
      return { kind: "firstTime" };
    case "first_matching_event_for_user":
      return { kind: "firstTime", matchingFilters: true };
  }
  if (!node.math_property)
    throw validationError(
      `math ${math} needs math_property (the numeric event property).`,
      `series__${order}__math_property`,
    );
  if (math in QUANTILES)
    return { kind: "property", property: node.math_property, fn: "quantile", level: QUANTILES[math] };
  return { kind: "property", property: node.math_property, fn: math as "sum" | "avg" | "min" | "max" };
}

/** The rows of one series as lines of bucket values (zero-filled), cumulative when the display says so. */
function linesOf(rows: TrendsRow[], buckets: number, plan: TrendsPlan): Map<string, Line> {
  const lines = new Map<string, Line>();
  for (const row of rows) {
    const key = row.other ? OTHER_BREAKDOWN : JSON.stringify(row.breakdown ?? null);
    let line = lines.get(key);
    if (!line) {
      line = { breakdown: row.breakdown, other: !!row.other, values: new Array<number>(buckets).fill(0) };
      lines.set(key, line);
    }
    if (row.bucket >= 0 && row.bucket < buckets) line.values[row.bucket] += row.value;
  }
  // Without a breakdown a series always answers, zeros included; with one, only its values do.
  if (!plan.breakdown && !lines.size) lines.set("null", { other: false, values: new Array<number>(buckets).fill(0) });
  if (plan.cumulative) {
    for (const line of lines.values())
      for (let i = 1; i < line.values.length; i++) line.values[i] += line.values[i - 1];
  }
  return lines;
}
