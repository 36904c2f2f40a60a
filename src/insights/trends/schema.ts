import { z } from "@hono/zod-openapi";
import { BreakdownFilter, CompareFilter, drawingOnly, EventsNode, INSIGHT_QUERY_BASE, IntervalSchema } from "../schema";

/**
 * PostHog's TrendsQuery (frontend/src/queries/schema/schema-general.ts), as edgehog accepts it. Every
 * field that changes the numbers is either supported or refused with a 400 naming it; fields that only
 * change how PostHog's app draws the chart are accepted and kept out of the answer.
 */

export const DISPLAYS = [
  "ActionsLineGraph",
  "ActionsBar",
  "ActionsUnstackedBar",
  "ActionsStackedBar",
  "ActionsAreaGraph",
  "ActionsLineGraphCumulative",
  "BoldNumber",
  "ActionsPie",
  "ActionsBarValue",
  "ActionsTable",
  "WorldMap",
  "CalendarHeatmap",
] as const;

/** trendsFilter fields that only change how the chart is drawn: accepted, not used. */
const DRAWING_ONLY = [
  "showLegend",
  "showValuesOnSeries",
  "showLabelsOnSeries",
  "showPercentStackView",
  "aggregationAxisFormat",
  "aggregationAxisPrefix",
  "aggregationAxisPostfix",
  "decimalPlaces",
  "minDecimalPlaces",
  "yAxisScaleType",
  "showMultipleYAxes",
  "hiddenLegendIndexes",
  "resultCustomizationBy",
  "resultCustomizations",
  "goalLines",
  "showAlertThresholdLines",
  "showConfidenceIntervals",
  "confidenceLevel",
  "showTrendLines",
  "showMovingAverage",
  "movingAverageIntervals",
  "detailedResultsAggregationType",
] as const;

const FormulaNode = z.object({ formula: z.string(), custom_name: z.string().nullish() }).strict();

const TrendsFilter = z
  .object({
    display: z.enum(DISPLAYS).nullish().openapi({ description: "Default `ActionsLineGraph`." }),
    formula: z.string().nullish(),
    formulas: z.array(z.string()).nullish(),
    formulaNodes: z.array(FormulaNode).nullish(),
    smoothingIntervals: z.literal(1, { message: "smoothingIntervals other than 1 are not supported." }).nullish(),
    ...drawingOnly(DRAWING_ONLY),
  })
  .strict()
  .openapi("TrendsFilter");

export const TrendsQuery = z
  .object({
    kind: z.literal("TrendsQuery"),
    series: z.array(EventsNode).min(1, "Trends insights require at least one series."),
    interval: IntervalSchema.nullish(),
    breakdownFilter: BreakdownFilter.nullish(),
    trendsFilter: TrendsFilter.nullish(),
    compareFilter: CompareFilter.nullish(),
    conversionGoal: z.null({ message: "conversionGoal is not supported." }).optional(),
    ...INSIGHT_QUERY_BASE,
  })
  .strict()
  .openapi("TrendsQuery");

export type TrendsQuery = z.infer<typeof TrendsQuery>;

/** One object of a trends result (the series, or one breakdown value of it, or a formula). */
export const TrendsSeriesSchema = z
  .object({
    data: z
      .array(z.number())
      .nullable()
      .describe("One value per bucket ([] for total-value displays; null for their formulas)."),
    labels: z
      .array(z.string())
      .optional()
      .describe("Bucket labels: `1-Jan-2020`, `4-Jan 13:00`, `29–31 Oct`, `Jan 2020`."),
    days: z.array(z.string()).describe("Bucket dates: `2020-01-01` (a week's start), with the time for hours."),
    count: z.number().describe("The sum of `data` (cumulative: its last value; total values: 0)."),
    aggregated_value: z.number().optional().describe("Total-value displays: the one value over the range."),
    label: z.string(),
    order: z.number().int(),
    breakdown_value: z.union([z.string(), z.array(z.string())]).optional(),
    compare: z.boolean().optional(),
    compare_label: z.enum(["current", "previous"]).optional(),
    filter: z.record(z.string(), z.unknown()),
    action: z.record(z.string(), z.unknown()).nullable(),
  })
  .openapi("TrendsSeries");
