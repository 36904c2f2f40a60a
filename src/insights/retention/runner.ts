import type { z } from "@hono/zod-openapi";
import { wholePeriods } from "../../analytics/periods";
import type { EventEntity, RetentionCount, RetentionQuestion } from "../../analytics/queries";
import { validationError } from "../../lib/errors";
import { clockOf, parseDate } from "../../lib/time/date-range";
import { addIntervals, type Interval, startOfInterval } from "../../lib/time/zone";
import { parseFilterGroup, withTestAccounts } from "../../shared/filters";
import type { InsightContext } from "../context";
import { zonedIso } from "../labels";
import { DEFAULT_BREAKDOWN_LIMIT } from "../schema";
import { type RETENTION_PERIODS, type RetentionEntity, type RetentionQuery, type RetentionRowSchema } from "./schema";

/**
 * PostHog's retention runner (insights/retention/retention_query_runner.py, calendar mode) over the
 * analytics store: the engine counts persons per cohort, breakdown value and interval (analytics/
 * queries.ts RetentionQuestion, the same statement as the cohort's persons); the matrix, rolling
 * sums, breakdown ranking and labels are made here.
 */

export type RetentionRow = z.infer<typeof RetentionRowSchema>;

export interface RetentionResponse {
  results: RetentionRow[];
  resolved_date_range: { date_from: string; date_to: string };
  timezone: string;
}

type Period = (typeof RETENTION_PERIODS)[number];
const INTERVALS: Record<Period, Interval> = { Hour: "hour", Day: "day", Week: "week", Month: "month" };
const DEFAULT_TOTAL_INTERVALS = 8;
const OTHER_BREAKDOWN = "$$_posthog_breakdown_other_$$";
const PAGEVIEW: RetentionEntity = { id: "$pageview", type: "events" };

interface RetentionPlan {
  period: Period;
  interval: Interval;
  lookahead: number;
  target: EventEntity;
  returning: EventEntity;
  breakdown?: { key: string; type: "event" | "person"; limit: number };
}

const entityOf = (entity: RetentionEntity, order: number): EventEntity => ({
  event: entity.id === null || entity.id === undefined ? null : String(entity.id),
  order,
  properties: entity.properties ?? undefined,
});

/** What a run would refuse, refused now; the plan of the run. */
export function planRetention(query: RetentionQuery): RetentionPlan {
  const filter = query.retentionFilter;
  if (query.properties) parseFilterGroup(query.properties, "properties", "event");
  const target = filter.targetEntity ?? PAGEVIEW;
  const returning = filter.returningEntity ?? PAGEVIEW;
  if (target.properties) parseFilterGroup(target.properties, "retentionFilter__targetEntity__properties", "event");
  if (returning.properties)
    parseFilterGroup(returning.properties, "retentionFilter__returningEntity__properties", "event");
  const period = filter.period ?? "Day";
  return {
    period,
    interval: INTERVALS[period],
    lookahead: filter.totalIntervals ?? DEFAULT_TOTAL_INTERVALS,
    target: entityOf(target, 0),
    returning: entityOf(returning, 1),
    breakdown: breakdownOf(query),
  };
}

/** The one breakdown property (PostHog uses the first of `breakdowns`). */
function breakdownOf(query: RetentionQuery): RetentionPlan["breakdown"] {
  const filter = query.breakdownFilter;
  if (!filter) return undefined;
  const limit = filter.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT;
  if (filter.breakdowns?.length) {
    const [first] = filter.breakdowns;
    return { key: first.property, type: first.type ?? "event", limit };
  }
  const key = Array.isArray(filter.breakdown) ? filter.breakdown[0] : filter.breakdown;
  if (key === null || key === undefined || key === "") return undefined;
  return { key, type: filter.breakdown_type ?? "event", limit };
}

/**
 * The cohorts' starts (QueryDateRangeWithIntervals): the last is the period of `date_to` (default
 * now); the first the period of `date_from`, or without it the period `totalIntervals` − 1 before the last.
 */
async function cohortStarts(ctx: InsightContext, query: RetentionQuery, plan: RetentionPlan) {
  const clock = clockOf(ctx);
  const { interval } = plan;
  const start = (instant: number) => startOfInterval(instant, interval, ctx.timezone, ctx.weekStart);
  const range = query.dateRange ?? {};
  const last = start(range.date_to ? parseDate(range.date_to, clock, "dateRange__date_to").instant : ctx.now);
  let first: number;
  if (range.date_from === "all") first = start((await ctx.store.earliestEvent(ctx.projectId)) ?? ctx.now);
  else if (range.date_from) first = start(parseDate(range.date_from, clock, "dateRange__date_from").instant);
  else first = addIntervals(last, -(plan.lookahead - 1), interval, ctx.timezone);
  if (first > last) throw validationError("date_to must be after date_from.", "dateRange");
  return { first, last };
}

/** The store's question for a retention query, for the table and the cohorts' persons alike. */
export async function retentionQuestion(
  ctx: InsightContext,
  query: RetentionQuery,
  plan: RetentionPlan,
): Promise<RetentionQuestion> {
  const { first, last } = await cohortStarts(ctx, query, plan);
  const filter = query.retentionFilter;
  return {
    projectId: ctx.projectId,
    target: plan.target,
    returning: plan.returning,
    properties: withTestAccounts(query.properties, query.filterTestAccounts, ctx.testAccountFilters),
    ...wholePeriods(first, last, plan.interval, ctx.timezone, ctx.weekStart),
    lookahead: plan.lookahead,
    ...(filter.retentionType === "retention_first_time" ? { first: "matching" as const } : {}),
    ...(filter.retentionType === "retention_first_ever_occurrence" ? { first: "ever" as const } : {}),
    ...(filter.minimumOccurrences && filter.minimumOccurrences > 1
      ? { minimumOccurrences: filter.minimumOccurrences }
      : {}),
    ...(plan.breakdown ? { breakdown: { key: plan.breakdown.key, type: plan.breakdown.type } } : {}),
  };
}

export async function runRetention(ctx: InsightContext, query: RetentionQuery): Promise<RetentionResponse> {
  const plan = planRetention(query);
  const question = await retentionQuestion(ctx, query, plan);
  const cumulative = !!query.retentionFilter.cumulative;
  const counts = await ctx.store.retention(question, cumulative);
  const cohorts = question.periods.length;
  // Per breakdown value (one, null, without a breakdown): its matrix of cohorts × intervals.
  const matrices = new Map<string | null, number[][]>();
  const matrixOf = (value: string | null) => {
    let matrix = matrices.get(value);
    if (!matrix) {
      matrix = Array.from({ length: cohorts }, () => new Array<number>(plan.lookahead).fill(0));
      matrices.set(value, matrix);
    }
    return matrix;
  };
  for (const row of counts) addCount(matrixOf(plan.breakdown ? (row.breakdown ?? "") : null), row, cumulative);
  if (!plan.breakdown) matrixOf(null);
  const shown = plan.breakdown ? ranked(matrices, plan.breakdown.limit) : [...matrices];
  const label = (n: number) => `${plan.period} ${n}`;
  const results = shown.flatMap(([value, matrix]) =>
    matrix.map((values, i) => ({
      label: label(i),
      date: zonedIso(question.bucketing.starts[i], ctx.timezone),
      breakdown_value: value,
      values: values.map((count, k) => ({ count, label: label(k) })),
    })),
  );
  const end = addIntervals(question.bucketing.starts[cohorts - 1], 1, plan.interval, ctx.timezone);
  return {
    results,
    resolved_date_range: {
      date_from: zonedIso(question.bucketing.starts[0], ctx.timezone),
      date_to: zonedIso(end - 1, ctx.timezone),
    },
    timezone: ctx.timezone,
  };
}

/** One engine row into its matrix: at k, or (rolling) at every interval up to the person's last return. */
function addCount(matrix: number[][], row: RetentionCount, cumulative: boolean) {
  const cells = matrix[row.cohort];
  if (!cells) return;
  if (!cumulative) {
    if (row.k < cells.length) cells[row.k] += row.persons;
    return;
  }
  for (let k = 0; k <= Math.min(row.k, cells.length - 1); k++) cells[k] += row.persons;
}

/** Breakdown values by their cohorts' total size (then by value), the first `limit` kept, the rest summed as other. */
function ranked(matrices: Map<string | null, number[][]>, limit: number): [string | null, number[][]][] {
  const total = (m: number[][]) => m.reduce((n, row) => n + row[0], 0);
  const sorted = [...matrices].sort(
    ([a, ma], [b, mb]) => total(mb) - total(ma) || (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0),
  );
  const kept = sorted.slice(0, limit);
  const rest = sorted.slice(limit);
  if (!rest.length) return kept;
  const other = rest[0][1].map((row, i) => row.map((_, k) => rest.reduce((n, [, m]) => n + m[i][k], 0)));
  return [...kept, [OTHER_BREAKDOWN, other]];
}
