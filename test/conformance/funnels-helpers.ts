import { expect } from "vitest";
import { call } from "../helpers";
import { actorIdSetOf, insightActorsOk } from "./analysis-helpers";

/**
 * Shared by the suites that replay PostHog's funnel tests (posthog/hogql_queries/insights/funnels/test/)
 * as FunnelsQuery through `POST /api/environments/:project_id/query/`, and their persons as PostHog's
 * `ActorsQuery` over a `FunnelsActorsQuery` (what the tests' `get_actors` sends).
 */

export type Query = Record<string, unknown>;
// PostHog's result objects, read as the tests read them.
export type Step = Record<string, any>;

/** A FunnelsQuery (`funnelsFilter` defaults to `{}`). */
export const funnelsQuery = (query: Query): Query => ({ kind: "FunnelsQuery", funnelsFilter: {}, ...query });

/** Runs a FunnelsQuery (200 expected) and returns the whole response body. */
export async function funnelsResponse(projectId: number, query: Query) {
  const res = await call(`/api/environments/${projectId}/query/`, {
    method: "POST",
    body: { query: funnelsQuery(query) },
  });
  expect(res.status, res.text).toBe(200);
  return res.json as { results: unknown };
}

/**
 * Runs a FunnelsQuery and returns its `results`: steps (a list of step objects, or with a breakdown a
 * list of them per value), `time_to_convert`'s `{average_conversion_time, bins}` or `trends`' series.
 */
export async function funnel(projectId: number, query: Query): Promise<any> {
  return (await funnelsResponse(projectId, query)).results;
}

/** Runs a FunnelsQuery that must be refused: the 400's body (`{type, code, detail, attr}`). */
export async function funnelRefused(projectId: number, query: Query) {
  const res = await call(`/api/environments/${projectId}/query/`, {
    method: "POST",
    body: { query: funnelsQuery(query) },
  });
  expect(res.status, res.text).toBe(400);
  return res.json as { type: string; code: string; detail: string; attr: string | null };
}

/** The bucket a FunnelsActorsQuery asks about: `funnelStep`, `funnelCustomSteps`, `funnelStepBreakdown`. */
export interface FunnelBucket {
  funnelStep?: number;
  funnelCustomSteps?: number[];
  funnelStepBreakdown?: unknown;
}

/**
 * PostHog's `get_actors(query, funnelStep, …)`: the persons of a funnel bucket, as the sorted list of
 * each person's distinct ids (sorted, joined with `+`).
 */
export async function funnelActors(projectId: number, query: Query, bucket: FunnelBucket): Promise<string[]> {
  const source = { kind: "FunnelsActorsQuery", source: funnelsQuery(query), ...bucket };
  return actorIdSetOf(await insightActorsOk(projectId, source, ["actor"]));
}

/** An EventsNode step (`event: null` is all events). */
export const step = (event: string | null, extra: Record<string, unknown> = {}) => ({
  kind: "EventsNode",
  event,
  ...extra,
});

/** Step counts of a steps result without breakdown. */
export const countsOf = (steps: Step[]): number[] => steps.map((s) => s.count);
