import { z } from "@hono/zod-openapi";
import { FUNNEL_WINDOW_UNITS, MAX_FUNNEL_STEPS } from "../../analytics/queries";
import { BreakdownFilter, drawingOnly, EventsNode, Filters, INSIGHT_QUERY_BASE, IntervalSchema } from "../schema";

/** PostHog's FunnelsQuery (schema-general.ts), as edgehog accepts it. */

const FUNNEL_MATHS = ["total", "first_time_for_user", "first_time_for_user_with_filters"] as const;

/** A funnel step: an EventsNode, with the funnel's own fields. */
const FunnelStep = EventsNode.extend({
  math: z
    .enum(FUNNEL_MATHS, { message: `math must be one of: ${FUNNEL_MATHS.join(", ")}` })
    .nullish()
    .openapi({
      description: "Default `total`; `first_time_for_user`: only the person's first event of the name counts.",
    }),
  optionalInFunnel: z.literal(false, { message: "Optional funnel steps are not supported." }).nullish(),
}).openapi("FunnelStep");

/** An exclusion: a person who did this event between two steps of their attempt is out of the funnel. */
const FunnelExclusion = z
  .object({
    kind: z.literal("EventsNode", { message: "Exclusions must be EventsNode (edgehog has no actions)." }),
    event: z.string().nullish().openapi({ description: "The event name; null or absent: every event." }),
    name: z.string().nullish(),
    custom_name: z.string().nullish(),
    properties: Filters,
    funnelFromStep: z
      .number()
      .int()
      .min(0)
      .openapi({ description: "The step (0-based) after which the event excludes." }),
    funnelToStep: z.number().int().min(0).openapi({ description: "The step (0-based) before which it excludes." }),
    math: z.unknown().optional(),
    version: z.number().nullish(),
    response: z.unknown().optional(),
  })
  .strict()
  .openapi("FunnelExclusion");

/** funnelsFilter fields that only change how the funnel is drawn: accepted, not used. */
const DRAWING_ONLY = [
  "funnelStepReference",
  "layout",
  "hiddenLegendBreakdowns",
  "resultCustomizations",
  "showValuesOnSeries",
  "useUdf",
  "breakdownSorting",
  "goalLines",
] as const;

const FunnelsFilter = z
  .object({
    funnelOrderType: z
      .enum(["ordered", "strict", "unordered"], { message: "funnelOrderType must be ordered, strict or unordered." })
      .nullish()
      .openapi({ description: "Default `ordered`." }),
    funnelVizType: z
      .enum(["steps", "time_to_convert", "trends"], {
        message: "funnelVizType must be steps, time_to_convert or trends.",
      })
      .nullish()
      .openapi({ description: "Default `steps`." }),
    funnelWindowInterval: z
      .number()
      .int()
      .min(1)
      .nullish()
      .openapi({ description: "Default 14; a window past 100 years is 100 years." }),
    funnelWindowIntervalUnit: z
      .enum(Object.keys(FUNNEL_WINDOW_UNITS) as [keyof typeof FUNNEL_WINDOW_UNITS], {
        message: "funnelWindowIntervalUnit must be second, minute, hour, day, week or month.",
      })
      .nullish()
      .openapi({ description: "Default `day`; a month is 31 days." }),
    exclusions: z.array(FunnelExclusion).max(MAX_FUNNEL_STEPS).nullish(),
    breakdownAttributionType: z
      .enum(["first_touch", "last_touch", "all_events", "step"], {
        message: "breakdownAttributionType must be first_touch, last_touch, all_events or step.",
      })
      .nullish()
      .openapi({ description: "Default `first_touch`." }),
    breakdownAttributionValue: z
      .number()
      .int()
      .min(0)
      .nullish()
      .openapi({ description: "The step (0-based) of `step` attribution." }),
    funnelFromStep: z
      .number()
      .int()
      .nullish()
      .openapi({ description: "time_to_convert: from this step (0-based; default the first)." }),
    funnelToStep: z
      .number()
      .int()
      .nullish()
      .openapi({ description: "time_to_convert: to this step (0-based; default the last)." }),
    binCount: z
      .number()
      .int()
      .nullish()
      .openapi({ description: "time_to_convert: bins (1 to 90; default from the number of persons)." }),
    funnelAggregateByHogQL: z
      .union([z.null(), z.literal("person_id")], {
        message: "funnelAggregateByHogQL is not supported (funnels count persons).",
      })
      .optional(),
    ...drawingOnly(DRAWING_ONLY),
  })
  .strict()
  .openapi("FunnelsFilter");

export const FunnelsQuery = z
  .object({
    kind: z.literal("FunnelsQuery"),
    series: z.array(FunnelStep).min(1, "Funnels require at least one step.").max(MAX_FUNNEL_STEPS),
    interval: IntervalSchema.nullish(),
    funnelsFilter: FunnelsFilter.nullish(),
    breakdownFilter: BreakdownFilter.nullish(),
    ...INSIGHT_QUERY_BASE,
  })
  .strict()
  .openapi("FunnelsQuery");

export type FunnelsQuery = z.infer<typeof FunnelsQuery>;
export type FunnelsFilter = z.infer<typeof FunnelsFilter>;

/** One step of a funnel's steps result. */
export const FunnelStepResultSchema = z
  .object({
    action_id: z.string().nullable().describe("The step's event (null for all events, and in unordered funnels)."),
    name: z.string().nullable().describe("The event, or `Completed N steps` in unordered funnels."),
    custom_name: z.string().nullable(),
    order: z.number().int(),
    people: z.array(z.unknown()).describe("Always empty: a step's persons come from a FunnelsActorsQuery."),
    count: z.number().int().describe("Persons who reached this step (or further)."),
    type: z.literal("events"),
    average_conversion_time: z.number().nullable().describe("Mean seconds from the previous step; null at step 0."),
    median_conversion_time: z.number().nullable(),
    breakdown: z.union([z.string(), z.array(z.string())]).optional(),
    breakdown_value: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .openapi("FunnelStepResult");

/** A time-to-convert result: persons per bin of seconds between two steps. */
export const FunnelTimeToConvertSchema = z
  .object({
    average_conversion_time: z.number().nullable(),
    median_conversion_time: z.number().nullable(),
    bins: z.array(z.tuple([z.number(), z.number()])).describe("`[bin start in seconds, persons]`."),
  })
  .openapi("FunnelTimeToConvertResults");

/** One series of funnel trends: the conversion rate per entrance period. */
export const FunnelTrendsSeriesSchema = z
  .object({
    count: z.number().int().describe("The number of periods."),
    data: z.array(z.number()).describe("Per period, % of those who entered (did funnelFromStep) who converted."),
    days: z.array(z.string()).describe("Each period's start, `2020-01-01` (with the time for hours)."),
    labels: z.array(z.string()).describe("`1-Jan-2020`."),
    breakdown_value: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .openapi("FunnelTrendsSeries");
