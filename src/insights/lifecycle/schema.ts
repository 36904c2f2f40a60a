import { z } from "@hono/zod-openapi";
import { LIFECYCLE_TYPES } from "../../analytics/queries";
import { EventsNode, INSIGHT_QUERY_BASE, IntervalSchema } from "../schema";

/** PostHog's LifecycleQuery (schema-general.ts), as edgehog accepts it. */

const LifecycleFilter = z
  .object({
    toggledLifecycles: z.array(z.enum(LIFECYCLE_TYPES)).nullish().openapi({ description: "Display only." }),
    showValuesOnSeries: z.boolean().nullish(),
    showLegend: z.boolean().nullish(),
    stacked: z.boolean().nullish(),
  })
  .strict()
  .openapi("LifecycleFilter");

export const LifecycleQuery = z
  .object({
    kind: z.literal("LifecycleQuery"),
    series: z
      .array(EventsNode)
      .min(1, "Lifecycle insights require at least one series.")
      .max(1, "A lifecycle query takes one series."),
    interval: IntervalSchema.nullish(),
    lifecycleFilter: LifecycleFilter.nullish(),
    ...INSIGHT_QUERY_BASE,
  })
  .strict()
  .openapi("LifecycleQuery");

export type LifecycleQuery = z.infer<typeof LifecycleQuery>;

/** One status of a lifecycle result: its persons per bucket (dormant ones negative). */
export const LifecycleSeriesSchema = z
  .object({
    action: z.record(z.string(), z.unknown()),
    data: z.array(z.number()).describe("Persons per bucket; dormant ones negative."),
    count: z.number().describe("The sum of `data`."),
    labels: z.array(z.string()),
    days: z.array(z.string()),
    label: z.string().describe("`<event> - <status>`."),
    status: z.enum(LIFECYCLE_TYPES),
  })
  .openapi("LifecycleSeries");
