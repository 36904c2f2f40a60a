import { expect } from "vitest";
import { BASE, call, createProject } from "../helpers";
import {
  actorIdSetOf,
  captureJourneys,
  distinctIdSetOf,
  drillDownOk,
  FOUR_PERSONS,
  idRange,
  insightActorsOk,
  type Journeys,
  namesOf,
  peopleOf,
  sorted,
} from "./analysis-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's lifecycle actor tests, replayed against the drill-down route
 * `GET /api/environments/:project_id/persons/lifecycle/` (test_lifecycle.py) or, where PostHog's
 * tests use it, against the Query API (`POST /api/environments/:project_id/query/`): an ActorsQuery
 * over an InsightActorsQuery. Data goes in through `POST /batch/`; a person's `created_at` is its
 * first captured event, which is what PostHog's fixtures give
 * (`with freeze_time(timestamps[0]): _create_person(...)`). Persons are compared by distinct id.
 */

const PAGEVIEW = [{ id: "$pageview", type: "events", order: 0 }];

/** PostHog's `_create_events(data)`: one person per distinct id, created at its first event, `$pageview` at each timestamp. */
function pageviews(data: [string, string[]][], event = "$pageview"): Journeys {
  return Object.fromEntries(
    data.map(([id, timestamps]) => [id, timestamps.map((timestamp) => ({ event, timestamp }))]),
  );
}

async function patchProject(projectId: number, body: Record<string, unknown>) {
  const res = await call(`/api/projects/${projectId}/`, { method: "PATCH", body });
  expect(res.status, res.text).toBe(200);
}

async function projectWith(data: [string, string[]][], timezone?: string) {
  const project = await createProject(undefined, timezone);
  await captureJourneys(project.api_token, pageviews(data), namesOf(data));
  return project.id;
}

conformance({ name: "PostHog lifecycle actors tests (test_lifecycle.py)", version: "0c09c3fc95" }, () => {
  // posthog/queries/test/test_lifecycle.py (the legacy `/api/person/lifecycle` endpoint).
  const range = {
    date_from: "2020-01-12T00:00:00Z",
    date_to: "2020-01-19T00:00:00Z",
    events: PAGEVIEW,
    shown_as: "Lifecycle",
  };

  agrees("test_lifecycle_trend_people", async () => {
    const projectId = await projectWith(FOUR_PERSONS);

    const returning = await drillDownOk(projectId, "lifecycle", {
      ...range,
      lifecycle_type: "returning",
      target_date: "2020-01-13T00:00:00Z",
    });
    expect(distinctIdSetOf(returning)).toEqual(["p1"]);

    const dormant13 = await drillDownOk(projectId, "lifecycle", {
      ...range,
      lifecycle_type: "dormant",
      target_date: "2020-01-13T00:00:00Z",
    });
    expect(peopleOf(dormant13)).toHaveLength(2);

    const dormant14 = await drillDownOk(projectId, "lifecycle", {
      ...range,
      lifecycle_type: "dormant",
      target_date: "2020-01-14T00:00:00Z",
    });
    expect(peopleOf(dormant14)).toHaveLength(1);
  });

  agrees("test_lifecycle_trend_people_paginated", async () => {
    // 150 persons created (frozen time) at 2020-01-15T12:00, each with one pageview then.
    const project = await createProject();
    const ids = idRange("person", 0, 150);
    await captureJourneys(
      project.api_token,
      Object.fromEntries(ids.map((id) => [id, [{ event: "$pageview", timestamp: "2020-01-15T12:00:00Z" }]])),
    );

    const first = await drillDownOk(project.id, "lifecycle", {
      ...range,
      lifecycle_type: "new",
      target_date: "2020-01-15T00:00:00Z",
    });
    expect(peopleOf(first)).toHaveLength(100);

    expect(first.next).toBeTruthy();
    const next = String(first.next);
    const second = await call(next.startsWith(BASE) ? next.slice(BASE.length) : next);
    expect(second.status, second.text).toBe(200);
    expect(peopleOf(second.json)).toHaveLength(50);
  });

  // PostHog only runs `get_people` with FILTER_TEST_ACCOUNTS and asserts no result; we also check what its
  // semantics give with the test team's filter (email not containing @posthog.com): p1 is left out.
  agrees("test_filter_test_accounts", async () => {
    const projectId = await projectWith(FOUR_PERSONS);
    const filters = [{ key: "email", value: "@posthog.com", operator: "not_icontains", type: "person" }];
    const set = await call(`/api/projects/${projectId}/`, { method: "PATCH", body: { test_account_filters: filters } });
    expect(set.status, set.text).toBe(200);
    const query = { ...range, lifecycle_type: "returning", target_date: "2020-01-13T00:00:00Z" };
    expect(distinctIdSetOf(await drillDownOk(projectId, "lifecycle", query))).toEqual(["p1"]);
    expect(
      distinctIdSetOf(await drillDownOk(projectId, "lifecycle", { ...query, filter_test_accounts: true })),
    ).toEqual([]);
  });
});

conformance(
  { name: "PostHog lifecycle actors tests (test_insight_actors_query_runner.py)", version: "10cbdf3a54" },
  () => {
    // posthog/hogql_queries/insights/test/test_insight_actors_query_runner.py: an ActorsQuery
    // (`select: ["properties.name as n"]`) over an InsightActorsQuery (day + status) over a LifecycleQuery,
    // team in US/Pacific, range 2020-01-09 … 2020-01-19, replayed through the Query API. PostHog's answer is
    // the persons' names, each the person's distinct id: the rows' actors are compared by distinct id, and
    // the selected names too.
    const actors = (projectId: number, day: string, lifecycle: Record<string, unknown> = {}) =>
      insightActorsOk(
        projectId,
        {
          kind: "InsightActorsQuery",
          day,
          status: "returning",
          source: {
            kind: "LifecycleQuery",
            ...lifecycle,
            dateRange: { date_from: "2020-01-09", date_to: "2020-01-19" },
            series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
          },
        },
        ["actor", "properties.name as n"],
      );
    const namesOfRows = (rows: unknown[][]) => rows.map((row) => row[1]).sort();

    agrees("test_insight_persons_lifecycle_query", async () => {
      const projectId = await projectWith(FOUR_PERSONS, "US/Pacific");
      const rows = await actors(projectId, "2020-01-12");
      expect(actorIdSetOf(rows)).toEqual(["p1"]);
      expect(namesOfRows(rows)).toEqual(["p1"]);
    });

    agrees("test_insight_persons_lifecycle_query_week_monday", async () => {
      // The team's week_start_day = MONDAY: the week of Monday 2020-01-13, after the week of
      // 6–12 January, in which only p1 (the 11th) was active → returning [p1].
      const projectId = await projectWith(FOUR_PERSONS, "US/Pacific");
      await patchProject(projectId, { week_start_day: 1 });
      const rows = await actors(projectId, "2020-01-13", { interval: "week" });
      expect(actorIdSetOf(rows)).toEqual(["p1"]);
      expect(namesOfRows(rows)).toEqual(["p1"]);
    });

    agrees("test_insight_persons_lifecycle_query_week_sunday", async () => {
      const projectId = await projectWith(FOUR_PERSONS, "US/Pacific");
      await patchProject(projectId, { week_start_day: 0 });
      const rows = await actors(projectId, "2020-01-12", { interval: "week" });
      expect(actorIdSetOf(rows)).toEqual(sorted(["p1", "p2"]));
      expect(namesOfRows(rows)).toEqual(sorted(["p1", "p2"]));
    });
  },
);

conformance({ name: "PostHog lifecycle actors tests (test_actors_query_runner.py)", version: "b23f2e1b26" }, () => {
  // posthog/hogql_queries/test/test_actors_query_runner.py: an ActorsQuery over an InsightActorsQuery over
  // a LifecycleQuery, ordered by `properties.email DESC`; edgehog's ActorsQuery takes no orderBy but [].
  notExpressible("test_source_lifecycle_query", "ActorsQuery orderBy (properties.email DESC)");
});
