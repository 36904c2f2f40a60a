import type { TrendsBreakdown } from "../../analytics/queries";
import type { InsightContext } from "../context";
import type { InsightRange } from "../date-range";
import type { Formula } from "../formula";
import { bucketDay, bucketLabel, inclusiveEnd, zonedIso } from "../labels";
import type { z } from "@hono/zod-openapi";
import type { EventsNode } from "../schema";
import type { TrendsQuery, TrendsSeriesSchema } from "./schema";

/**
 * PostHog's trends result objects (trends_query_runner.py build_series_response, apply_formula): one
 * per series and breakdown value, with its buckets' labels and dates, `count`, the legacy `filter`
 * and `action` dicts, and for the total-value displays `aggregated_value` instead of the buckets.
 */

export const NULL_BREAKDOWN = "$$_posthog_breakdown_null_$$";
export const OTHER_BREAKDOWN = "$$_posthog_breakdown_other_$$";

export type TrendsSeriesResult = z.infer<typeof TrendsSeriesSchema>;

/** A series' values for one breakdown value (or the series itself), one per bucket. */
export interface Line {
  breakdown?: (string | null)[];
  other: boolean;
  values: number[];
}

/** A series' answer for one period. */
export interface SeriesValues {
  node: EventsNode;
  order: number;
  /** By breakdown value (its JSON, or OTHER_BREAKDOWN), in no particular order. */
  lines: Map<string, Line>;
}

interface ShapeOptions {
  totalValue: boolean;
  cumulative: boolean;
  /** With how its values are reported: as lists, and whether the "other" series is left out. */
  breakdown?: TrendsBreakdown & { list: boolean; hideOther: boolean };
  compareLabel?: "current" | "previous";
}

const seriesLabel = (node: EventsNode) => node.event ?? "All events";

/** The breakdown value as PostHog reports it: sentinels for no value and "other" (one per property of a list). */
function breakdownValue(line: Line, bd: { keys: string[]; list: boolean }): string | string[] {
  const parts = line.other
    ? bd.keys.map(() => OTHER_BREAKDOWN)
    : (line.breakdown ?? []).map((v) => v ?? NULL_BREAKDOWN);
  return bd.list || bd.keys.length > 1 ? parts : parts[0];
}

const valueText = (value: string | string[]) => (Array.isArray(value) ? value.join("::") : value);

/** PostHog's order of breakdown values: real values, then none, then other; larger totals first; then by value. */
function ranked(lines: Line[]): Line[] {
  return [...lines].sort((a, b) => rank(a) - rank(b) || total(b) - total(a) || -compareText(text(a), text(b)));
}

/**
 * PostHog's order of formula results by breakdown value (apply_formula): real values, then none,
 * then other; then everything else descending: the total, the values bucket by bucket, the value.
 */
function rankedFormulaLines(lines: Line[]): Line[] {
  const byValues = (a: Line, b: Line) => {
    for (let i = 0; i < Math.min(a.values.length, b.values.length); i++)
      if (a.values[i] !== b.values[i]) return b.values[i] - a.values[i];
    return 0;
  };
  return [...lines].sort(
    (a, b) => rank(a) - rank(b) || total(b) - total(a) || byValues(a, b) || compareText(text(a), text(b)),
  );
}

const rank = (l: Line) => (l.other ? 2 : (l.breakdown ?? []).every((v) => v === null) ? 1 : 0);
const total = (l: Line) => l.values.reduce((a, b) => a + b, 0);
const text = (l: Line) => JSON.stringify(l.breakdown ?? null);
/** Descending text order (`-compareText` ascending). */
const compareText = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

/** The lines a breakdown shows: all but "other" when it is hidden (`hasMore` still says it existed). */
const shown = (lines: Line[], bd: { hideOther: boolean }) => (bd.hideOther ? lines.filter((l) => !l.other) : lines);

export function shaper(ctx: InsightContext, query: TrendsQuery, range: InsightRange, opts: ShapeOptions) {
  const zone = ctx.timezone;
  const labels = range.starts.map((s) => bucketLabel(s, range.interval, zone, range));
  const days = range.starts.map((s) => bucketDay(s, range.interval, zone));
  const datetimes = range.starts.map((s) => zonedIso(s, zone));
  const filter = {
    insight: "TRENDS",
    date_from: zonedIso(range.from, zone),
    date_to: inclusiveEnd(range, zone),
    entity_type: "events",
    interval: range.interval,
    filter_test_accounts: query.filterTestAccounts ?? false,
    properties: query.properties ?? [],
    ...Object.fromEntries(Object.entries(query.trendsFilter ?? {}).filter(([, v]) => v !== null && v !== undefined)),
    ...Object.fromEntries(Object.entries(query.breakdownFilter ?? {}).filter(([, v]) => v !== null && v !== undefined)),
  };
  const compare = opts.compareLabel ? { compare: true, compare_label: opts.compareLabel } : {};
  const count = (values: number[]) => (opts.cumulative ? (values.at(-1) ?? 0) : values.reduce((a, b) => a + b, 0));

  /** The numbers of one object: buckets, or one value over the range. */
  const numbers = (values: number[]) =>
    opts.totalValue
      ? { data: [], days: [], count: 0, aggregated_value: values[0] ?? 0 }
      : { data: values, labels, days, count: count(values) };

  const actionOf = (node: EventsNode, order: number) => ({
    days: datetimes,
    id: node.event ?? null,
    type: "events",
    order,
    name: seriesLabel(node),
    custom_name: node.custom_name ?? null,
    math: node.math ?? null,
    math_property: node.math_property ?? null,
    math_hogql: null,
    math_group_type_index: null,
    properties: {},
  });

  return {
    /** The objects of one series: itself, or one per breakdown value in PostHog's order. */
    series(v: SeriesValues): TrendsSeriesResult[] {
      const bd = opts.breakdown;
      const lines = bd ? shown(ranked([...v.lines.values()]), bd) : [...v.lines.values()];
      return lines.map((line) => {
        const value = bd ? breakdownValue(line, bd) : undefined;
        const label =
          value === undefined
            ? seriesLabel(v.node)
            : query.series.length === 1
              ? valueText(value)
              : `${seriesLabel(v.node)} - ${valueText(value)}`;
        return {
          ...numbers(line.values),
          label,
          filter,
          action: actionOf(v.node, v.order),
          order: v.order,
          ...(value !== undefined ? { breakdown_value: value } : {}),
          ...compare,
        };
      });
    },

    /**
     * A formula over the series, bucket by bucket (on total values, over the values); with a
     * breakdown, per breakdown value, a value a series lacks counting as zeros.
     */
    formula(values: SeriesValues[], formula: Formula, label: string, index: number): TrendsSeriesResult[] {
      const keys = new Map<string, Line>();
      for (const v of values) for (const [key, line] of v.lines) if (!keys.has(key)) keys.set(key, line);
      const width = opts.totalValue ? 1 : range.starts.length;
      const lines = [...keys.entries()].map(([key, template]): Line => {
        const columns = values.map((v) => v.lines.get(key)?.values ?? new Array<number>(width).fill(0));
        const out = Array.from({ length: width }, (_, j) => formula(columns.map((c) => c[j] ?? 0)));
        return { breakdown: template.breakdown, other: template.other, values: out };
      });
      const bd = opts.breakdown;
      return (bd ? shown(rankedFormulaLines(lines), bd) : lines).map((line) => {
        const value = bd ? breakdownValue(line, bd) : undefined;
        const shaped = opts.totalValue
          ? { data: null, days: [], count: 0, aggregated_value: line.values[0] ?? 0 }
          : numbers(line.values);
        return {
          ...shaped,
          // The formula's label, whatever the breakdown value (PostHog's apply_formula).
          label,
          filter,
          action: null,
          order: index,
          ...(value !== undefined ? { breakdown_value: value } : {}),
          ...compare,
        };
      });
    },
  };
}
