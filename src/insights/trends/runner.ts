import type { TrendsAggregate, TrendsBreakdown, TrendsQuestion, TrendsRow } from "../../analytics/queries";
import { validationError } from "../../lib/errors";
import { parseFilterGroup } from "../../shared/filters";
import { type InsightContext, insightClock, insightFilters } from "../context";
import {
  activeWindows,
  bucketWindows,
  type InsightRange,
  previousRange,
  type RangeInput,
  resolveInsightRange,
} from "../date-range";
import { type Formula, parseFormula } from "../formula";
import { zonedIso } from "../labels";
import {
  inclusiveEnd,
  type Line,
  OTHER_BREAKDOWN,
  type SeriesValues,
  shaper,
  type TrendsSeriesResult,
} from "./results";
import { type DISPLAYS, type EventsNode, type TrendsQuery } from "./schema";

/**
 * PostHog's trends runner (posthog/hogql_queries/insights/trends/trends_query_runner.py) over the
 * analytics store: each series (and period) is one engine-neutral question; bucket labels, breakdown
 * order, "other", cumulative sums, formulas and the response are shaped here, the same on every engine.
 */

const DEFAULT_BREAKDOWN_LIMIT = 25;

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

export async function runTrends(ctx: InsightContext, query: TrendsQuery): Promise<TrendsResponse> {
  const display: Display = query.trendsFilter?.display ?? "ActionsLineGraph";
  const totalValue = TOTAL_VALUE.has(display);
  const interval = query.interval ?? "day";
  const clock = insightClock(ctx);
  const rangeInput: RangeInput = {
    ...query.dateRange,
    // A bold number is the exact range up to now (PostHog does not round it).
    explicitDate: query.dateRange?.explicitDate ?? (display === "BoldNumber" || undefined),
  };
  const earliest = () => ctx.store.earliestEvent(ctx.projectId);
  // Total values resolve their range by days, whatever the interval.
  const range = await resolveInsightRange(rangeInput, totalValue ? "day" : interval, clock, earliest);
  const compare = query.compareFilter?.compare === true && query.dateRange?.date_from !== "all";
  const periods: { range: InsightRange; label?: "current" | "previous" }[] = compare
    ? [
        { range, label: "current" },
        { range: previousRange(range, rangeInput, query.compareFilter?.compare_to, clock), label: "previous" },
      ]
    : [{ range }];

  const properties = insightFilters(ctx, query.properties, query.filterTestAccounts);
  if (properties !== undefined) parseFilterGroup(properties, "properties", "event");
  query.series.forEach((s, i) => {
    if (s.properties) parseFilterGroup(s.properties, `series__${i}__properties`, "event");
  });
  const { breakdown, list } = breakdownOf(query, display);
  const formulas = formulasOf(query);

  const answered = await Promise.all(
    periods.flatMap((period) =>
      query.series.map(async (node, order): Promise<SeriesValues> => {
        const question = questionFor(ctx, query, node, order, period.range, { totalValue, properties, breakdown });
        const rows = await ctx.store.trends(question);
        return { node, order, lines: linesOf(rows, question.windows.length, display, !!breakdown) };
      }),
    ),
  );

  const seriesCount = query.series.length;
  let hasMore = false;
  const results: TrendsSeriesResult[] = [];
  periods.forEach((period, p) => {
    const values = answered.slice(p * seriesCount, (p + 1) * seriesCount);
    hasMore ||= values.some((v) => [...v.lines.values()].some((l) => l.other));
    const shape = shaper(ctx, query, period.range, {
      totalValue,
      cumulative: display === "ActionsLineGraphCumulative",
      breakdown: breakdown && {
        ...breakdown,
        list,
        hideOther: !!query.breakdownFilter?.breakdown_hide_other_aggregation,
      },
      compareLabel: period.label,
    });
    results.push(
      ...(formulas.length
        ? formulas.flatMap(({ formula, label }, i) => shape.formula(values, formula, label, i))
        : values.flatMap((v) => shape.series(v))),
    );
  });
  return {
    results,
    hasMore,
    resolved_date_range: { date_from: zonedIso(range.from, ctx.timezone), date_to: inclusiveEnd(range, ctx.timezone) },
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
    return {
      breakdown: { keys: filter.breakdowns.map((b) => b.property), type: [...types][0], limit, normalizeUrl },
      list: true,
    };
  }
  if (filter.breakdown === null || filter.breakdown === undefined || filter.breakdown === "") return { list: false };
  const keys = Array.isArray(filter.breakdown) ? filter.breakdown : [filter.breakdown];
  if (!keys.length || keys.length > 3) throw validationError("A breakdown names one to three properties.", attr);
  return {
    breakdown: { keys, type: filter.breakdown_type ?? "event", limit, normalizeUrl },
    list: Array.isArray(filter.breakdown),
  };
}

/** `formulaNodes`, else `formulas`, else `formula` (PostHog's precedence). */
function formulasOf(query: TrendsQuery): { formula: Formula; label: string }[] {
  const filter = query.trendsFilter;
  const nodes = filter?.formulaNodes?.length
    ? filter.formulaNodes
    : filter?.formulas?.length
      ? filter.formulas.map((formula) => ({ formula, custom_name: null }))
      : filter?.formula
        ? [{ formula: filter.formula, custom_name: null }]
        : [];
  return nodes.map((n, i) => ({
    formula: parseFormula(n.formula, query.series.length, `trendsFilter__formulaNodes__${i}`),
    label: n.custom_name || `Formula (${n.formula})`,
  }));
}

/** The store's question for one series in one period. */
function questionFor(
  ctx: InsightContext,
  query: TrendsQuery,
  node: EventsNode,
  order: number,
  range: InsightRange,
  opts: { totalValue: boolean; properties: unknown; breakdown?: TrendsBreakdown },
): TrendsQuestion {
  const zone = ctx.timezone;
  const interval = query.interval ?? "day";
  const math = effectiveMath(node, interval);
  const active = math === "weekly_active" ? 7 : math === "monthly_active" ? 30 : undefined;
  const cumulative = query.trendsFilter?.display === "ActionsLineGraphCumulative";
  const aggregate = aggregateOf(node, math, order, cumulative);
  let windows: [string, string][];
  if (opts.totalValue) {
    // One value over the range; active users: the actors of the days ending at its end.
    const from = active ? range.to - active * 86_400_000 : range.from;
    windows = [[new Date(from).toISOString(), new Date(range.to).toISOString()]];
  } else windows = active ? activeWindows(range, active, zone) : bucketWindows(range, zone);
  return {
    projectId: ctx.projectId,
    series: { event: node.event ?? null, order, properties: node.properties ?? undefined },
    properties: opts.properties,
    aggregate,
    windows,
    bucketing:
      opts.totalValue || active
        ? undefined
        : { interval: range.interval, timezone: zone, weekStart: ctx.weekStart, starts: range.starts },
    breakdown: opts.breakdown,
  };
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
function linesOf(rows: TrendsRow[], buckets: number, display: Display, brokenDown: boolean): Map<string, Line> {
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
  if (!brokenDown && !lines.size) lines.set("null", { other: false, values: new Array<number>(buckets).fill(0) });
  if (display === "ActionsLineGraphCumulative") {
    for (const line of lines.values())
      for (let i = 1; i < line.values.length; i++) line.values[i] += line.values[i - 1];
  }
  return lines;
}
