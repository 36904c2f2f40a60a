import type { AnalyticsStore } from "../analytics";
import type { InsightSettings } from "../insights/context";
import { type InsightQuery, type InsightResponse, runInsight } from "../insights/insight";
import { runTrends, type TrendsResponse } from "../insights/trends/runner";
import type { TrendsQuery } from "../insights/trends/schema";
import { sortedJson } from "../lib/json";

/**
 * A materialized insight version keeps its computed result (an insight's answer is small): the
 * result of the saved query, and, when it breaks down by one property, the result with every value
 * of it (no limit, no "other"), from which a run with the breakdown variable reads its value's series
 * (PostHog's endpoints materialize insights the same way: all values, read back by value). Each is
 * computed in the project's settings of the refresh, and read only while the project still has them.
 */

export interface MaterializedInsight {
  settings: InsightSettings;
  full: InsightResponse;
  /** A trends query breaking down by one property: its result with every value. */
  byValue: TrendsResponse | null;
}

/** A Durable Object SQLite value holds at most 2 MB. */
const MAX_STORED_BYTES = 1_900_000;
/** As many breakdown values as a run may ask for (PostHog's inline endpoint runs use the same). */
const ALL_BREAKDOWN_VALUES = 10_000;

/** Why an insight version cannot be materialized (PostHog's refusals), or null. */
export function insightMaterializationReason(query: InsightQuery): string | null {
  if ("compareFilter" in query && query.compareFilter?.compare)
    return "Compare mode is not supported for materialized endpoints.";
  return null;
}

/** The breakdown property a run may name as a variable: the query's one breakdown key. */
export function breakdownVariable(query: InsightQuery): { key: string; type: "event" | "person" } | null {
  const filter = query.kind === "TrendsQuery" ? query.breakdownFilter : null;
  if (!filter) return null;
  if (filter.breakdowns?.length) {
    const [only] = filter.breakdowns;
    return filter.breakdowns.length === 1 ? { key: only.property, type: only.type ?? "event" } : null;
  }
  const keys = Array.isArray(filter.breakdown) ? filter.breakdown : filter.breakdown ? [filter.breakdown] : [];
  return keys.length === 1 ? { key: keys[0], type: filter.breakdown_type ?? "event" } : null;
}

/** The query with every breakdown value and no "other" series. */
const withAllBreakdownValues = (query: TrendsQuery): TrendsQuery => ({
  ...query,
  breakdownFilter: {
    ...query.breakdownFilter,
    breakdown_limit: ALL_BREAKDOWN_VALUES,
    breakdown_hide_other_aggregation: false,
  },
});

class InsightTooLarge extends Error {
  constructor() {
    super("The insight's result is too large to materialize; narrow its range or breakdown.");
  }
}

export const isInsightTooLarge = (error: unknown) => error instanceof InsightTooLarge;

export async function materializeInsight(
  store: AnalyticsStore,
  settings: InsightSettings,
  query: InsightQuery,
): Promise<MaterializedInsight> {
  const ctx = { ...settings, now: Date.now(), store };
  const [full, byValue] = await Promise.all([
    runInsight(ctx, query),
    query.kind === "TrendsQuery" && breakdownVariable(query) ? runTrends(ctx, withAllBreakdownValues(query)) : null,
  ]);
  return { settings, full, byValue };
}

export function createMaterializedInsightsTable(sql: SqlStorage) {
  sql.exec("CREATE TABLE IF NOT EXISTS materialized_insights (version INTEGER PRIMARY KEY, body TEXT NOT NULL)");
}

export function storeMaterializedInsight(sql: SqlStorage, version: number, result: MaterializedInsight) {
  const body = JSON.stringify(result);
  if (body.length > MAX_STORED_BYTES) throw new InsightTooLarge();
  sql.exec(
    "INSERT INTO materialized_insights (version, body) VALUES (?, ?) ON CONFLICT (version) DO UPDATE SET body = excluded.body",
    version,
    body,
  );
}

export function dropMaterializedInsight(sql: SqlStorage, version: number) {
  sql.exec("DELETE FROM materialized_insights WHERE version = ?", version);
}

/**
 * The stored answer: the saved query's, or with a breakdown value the series of that value (none
 * when the events never had it; a list breakdown's value is matched as one of its list). Null when
 * nothing is stored, or it was computed in other project settings than `settings`.
 */
export function readMaterializedInsight(
  sql: SqlStorage,
  version: number,
  settings: InsightSettings,
  breakdownValue?: string,
): InsightResponse | null {
  const row = sql
    .exec<{ body: string }>("SELECT body FROM materialized_insights WHERE version = ?", version)
    .toArray()[0];
  if (!row) return null;
  const stored = JSON.parse(row.body) as MaterializedInsight;
  if (sortedJson(stored.settings) !== sortedJson(settings)) return null;
  if (breakdownValue === undefined) return stored.full;
  if (!stored.byValue) return null;
  return {
    ...stored.byValue,
    hasMore: false,
    results: stored.byValue.results.filter((r) => [r.breakdown_value].flat().includes(breakdownValue)),
  };
}
