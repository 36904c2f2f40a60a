import { z } from "@hono/zod-openapi";
import { BreakdownFilter, drawingOnly, Filters, INSIGHT_QUERY_BASE } from "../schema";

/** PostHog's RetentionQuery (schema-general.ts), as edgehog accepts it. */

export const RETENTION_PERIODS = ["Hour", "Day", "Week", "Month"] as const;

const RetentionEntity = z
  .object({
    id: z.union([z.string(), z.number()]).nullish().openapi({ description: "The event name; null: every event." }),
    type: z.literal("events", { message: "Retention entities must be events (edgehog has no actions)." }).nullish(),
    kind: z.literal("EventsNode", { message: "Retention entities must be events (edgehog has no actions)." }).nullish(),
    name: z.string().nullish(),
    custom_name: z.string().nullish(),
    order: z.number().nullish(),
    uuid: z.string().nullish(),
    properties: Filters,
  })
  .strict()
  .openapi("RetentionEntity");

/** retentionFilter fields that only change how the table is drawn: accepted, not used. */
const DRAWING_ONLY = [
  "retentionReference",
  "meanRetentionCalculation",
  "display",
  "dashboardDisplay",
  "showTrendLines",
  "selectedInterval",
  "cohortLabelStartIndex",
  "goalLines",
  "showMean",
] as const;

const RetentionFilter = z
  .object({
    period: z
      .enum(RETENTION_PERIODS, { message: "period must be Hour, Day, Week or Month." })
      .nullish()
      .openapi({ description: "Default `Day`." }),
    totalIntervals: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .nullish()
      .openapi({ description: "Values per cohort (and cohorts without date_from); default 8." }),
    retentionType: z
      .enum(["retention_recurring", "retention_first_time", "retention_first_ever_occurrence"], {
        message: "retentionType must be retention_recurring, retention_first_time or retention_first_ever_occurrence.",
      })
      .nullish()
      .openapi({ description: "Default recurring." }),
    targetEntity: RetentionEntity.nullish(),
    returningEntity: RetentionEntity.nullish(),
    minimumOccurrences: z.number().int().min(1).nullish(),
    cumulative: z.boolean().nullish().openapi({ description: "Counted at k when returned at k or later." }),
    timeWindowMode: z
      .literal("strict_calendar_dates", { message: "Only strict_calendar_dates retention is supported." })
      .nullish(),
    retentionCustomBrackets: z.null({ message: "retentionCustomBrackets are not supported." }).optional(),
    aggregationType: z.literal("count", { message: "Only the count aggregation is supported." }).nullish(),
    aggregationProperty: z.null({ message: "aggregationProperty is not supported." }).optional(),
    ...drawingOnly(DRAWING_ONLY),
  })
  .strict()
  .openapi("RetentionFilter");

export const RetentionQuery = z
  .object({
    kind: z.literal("RetentionQuery"),
    retentionFilter: RetentionFilter,
    breakdownFilter: BreakdownFilter.nullish(),
    ...INSIGHT_QUERY_BASE,
  })
  .strict()
  .openapi("RetentionQuery");

export type RetentionQuery = z.infer<typeof RetentionQuery>;
export type RetentionEntity = z.infer<typeof RetentionEntity>;

/** One cohort row of a retention result. */
export const RetentionRowSchema = z
  .object({
    label: z.string().describe("`Day 0`, `Week 3`, ..."),
    date: z.string().describe("The cohort's start, ISO 8601 in the project's zone."),
    breakdown_value: z.string().nullable(),
    values: z.array(z.object({ count: z.number().int(), label: z.string() })),
  })
  .openapi("RetentionRow");
