import { expect } from "vitest";
import { call, createProject } from "../helpers";
import { actorIdSetOf, at, captureJourneys, insightActorsOk, type Journeys } from "./analysis-helpers";
import { alias } from "./trends-helpers";

/**
 * Shared by the suites that replay PostHog's funnel tests (posthog/hogql_queries/insights/funnels/test/)
 * as FunnelsQuery through `POST /api/environments/:project_id/query/`, and their persons as PostHog's
 * `ActorsQuery` over a `FunnelsActorsQuery` (what the tests' `get_actors` sends).
 */

export type Query = Record<string, unknown>;
type Props = Record<string, unknown>;
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

/** `[{"id": e, "order": i}, …]` as a FunnelsQuery's series. */
export const series = (...events: string[]) => events.map((e) => step(e));

/** An exclusion of the filter (`{"id": event, "type": "events", "funnel_from_step": from, "funnel_to_step": to}`). */
export const exclusion = (event: string, funnelFromStep: number, funnelToStep: number, extra: Props = {}) => ({
  kind: "EventsNode",
  event,
  funnelFromStep,
  funnelToStep,
  ...extra,
});

/** The persons of a step (and breakdown value), as sorted distinct ids. */
export const actorsAt = (projectId: number, query: Query, funnelStep: number, funnelStepBreakdown?: unknown) =>
  funnelActors(
    projectId,
    query,
    funnelStepBreakdown === undefined ? { funnelStep } : { funnelStep, funnelStepBreakdown },
  );

/** A timestamp as PostHog's tests give it (naive text `YYYY-MM-DD HH:MM:SS` is UTC, the team's zone), as ISO 8601. */
const utc = (t: string) => (t.includes("T") ? t : `${t.replace(" ", "T")}Z`);

/**
 * What a test's `_create_person` / `_create_event` / `journeys_for` calls make, in call order, for
 * `POST /batch/` (a person's properties `$set` on their first event, their other distinct ids linked by
 * `alias`). An event created without a timestamp takes the real "now" (the tests do not freeze the clock
 * there): one second after the previous such event, starting an hour ago (inside the default range).
 */
export class FunnelEvents {
  readonly journeys: Journeys = {};
  readonly people: Record<string, Props> = {};
  private clock = Date.now() - 3_600_000;

  /** `_create_person(distinct_ids=[id, ...otherDistinctIds], properties=…)`. */
  person(id: string, properties?: Props, ...otherDistinctIds: string[]) {
    this.journeys[id] = [...otherDistinctIds.map(alias), ...(this.journeys[id] ?? [])];
    if (properties) this.people[id] = properties;
    return this;
  }

  /** `_create_event(event=…, distinct_id=id, timestamp=…, properties=…)`; no timestamp: "now", after the previous one. */
  event(id: string, event: string, timestamp?: string, properties?: Props) {
    const time = timestamp ? utc(timestamp) : new Date((this.clock += 1000)).toISOString();
    (this.journeys[id] ??= []).push(at(event, time, properties));
    return this;
  }

  /** `journeys_for`: each id's events, `[event, timestamp?, properties?]`. */
  journeysFor(journeys: Record<string, [string, string?, Props?][]>) {
    for (const [id, events] of Object.entries(journeys))
      for (const [event, timestamp, properties] of events) this.event(id, event, timestamp, properties);
    return this;
  }

  /** A fresh project (in `timezone`) holding the data; its id. */
  async project(timezone?: string): Promise<number> {
    return (await this.projectWithToken(timezone)).id;
  }

  /** The same, the whole project (for a case that captures more later with its `api_token`). */
  async projectWithToken(timezone?: string) {
    const project = await createProject(undefined, timezone);
    await captureJourneys(project.api_token, this.journeys, this.people);
    return project;
  }
}
