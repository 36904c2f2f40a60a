import { expect } from "vitest";
import { call } from "../helpers";
import { capture } from "../persons/helpers";

/**
 * Shared by the conformance suites that replay PostHog's analysis drill-down tests (funnel,
 * correlation, lifecycle, stickiness): data goes in through the public capture API, questions go
 * to the public drill-down routes or, where PostHog's tests use it, to the Query API's ActorsQuery;
 * answers are compared by the persons' distinct ids.
 */

/** One event of a journey, as PostHog's `journeys_for` takes it (timestamps ISO 8601, UTC). */
export interface JourneyEvent {
  event: string;
  timestamp: string;
  properties?: Record<string, unknown>;
}

/** One journey event (`properties` only when given). */
export const at = (event: string, timestamp: string, properties?: Record<string, unknown>): JourneyEvent => ({
  event,
  timestamp,
  ...(properties ? { properties } : {}),
});

/** Events per distinct id, as PostHog's `journeys_for`. */
export type Journeys = Record<string, JourneyEvent[]>;

/**
 * PostHog's `_create_person(properties=…)` + `journeys_for(…)` through `POST /batch/`: every
 * distinct id's events, with `personProperties[id]` sent as `$set` on that id's first event, so
 * no extra event is captured. A distinct id with properties but no events gets one `$set` event
 * at `setAt` (which the caller must keep out of the questions it asks).
 */
export async function captureJourneys(
  token: string,
  journeys: Journeys,
  personProperties: Record<string, Record<string, unknown>> = {},
  setAt = "2000-01-01T00:00:00Z",
) {
  const batch: Record<string, unknown>[] = [];
  for (const [distinctId, events] of Object.entries(journeys)) {
    events.forEach((e, i) => {
      const properties: Record<string, unknown> = { ...e.properties };
      if (i === 0 && personProperties[distinctId])
        properties.$set = { ...personProperties[distinctId], ...(properties.$set as object) };
      batch.push({ event: e.event, distinct_id: distinctId, timestamp: e.timestamp, properties });
    });
  }
  for (const [distinctId, props] of Object.entries(personProperties)) {
    if (!journeys[distinctId]?.length)
      batch.push({ event: "$set", distinct_id: distinctId, timestamp: setAt, properties: { $set: props } });
  }
  for (let i = 0; i < batch.length; i += 500) await capture(token, batch.slice(i, i + 500));
}

/** `["user_0", …, "user_4"]` for `idRange("user_", 0, 5)` (PostHog's `for i in range(0, 5)`). */
export const idRange = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => `${prefix}${from + k}`);

/** A drill-down route under `/api/environments/:project_id/persons/`, e.g. `funnel`, `funnel/correlation`, `lifecycle`, `stickiness`. */
export type DrillDown = "funnel" | "funnel/correlation" | "lifecycle" | "stickiness";

/** Query string of a filter: strings as they are, numbers and booleans as text, lists and objects as JSON text. */
export function queryOf(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    search.set(key, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  return search.toString();
}

/**
 * Calls a drill-down route with a PostHog filter: GET with the filter in the query string (the
 * default), or POST with the filter as the JSON body. Returns the raw response.
 */
export function drillDown(
  projectId: number,
  route: DrillDown,
  params: Record<string, unknown>,
  method: "GET" | "POST" = "GET",
) {
  const path = `/api/environments/${projectId}/persons/${route}/`;
  if (method === "POST") return call(path, { method: "POST", body: params });
  return call(`${path}?${queryOf(params)}`);
}

/** Like `drillDown`, but expects 200 and returns the body (failing with the response text otherwise). */
export async function drillDownOk(
  projectId: number,
  route: DrillDown,
  params: Record<string, unknown>,
  method: "GET" | "POST" = "GET",
) {
  const res = await drillDown(projectId, route, params, method);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

interface Person {
  uuid: string;
  distinct_ids: string[];
  matched_recordings: unknown[];
}

/** The people of an actors response (`results[0].people`). */
export const peopleOf = (body: any): Person[] => body.results[0].people;

/**
 * One entry per person of an actors response, in the response's order: the person's distinct id,
 * or, for a person with several, their distinct ids sorted and joined with `+`.
 */
export const distinctIdsOf = (body: any): string[] => peopleOf(body).map((p) => [...p.distinct_ids].sort().join("+"));

/** `distinctIdsOf`, sorted: for comparing the set of persons when the order is not asserted. */
export const distinctIdSetOf = (body: any): string[] => distinctIdsOf(body).sort();

/** Each person's `matched_recordings`, in the response's order. */
export const recordingsOf = (body: any): unknown[][] => peopleOf(body).map((p) => p.matched_recordings);

/** Sorted copy, for comparing with `distinctIdSetOf`. */
export const sorted = (ids: string[]): string[] => [...ids].sort();

/**
 * The docs/compatibility.md row (Persons analysis) for PostHog tests that also assert session
 * recordings: edgehog has no recordings, ignores `include_recordings` and answers `matched_recordings: []`.
 */
export const RECORDINGS_ROW = "Persons analysis: include_recordings (ignored, matched_recordings is always [])";

/**
 * Runs PostHog's `ActorsQuery` over an insight's persons through `POST /api/environments/:project_id/query/`:
 * `source` is an InsightActorsQuery (or StickinessActorsQuery) over a TrendsQuery, LifecycleQuery or
 * StickinessQuery; `orderBy` `[]` is person order, `["event_count DESC"]` (a TrendsQuery's persons) most events first.
 * Expects 200 and returns the rows (`results`, one per person, a value per `select`ed column).
 */
export async function insightActorsOk(
  projectId: number,
  source: Record<string, unknown>,
  select: string[] = ["actor"],
  orderBy: string[] = [],
): Promise<unknown[][]> {
  const res = await call(`/api/environments/${projectId}/query/`, {
    method: "POST",
    body: { query: { kind: "ActorsQuery", select, orderBy, source } },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.results as unknown[][];
}

/**
 * The persons of ActorsQuery rows whose column `column` is `actor`, as `distinctIdSetOf` gives them
 * for a drill-down response: each person's distinct ids sorted and joined with `+`, the whole sorted.
 */
export const actorIdSetOf = (rows: unknown[][], column = 0): string[] =>
  rows.map((row) => [...(row[column] as { distinct_ids: string[] }).distinct_ids].sort().join("+")).sort();

/** PostHog's person properties of `_create_events`: `name`, and `email` for p1. */
export function namesOf(data: [string, string[]][]) {
  return Object.fromEntries(
    data.map(([id]) => [id, { name: id, ...(id === "p1" ? { email: "test@posthog.com" } : {}) }]),
  );
}

/**
 * The four persons (and their `$pageview` times) most of PostHog's lifecycle tests use, and its
 * insight actors tests (test_insight_actors_query_runner.py) too.
 */
export const FOUR_PERSONS: [string, string[]][] = [
  [
    "p1",
    [
      "2020-01-11T12:00:00Z",
      "2020-01-12T12:00:00Z",
      "2020-01-13T12:00:00Z",
      "2020-01-15T12:00:00Z",
      "2020-01-17T12:00:00Z",
      "2020-01-19T12:00:00Z",
    ],
  ],
  ["p2", ["2020-01-09T12:00:00Z", "2020-01-12T12:00:00Z"]],
  ["p3", ["2020-01-12T12:00:00Z"]],
  ["p4", ["2020-01-15T12:00:00Z"]],
];
