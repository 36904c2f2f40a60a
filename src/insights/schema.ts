import { z } from "@hono/zod-openapi";

/**
 * The parts every insight query kind shares (PostHog's schema-general.ts): series nodes, filters,
 * date ranges, intervals, compare, and the fields that only tune PostHog's own HogQL or drawing.
 */

export const Filters = z
  .union([z.array(z.unknown()), z.object({ type: z.string(), values: z.array(z.unknown()) }).passthrough()])
  .nullish()
  .openapi({ description: "Property filters: a list (ANDed) or a `{type: AND|OR, values}` group." });

export const BASE_MATHS = [
  "total",
  "dau",
  "weekly_active",
  "monthly_active",
  "unique_session",
  "first_time_for_user",
  "first_matching_event_for_user",
] as const;
export const PROPERTY_MATHS = ["sum", "avg", "min", "max", "median", "p75", "p90", "p95", "p99"] as const;
const MATHS = [...BASE_MATHS, ...PROPERTY_MATHS] as const;

export const EventsNode = z
  .object({
    kind: z.literal("EventsNode", { message: "Series must be EventsNode (edgehog has no actions or data warehouse)." }),
    event: z.string().nullish().openapi({ description: "The event name; null or absent: every event." }),
    name: z.string().nullish(),
    custom_name: z.string().nullish().openapi({ description: "Display only (the series' `label` stays the event)." }),
    math: z
      .enum(MATHS, { message: `math must be one of: ${MATHS.join(", ")}` })
      .nullish()
      .openapi({ description: "Default `total` (events)." }),
    math_property: z
      .string()
      .nullish()
      .openapi({ description: "The numeric event property of sum/avg/min/max/median/pNN." }),
    math_property_type: z.string().nullish(),
    properties: Filters,
    // Event lists' fields; an insight series does not use them (as PostHog).
    limit: z.number().nullish(),
    orderBy: z.array(z.string()).nullish(),
    response: z.unknown().optional(),
    version: z.number().nullish(),
  })
  .strict()
  .openapi("EventsNode");

export const DateRange = z
  .object({
    date_from: z
      .string()
      .nullish()
      .openapi({ description: "`-7d` (the default), `-24h`, `mStart`, `all`, or a date." }),
    date_to: z.string().nullish().openapi({ description: "Default now (to the end of the day or hour)." }),
    explicitDate: z
      .boolean()
      .nullish()
      .openapi({ description: "Use the dates exactly, without rounding to the interval." }),
  })
  .strict()
  .openapi("DateRange");

export const CompareFilter = z
  .object({
    compare: z.boolean().nullish(),
    compare_to: z
      .string()
      .nullish()
      .openapi({ description: "A relative offset (`-1w`, `-1m`); default the previous period." }),
  })
  .strict()
  .openapi("CompareFilter");

const BreakdownType = z.enum(["event", "person"], {
  message: "breakdown_type must be event or person (cohort, group, session and HogQL breakdowns are not supported).",
});

/** PostHog's breakdown_limit when none is given (get_breakdown_limit_for_context, the default context). */
export const DEFAULT_BREAKDOWN_LIMIT = 25;

export const BreakdownFilter = z
  .object({
    breakdown: z
      .union([z.string(), z.array(z.string())], {
        message: "breakdown must be a property name (cohort breakdowns are not supported).",
      })
      .nullish(),
    breakdown_type: BreakdownType.nullish(),
    breakdown_limit: z.number().int().min(1).max(10_000).nullish().openapi({ description: "Default 25." }),
    breakdown_hide_other_aggregation: z.boolean().nullish(),
    breakdowns: z
      .array(z.object({ property: z.string(), type: BreakdownType.nullish() }).strict())
      .max(3)
      .nullish(),
    breakdown_group_type_index: z.null().optional(),
    breakdown_histogram_bin_count: z.null({ message: "Histogram breakdowns are not supported." }).optional(),
    breakdown_normalize_url: z.boolean().nullish(),
  })
  .strict()
  .openapi("BreakdownFilter");

export const IntervalSchema = z.enum(["hour", "day", "week", "month"], {
  message: "interval must be hour, day, week or month.",
});

/** Fields of a filter that only change how PostHog's app draws the result: accepted, not used. */
export const drawingOnly = (keys: readonly string[]) =>
  Object.fromEntries(keys.map((key) => [key, z.unknown().optional()]));

/** Fields of every insight query that change no number: accepted, not used. */
export const COSMETIC_FIELDS = {
  modifiers: z.record(z.string(), z.unknown()).nullish(),
  dataColorTheme: z.number().nullish(),
  tags: z.unknown().optional(),
  version: z.number().nullish(),
  response: z.unknown().optional(),
};

/** Fields PostHog has that edgehog refuses: a 400 naming them rather than a silently different number. */
export const REFUSED_FIELDS = {
  samplingFactor: z.union([z.null(), z.literal(1)], { message: "Sampling is not supported." }).optional(),
  aggregation_group_type_index: z.null({ message: "Group aggregation is not supported." }).optional(),
};

export type EventsNode = z.infer<typeof EventsNode>;

/** The fields every insight query kind has (PostHog's InsightsQueryBase), spread into each kind's schema. */
export const INSIGHT_QUERY_BASE = {
  dateRange: DateRange.nullish(),
  properties: Filters,
  filterTestAccounts: z.boolean().nullish(),
  ...REFUSED_FIELDS,
  ...COSMETIC_FIELDS,
};
