import type { z } from "@hono/zod-openapi";
import {
  type EventEntity,
  DEFAULT_FUNNEL_WINDOW_DAYS,
  type FunnelAttribution,
  type FunnelBreakdown,
  FUNNEL_WINDOW_UNITS,
  type FunnelSpec,
  type FunnelStepsRow,
  type FunnelTrendsRow,
} from "../../analytics/queries";
import { validationError } from "../../lib/errors";
import { iso } from "../../lib/time/iso";
import { parseFilterGroup, withTestAccounts } from "../../shared/filters";
import type { InsightContext } from "../context";
import { type InsightRange, queryRange } from "../date-range";
import { bucketDay, bucketLabel, resolvedDateRange } from "../labels";
import { DEFAULT_BREAKDOWN_LIMIT } from "../schema";
import type {
  FunnelsQuery,
  FunnelStepResultSchema,
  FunnelTimeToConvertSchema,
  FunnelTrendsSeriesSchema,
} from "./schema";

/**
 * PostHog's funnel runner (insights/funnels/: funnel_udf.py, funnel_time_to_convert_udf.py, base.py)
 * over the analytics store: the engine decides each person's best attempt (analytics/queries.ts
 * FunnelSpec, the same statement as the funnel's persons) and aggregates it; steps, names, bins and
 * PostHog's validation messages are made here.
 */

export type FunnelStepResult = z.infer<typeof FunnelStepResultSchema>;
export type FunnelTimeToConvert = z.infer<typeof FunnelTimeToConvertSchema>;
export type FunnelTrendsSeries = z.infer<typeof FunnelTrendsSeriesSchema>;

export interface FunnelsResponse {
  results: FunnelStepResult[] | FunnelStepResult[][] | FunnelTimeToConvert | FunnelTrendsSeries[];
  resolved_date_range: { date_from: string; date_to: string };
  timezone: string;
  isUdf: true;
}

/** Longer windows change nothing for real data, and keep every engine's time arithmetic in range. */
const MAX_WINDOW_SECONDS = 100 * 365 * 86_400;

/** What a run would refuse, refused now (PostHog's messages where it has them). */
export function planFunnels(query: FunnelsQuery): void {
  const filter = query.funnelsFilter ?? {};
  const n = query.series.length;
  if (query.properties) parseFilterGroup(query.properties, "properties", "event");
  query.series.forEach((s, i) => {
    if (s.properties) parseFilterGroup(s.properties, `series__${i}__properties`, "event");
  });
  if (filter.funnelVizType === "trends") trendsSteps(query);
  const attribution = filter.breakdownAttributionType;
  if (attribution === "step") {
    const step = filter.breakdownAttributionValue ?? 0;
    if (filter.funnelOrderType === "unordered" && step !== 0)
      throw validationError(
        "Only the first step can be used for breakdown attribution in unordered funnels",
        "funnelsFilter__breakdownAttributionValue",
      );
    if (step >= n)
      throw validationError(
        `breakdownAttributionValue must be a step, 0 to ${n - 1}.`,
        "funnelsFilter__breakdownAttributionValue",
      );
  }
  const breakdownType = query.breakdownFilter?.breakdowns?.[0]?.type ?? query.breakdownFilter?.breakdown_type;
  if ((attribution === "all_events" || attribution === "step") && breakdownType === "person")
    throw validationError(
      `breakdownAttributionType ${attribution} needs an event breakdown (a person has one value).`,
      "funnelsFilter__breakdownAttributionType",
    );
  (filter.exclusions ?? []).forEach((e, i) => {
    const attr = `funnelsFilter__exclusions__${i}`;
    if (e.properties) parseFilterGroup(e.properties, `${attr}__properties`, "event");
    if (e.funnelFromStep >= e.funnelToStep)
      throw validationError("Exclusion event range is invalid. End of range should be greater than start.", attr);
    if (e.funnelFromStep >= n - 1)
      throw validationError("Exclusion event range is invalid. Start of range is greater than number of steps.", attr);
    if (e.funnelToStep > n - 1)
      throw validationError("Exclusion event range is invalid. End of range is greater than number of steps.", attr);
    const inRange = query.series.slice(e.funnelFromStep, e.funnelToStep + 1);
    if (inRange.some((s) => sameEvent(s, e)))
      throw validationError("Exclusion steps cannot contain an event that's part of funnel steps.", attr);
    if (filter.funnelOrderType === "unordered" && (e.funnelFromStep !== 0 || e.funnelToStep !== n - 1))
      throw validationError("Partial Exclusions not allowed in unordered funnels", attr);
  });
  if (filter.funnelVizType === "time_to_convert") conversionSteps(query);
}

/**
 * An exclusion that is one of its range's steps (the same event and filters, or every event with no
 * filters: PostHog's is_equal / is_superset) could never be told apart from the step.
 */
function sameEvent(step: { event?: string | null; properties?: unknown }, exclusion: typeof step): boolean {
  const noFilters = (p: unknown) => p === null || p === undefined || (Array.isArray(p) && !p.length);
  const event = (e: string | null | undefined) => e ?? null;
  if (event(exclusion.event) === null && noFilters(exclusion.properties)) return true;
  return (
    event(step.event) === event(exclusion.event) &&
    JSON.stringify(step.properties ?? []) === JSON.stringify(exclusion.properties ?? [])
  );
}

/** time_to_convert's steps: from `funnelFromStep` (default the first) to `funnelToStep` (default the last). */
function conversionSteps(query: FunnelsQuery): { from: number; to: number } {
  const filter = query.funnelsFilter ?? {};
  const n = query.series.length;
  // PostHog's `or`: a 0 is the default too.
  const from = filter.funnelFromStep || 0;
  const to = filter.funnelToStep || n - 1;
  if (!(to > 0 && to < n))
    throw validationError(
      `Filter parameter funnel_to_step can only be one of ${Array.from({ length: n - 1 }, (_, i) => i + 1).join(", ")} for time to convert!`,
      "funnelsFilter__funnelToStep",
    );
  if (from < 0 || from >= to)
    throw validationError(
      `funnelFromStep is out of bounds. It must be between 0 and ${to - 1}.`,
      "funnelsFilter__funnelFromStep",
    );
  return { from, to };
}

const entityOf = (
  node: { event?: string | null; properties?: unknown; math?: string | null },
  order: number,
): EventEntity => ({
  event: node.event ?? null,
  order,
  properties: node.properties ?? undefined,
  ...(node.math === "first_time_for_user" ? { firstTime: "any" as const } : {}),
  ...(node.math === "first_time_for_user_with_filters" ? { firstTime: "matching" as const } : {}),
});

/**
 * The funnel's breakdown: one property or several, of the event or the person. Its values are lists
 * even for one property (PostHog's FunnelQueryContext makes a text breakdown a list of one).
 */
function breakdownOf(query: FunnelsQuery): FunnelBreakdown | undefined {
  const filter = query.breakdownFilter;
  if (!filter) return undefined;
  const type = query.funnelsFilter?.breakdownAttributionType ?? "first_touch";
  const attribution: FunnelAttribution =
    type === "step" ? { kind: "step", step: query.funnelsFilter?.breakdownAttributionValue ?? 0 } : { kind: type };
  if (filter.breakdowns?.length) {
    const [first] = filter.breakdowns;
    return { keys: [first.property], list: true, type: first.type ?? "event", attribution };
  }
  const raw = filter.breakdown;
  if (raw === null || raw === undefined || raw === "" || (Array.isArray(raw) && !raw.length)) return undefined;
  return { keys: [raw].flat(), list: true, type: filter.breakdown_type ?? "event", attribution };
}

/** The store's funnel for a query (and the range it reads), for counts and persons alike. */
export async function funnelSpec(
  ctx: InsightContext,
  query: FunnelsQuery,
): Promise<{ funnel: FunnelSpec; range: InsightRange }> {
  const filter = query.funnelsFilter ?? {};
  const range = await queryRange(ctx, query);
  const unit = filter.funnelWindowIntervalUnit ?? "day";
  const breakdown = breakdownOf(query);
  const exclusions = (filter.exclusions ?? []).map((e, i) => ({
    entity: entityOf({ event: e.event, properties: e.properties }, i),
    from: e.funnelFromStep,
    to: e.funnelToStep,
  }));
  const funnel: FunnelSpec = {
    projectId: ctx.projectId,
    steps: query.series.map(entityOf),
    from: iso(range.from),
    to: iso(range.to),
    windowSeconds: Math.min(
      MAX_WINDOW_SECONDS,
      (filter.funnelWindowInterval ?? DEFAULT_FUNNEL_WINDOW_DAYS) * FUNNEL_WINDOW_UNITS[unit],
    ),
    order: filter.funnelOrderType ?? "ordered",
    properties: withTestAccounts(query.properties, query.filterTestAccounts, ctx.testAccountFilters),
    ...(breakdown ? { breakdown } : {}),
    ...(exclusions.length ? { exclusions } : {}),
  };
  return { funnel, range };
}

export async function runFunnels(ctx: InsightContext, query: FunnelsQuery): Promise<FunnelsResponse> {
  planFunnels(query);
  const { funnel, range } = await funnelSpec(ctx, query);
  const common = {
    resolved_date_range: resolvedDateRange(range, ctx.timezone),
    timezone: ctx.timezone,
    isUdf: true as const,
  };
  if (query.funnelsFilter?.funnelVizType === "time_to_convert")
    return { results: await timeToConvert(ctx, query, funnel), ...common };
  if (query.funnelsFilter?.funnelVizType === "trends")
    return { results: await conversionTrends(ctx, query, funnel, range), ...common };
  const breakdownLimit = query.breakdownFilter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT;
  const rows = await ctx.store.funnelSteps({ funnel, breakdownLimit });
  const steps = rows.map((row) => stepsOf(query, row));
  return { results: funnel.breakdown ? steps : (steps[0] ?? []), ...common };
}

/** One breakdown value's steps: persons who reached each step or further, with conversion times. */
function stepsOf(query: FunnelsQuery, row: FunnelStepsRow): FunnelStepResult[] {
  const unordered = query.funnelsFilter?.funnelOrderType === "unordered";
  return query.series.map((node, k) => ({
    action_id: unordered ? null : (node.event ?? null),
    name: unordered ? `Completed ${k + 1} step${k ? "s" : ""}` : (node.event ?? null),
    custom_name: unordered ? null : (node.custom_name ?? null),
    order: k,
    people: [],
    count: row.furthest.slice(k).reduce((sum, c) => sum + c, 0),
    type: "events" as const,
    average_conversion_time: k ? row.averageSeconds[k] : null,
    median_conversion_time: k ? row.medianSeconds[k] : null,
    ...(row.breakdown !== null ? { breakdown: row.breakdown, breakdown_value: row.breakdown } : {}),
  }));
}

/** PostHog's time to convert: the persons' times from one step to another, binned (a requested count kept to 1–90). */
async function timeToConvert(
  ctx: InsightContext,
  query: FunnelsQuery,
  funnel: FunnelSpec,
): Promise<FunnelTimeToConvert> {
  const { from, to } = conversionSteps(query);
  const requested = query.funnelsFilter?.binCount;
  const binCount = requested === null || requested === undefined ? undefined : Math.min(90, Math.max(1, requested));
  const answer = await ctx.store.funnelConversionTimes({
    funnel,
    fromStep: from,
    toStep: to,
    ...(binCount !== undefined ? { binCount } : {}),
  });
  return {
    bins: answer.bins,
    average_conversion_time: answer.averageSeconds,
    median_conversion_time: answer.medianSeconds,
  };
}

/**
 * Funnel trends' steps: from `funnelFromStep` (default the first) to `funnelToStep` (default the
 * last); the funnel is cut after the latter (PostHog's max_steps override).
 */
export function trendsSteps(query: FunnelsQuery): { from: number; to: number } {
  const filter = query.funnelsFilter ?? {};
  const n = query.series.length;
  const from = filter.funnelFromStep || 0;
  const to = filter.funnelToStep ?? n - 1;
  if (to < 0 || to >= n)
    throw validationError(
      `funnelToStep is out of bounds. It must be between 0 and ${n - 1}.`,
      "funnelsFilter__funnelToStep",
    );
  if (from < 0 || from > to)
    throw validationError(
      `funnelFromStep is out of bounds. It must be between 0 and ${to}.`,
      "funnelsFilter__funnelFromStep",
    );
  return { from, to };
}

/** The funnel trends' question: the funnel cut at `funnelToStep`, entered by period of the first step. */
export function trendsQuestion(query: FunnelsQuery, funnel: FunnelSpec, range: InsightRange) {
  const { from, to } = trendsSteps(query);
  return {
    funnel: { ...funnel, steps: funnel.steps.slice(0, to + 1) },
    periodStarts: range.starts.map(iso),
    fromStep: from,
  };
}

/**
 * PostHog's funnel trends: per entrance period, the conversion rate (%, 2 decimals) of those who
 * entered; with a breakdown, a series per value (the `breakdown_limit` values with the most entries,
 * then the greatest value), in the order of the values.
 */
async function conversionTrends(
  ctx: InsightContext,
  query: FunnelsQuery,
  funnel: FunnelSpec,
  range: InsightRange,
): Promise<FunnelTrendsSeries[]> {
  const rows = await ctx.store.funnelTrends(trendsQuestion(query, funnel, range));
  const series = (periods: FunnelTrendsRow[]) => {
    const byPeriod = new Map(periods.map((r) => [r.period, r]));
    const rate = (i: number) => {
      const row = byPeriod.get(i);
      return row && row.entered > 0 ? Math.round((row.converted / row.entered) * 10_000) / 100 : 0;
    };
    return {
      count: range.starts.length,
      data: range.starts.map((_, i) => rate(i)),
      days: range.starts.map((start) => bucketDay(start, range.interval, ctx.timezone)),
      labels: range.starts.map((start) => bucketLabel(start, "day", ctx.timezone, range)),
    };
  };
  if (!funnel.breakdown) return [series(rows)];
  const byValue = new Map<string, { value: string | string[]; rows: FunnelTrendsRow[]; entered: number }>();
  for (const row of rows) {
    const value = row.breakdown ?? "";
    const key = JSON.stringify(value);
    const entry = byValue.get(key) ?? { value, rows: [], entered: 0 };
    entry.rows.push(row);
    entry.entered += row.entered;
    byValue.set(key, entry);
  }
  const limit = query.breakdownFilter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT;
  const kept = [...byValue.values()]
    .sort((a, b) => b.entered - a.entered || compareValues(b.value, a.value))
    .slice(0, limit)
    .sort((a, b) => compareValues(a.value, b.value));
  return kept.map((entry) => ({ ...series(entry.rows), breakdown_value: entry.value }));
}

/** Breakdown values in Python's order (texts, or lists element by element). */
function compareValues(a: string | string[], b: string | string[]): number {
  const x = [a].flat();
  const y = [b].flat();
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length - y.length;
}
