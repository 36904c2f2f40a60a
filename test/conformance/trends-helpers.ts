import { expect } from "vitest";
import { call } from "../helpers";
import { at, insightActorsOk, type JourneyEvent } from "./analysis-helpers";

/**
 * Shared by the suites that replay PostHog's trends tests (test_formula.py, the breakdown files) as
 * TrendsQuery through `POST /api/environments/:project_id/query/` (test_trends.py, test_formula.py,
 * the breakdown files).
 */

export type Series = Record<string, any>;

/** Runs a TrendsQuery (200 expected) and returns the whole response body (`results`, `hasMore`, ...). */
export async function trendsResponse(projectId: number, query: Record<string, unknown>) {
  const res = await call(`/api/environments/${projectId}/query/`, {
    method: "POST",
    body: { query: { kind: "TrendsQuery", ...query } },
  });
  expect(res.status, res.text).toBe(200);
  return res.json as { results: Series[]; hasMore: boolean };
}

/** Runs a TrendsQuery (200 expected) and returns its result objects. */
export async function trends(projectId: number, query: Record<string, unknown>): Promise<Series[]> {
  return (await trendsResponse(projectId, query)).results;
}

/** An EventsNode (`event: null` is all events). */
export const ev = (event: string | null, extra: Record<string, unknown> = {}) => ({
  kind: "EventsNode",
  event,
  ...extra,
});

export const range = (date_from: string, date_to: string) => ({ date_from, date_to });
/** `-7d` (the default range) frozen on 2020-01-04. */
export const WEEK_TO_JAN_4 = range("2019-12-28", "2020-01-04");

/** When a person's second distinct id is linked: before every range asked about. */
export const ALIAS_AT = "2019-12-01T00:00:00Z";
/** The event that links `alias` to the distinct id sending it (PostHog's person with both ids). */
export const alias = (id: string): JourneyEvent => at("$create_alias", ALIAS_AT, { alias: id });

/**
 * PostHog's `get_actors` (test_trends_persons.py, used by test_trends.py too): an ActorsQuery selecting
 * `actor`, `created_at`, `event_count` and `matched_recordings`, most events first, over an
 * InsightActorsQuery (`pick`: `day`, `series`, `breakdown`, `compare`) of a TrendsQuery. Each person
 * comes back as `distinct_id:event_count` (several distinct ids sorted and joined with `+`), in the
 * answer's order.
 */
export async function trendsPersons(
  projectId: number,
  query: Record<string, unknown>,
  pick: Record<string, unknown> = {},
): Promise<string[]> {
  const rows = await insightActorsOk(
    projectId,
    { kind: "InsightActorsQuery", source: { kind: "TrendsQuery", ...query }, includeRecordings: true, ...pick },
    ["actor", "created_at", "event_count", "matched_recordings"],
    ["event_count DESC"],
  );
  return rows.map(
    ([actor, , count]) => `${[...(actor as { distinct_ids: string[] }).distinct_ids].sort().join("+")}:${count}`,
  );
}

export const NULL_BREAKDOWN = "$$_posthog_breakdown_null_$$";
export const OTHER_BREAKDOWN = "$$_posthog_breakdown_other_$$";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `n` consecutive dates from `from` (UTC), as `days` entries: `2020-11-01`. */
export function dayDates(from: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000)).map((d) =>
    d.toISOString().slice(0, 10),
  );
}

/** The same dates as day labels: `1-Nov-2020`. */
export function dayLabels(from: string, n: number): string[] {
  return dayDates(from, n).map((d) => {
    const [y, m, day] = d.split("-").map(Number);
    return `${day}-${MONTHS[m - 1]}-${y}`;
  });
}
