import { z } from "@hono/zod-openapi";
import { CompareFilter, drawingOnly, EventsNode, INSIGHT_QUERY_BASE, IntervalSchema } from "../schema";

/** PostHog's StickinessQuery (schema-general.ts), as edgehog accepts it. */

const StickinessCriteria = z
  .object({
    operator: z.enum(["gte", "lte", "exact"], { message: "operator must be gte, lte or exact." }),
    value: z.number().int().min(0),
  })
  .strict()
  .openapi("StickinessCriteria", {
    description: "An interval counts for a person when their matching events in it number `operator` `value`.",
  });

/** stickinessFilter fields that only change how the chart is drawn: accepted, not used. */
const DRAWING_ONLY = [
  "display",
  "showLegend",
  "showValuesOnSeries",
  "showMultipleYAxes",
  "hiddenLegendIndexes",
  "resultCustomizationBy",
  "resultCustomizations",
] as const;

const StickinessFilter = z
  .object({
    computedAs: z
      .enum(["non_cumulative", "cumulative"], { message: "computedAs must be non_cumulative or cumulative." })
      .nullish()
      .openapi({ description: "`cumulative`: persons active in N or more intervals." }),
    stickinessCriteria: StickinessCriteria.nullish(),
    ...drawingOnly(DRAWING_ONLY),
  })
  .strict()
  .openapi("StickinessFilter");

export const StickinessQuery = z
  .object({
    kind: z.literal("StickinessQuery"),
    series: z.array(EventsNode).min(1, "Stickiness insights require at least one series."),
    interval: IntervalSchema.nullish(),
    intervalCount: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .nullish()
      .openapi({ description: "Units of this many intervals, counted back from date_to." }),
    stickinessFilter: StickinessFilter.nullish(),
    compareFilter: CompareFilter.nullish(),
    ...INSIGHT_QUERY_BASE,
  })
  .strict()
  .openapi("StickinessQuery");

export type StickinessQuery = z.infer<typeof StickinessQuery>;

/** One series of a stickiness result: persons by number of active intervals. */
export const StickinessSeriesSchema = z
  .object({
    action: z.record(z.string(), z.unknown()),
    data: z.array(z.number()).describe("Persons active in exactly (cumulative: at least) i + 1 intervals."),
    count: z.number().describe("Persons active at all (the sum of the non-cumulative data)."),
    days: z.array(z.number().int()).describe("1 to the number of intervals."),
    labels: z.array(z.string()).describe("`1 day`, `2 days`, ... (`or more` when cumulative)."),
    label: z.string(),
    compare: z.boolean().optional(),
    compare_label: z.enum(["current", "previous"]).optional(),
  })
  .openapi("StickinessSeries");
