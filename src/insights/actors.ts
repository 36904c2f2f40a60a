import { z } from "@hono/zod-openapi";
import { LIFECYCLE_TYPES, type RowWindow } from "../analytics/queries";
import { ApiError, fromZodError, validationError } from "../lib/errors";
import { clockOf, parseInstant } from "../lib/time/date-range";
import type { InsightContext } from "./context";
import { funnelActorIds, funnelBucket } from "./funnels/actors";
import { lifecycleActorIds } from "./lifecycle/actors";
import { parseInsightQuery } from "./parse";
import { COSMETIC_FIELDS } from "./schema";
import { retentionActors } from "./retention/actors";
import { stickinessActorIds } from "./stickiness/actors";
import { trendsActors, trendsPoint } from "./trends/actors";

/**
 * PostHog's InsightActorsQuery (and StickinessActorsQuery, which adds `operator`, and
 * FunnelsActorsQuery, which names a funnel step): the persons of one point of an insight, found by
 * the same engine statement as the insight's counts.
 */
export const InsightActorsQuery = z
  .object({
    kind: z.enum(["InsightActorsQuery", "StickinessActorsQuery", "FunnelsActorsQuery"]),
    source: z.record(z.string(), z.unknown()).openapi({
      description: "The insight: TrendsQuery, FunnelsQuery, LifecycleQuery, StickinessQuery or RetentionQuery.",
    }),
    day: z.union([z.string(), z.number().int()]).nullish().openapi({
      description:
        "Trends and lifecycle: a date of the bucket (one of `days`; none for a total value); stickiness: the number of intervals.",
    }),
    status: z.enum(LIFECYCLE_TYPES, { message: `status must be one of: ${LIFECYCLE_TYPES.join(", ")}.` }).nullish(),
    series: z
      .number()
      .int()
      .min(0)
      .nullish()
      .openapi({ description: "Trends and stickiness: the series' index (default 0)." }),
    compare: z.enum(["current", "previous"]).nullish(),
    operator: z
      .enum(["gte", "lte", "exact"], { message: "operator must be gte, lte or exact." })
      .nullish()
      .openapi({ description: "Stickiness: how the number of active intervals compares with `day` (default exact)." }),
    breakdown: z
      .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])
      .nullish()
      .openapi({
        description:
          "Trends: the breakdown value (a list for several properties; PostHog's null and other sentinels); retention: the breakdown value (a list of one).",
      }),
    interval: z.number().int().min(0).nullish().openapi({ description: "Retention: the cohort's index." }),
    funnelStep: z.number().int().nullish().openapi({
      description: "Funnels: N > 0, who reached step N (1-based) or further; -N, who reached step N - 1 but not N.",
    }),
    funnelCustomSteps: z
      .array(z.number().int())
      .nullish()
      .openapi({ description: "Funnels: those whose furthest step (1-based) is one of these." }),
    funnelStepBreakdown: z
      .union([z.string(), z.number(), z.null(), z.array(z.union([z.string(), z.number(), z.null()]))])
      .optional()
      .openapi({ description: "Funnels: only the persons of this breakdown value." }),
    funnelTrendsDropOff: z
      .boolean()
      .nullish()
      .openapi({ description: "Funnel trends: required; true: those who entered and did not convert." }),
    funnelTrendsEntrancePeriodStart: z
      .string()
      .nullish()
      .openapi({ description: "Funnel trends: the entrance period's start (one of `days`)." }),
    includeRecordings: z.boolean().nullish(),
    ...COSMETIC_FIELDS,
  })
  .strict()
  .openapi("InsightActorsQuery");

/**
 * A person of an insight's point; for a trends point, with their events there (PostHog's
 * `event_count`); for a retention cohort, the intervals they are counted at (`appearances`).
 */
export interface InsightActor {
  personId: number;
  events?: number;
  appearances?: number[];
}

/**
 * How the persons are ordered: by person id, or by what a kind counts of them, most first (a
 * trends point's persons by their events, a retention cohort's by their appearances; another
 * kind's persons come in person order).
 */
export type ActorsOrder = "person" | "events" | "appearances";

/**
 * The persons (`rows` of them, in `order`) of an InsightActorsQuery given as PostHog's JSON; a 400
 * names fields under `attr`.
 */
export async function insightActors(
  ctx: InsightContext,
  raw: Record<string, unknown>,
  attr: string,
  rows: RowWindow,
  order: ActorsOrder = "person",
): Promise<InsightActor[]> {
  const parsed = InsightActorsQuery.safeParse(raw);
  if (!parsed.success) throw fromZodError(parsed.error).under(attr);
  const actors = parsed.data;
  const source = parseInsightQuery(actors.source, `${attr}__source`);
  // The point's own fields are checked here, under `attr`; what the insight's run refuses (its
  // dates, say) is a field of the source.
  const checked = <T>(pick: () => T): T => {
    try {
      return pick();
    } catch (error) {
      throw error instanceof ApiError ? error.under(attr) : error;
    }
  };
  const run = <T>(answer: Promise<T>) =>
    answer.catch((error: unknown) => {
      throw error instanceof ApiError ? error.under(`${attr}__source`) : error;
    });
  const persons = async (ids: Promise<number[]>) => (await run(ids)).map((personId) => ({ personId }));
  switch (source.kind) {
    case "TrendsQuery": {
      const point = checked(() => trendsPoint(ctx, source, actors));
      return run(trendsActors(ctx, source, point, rows, order === "events"));
    }
    case "LifecycleQuery": {
      const hasDay = actors.day !== null && actors.day !== undefined && actors.day !== "";
      const day = checked(() => (hasDay ? parseInstant(String(actors.day), clockOf(ctx), "day") : undefined));
      return persons(lifecycleActorIds(ctx, source, { day, status: actors.status ?? undefined }, rows));
    }
    case "StickinessQuery": {
      const day = actors.day === null || actors.day === undefined ? undefined : Number(actors.day);
      const series = actors.series ?? 0;
      checked(() => {
        if (day !== undefined && !(Number.isInteger(day) && day >= 1))
          throw validationError("day must be a number of intervals (1 or more).", "day");
        if (series >= source.series.length) throw validationError(`The query has no series ${series}.`, "series");
      });
      const pick = { day, series, compare: actors.compare ?? undefined, operator: actors.operator ?? undefined };
      return persons(stickinessActorIds(ctx, source, pick, rows));
    }
    case "RetentionQuery": {
      const value = actors.breakdown;
      const breakdown = value === null || value === undefined ? undefined : [value].flat().map(String).join("::");
      const pick = { cohort: actors.interval ?? undefined, breakdown };
      return run(retentionActors(ctx, source, pick, rows, order === "appearances"));
    }
    case "FunnelsQuery": {
      const bucket = checked(() =>
        funnelBucket(ctx, source, {
          funnelStep: actors.funnelStep,
          funnelCustomSteps: actors.funnelCustomSteps,
          funnelStepBreakdown: actors.funnelStepBreakdown,
          funnelTrendsDropOff: actors.funnelTrendsDropOff,
          funnelTrendsEntrancePeriodStart: actors.funnelTrendsEntrancePeriodStart,
        }),
      );
      return persons(funnelActorIds(ctx, source, bucket, rows));
    }
  }
}
