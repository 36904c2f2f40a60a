import { expect } from "vitest";
import { createProject } from "../helpers";
import {
  actorIdSetOf,
  captureJourneys,
  distinctIdSetOf,
  drillDownOk,
  FOUR_PERSONS,
  insightActorsOk,
  type JourneyEvent,
  type Journeys,
  namesOf,
  sorted,
} from "./analysis-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's stickiness actor tests, replayed against the drill-down route
 * `GET /api/environments/:project_id/persons/stickiness/` (test_stickiness.py, test_clickhouse_stickiness.py)
 * or, where PostHog's tests use it, against the Query API (`POST /api/environments/:project_id/query/`): an
 * ActorsQuery over an InsightActorsQuery or StickinessActorsQuery. Data goes in through `POST /batch/`;
 * persons are compared by distinct id (a person with several: sorted and joined with `+`).
 */

conformance({ name: "PostHog stickiness actors tests (test_stickiness.py)", version: "03dbd1b945" }, () => {
  // posthog/api/test/test_stickiness.py, `stickiness_test_factory` (the legacy `/api/person/stickiness/` endpoint).

  /**
   * `_create_multiple_people()` with the default period of one day. person3 has two distinct ids
   * (person3a, person3b): a `$create_alias` from person3a at its first event's time links them
   * (an event of another name, so it does not count for "watched movie").
   */
  async function createMultiplePeople(token: string) {
    const movie = (timestamp: string, browser = "Chrome"): JourneyEvent => ({
      event: "watched movie",
      timestamp,
      properties: { $browser: browser },
    });
    const journeys: Journeys = {
      person1: [movie("2020-01-01T12:00:00Z")],
      person2: [movie("2020-01-01T12:00:00Z"), movie("2020-01-02T12:00:00Z"), movie("2020-01-02T12:00:00Z")],
      person3a: [
        { event: "$create_alias", timestamp: "2020-01-01T12:00:00Z", properties: { alias: "person3b" } },
        movie("2020-01-01T12:00:00Z"),
        movie("2020-01-03T12:00:00Z"),
      ],
      person3b: [movie("2020-01-02T12:00:00Z")],
      person4: [movie("2020-01-05T12:00:00Z", "Safari")],
    };
    await captureJourneys(token, journeys, {
      person1: { name: "person1" },
      person2: { name: "person2" },
      person3a: { name: "person3" },
      person4: { name: "person4" },
    });
  }

  // Drills into an action (`entity_type: "actions"`).
  notExpressible("test_stickiness_people_endpoint", "actions");

  agrees("test_stickiness_people_with_entity_filter", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    // As PostHog's test sends it: `entity_id` without `entity_type`; the entity (with its
    // properties) is the one of `events` with that id.
    const body = await drillDownOk(project.id, "stickiness", {
      shown_as: "Stickiness",
      stickiness_days: 1,
      date_from: "2020-01-01",
      date_to: "2020-01-08",
      events: [{ id: "watched movie", type: "events", properties: [{ key: "$browser", value: "Chrome" }] }],
      entity_id: "watched movie",
    });
    expect(distinctIdSetOf(body)).toEqual(["person1"]);
  });

  // Drills into an action (`entity_type: "actions"`), then follows `next`.
  notExpressible("test_stickiness_people_paginated", "actions");
});

conformance({ name: "PostHog stickiness actors tests (test_clickhouse_stickiness.py)", version: "0020ab88b0" }, () => {
  // ee/clickhouse/views/test/test_clickhouse_stickiness.py: both tests follow each point's `person_url`.
  notExpressible("test_filter_by_group_properties", "group property filters");
  notExpressible("test_aggregate_by_groups", "group aggregation");
});

conformance(
  { name: "PostHog stickiness actors tests (test_insight_actors_query_runner.py)", version: "10cbdf3a54" },
  () => {
    // posthog/hogql_queries/insights/test/test_insight_actors_query_runner.py: an ActorsQuery
    // (`select: ["properties.name"]`) over an InsightActorsQuery (`day: 2`) over a StickinessQuery, team in
    // US/Pacific, replayed through the Query API. Persons are created at their first event, as PostHog's
    // fixture. PostHog's answer is the persons' names, each the person's distinct id.
    agrees("test_insight_persons_stickiness_query", async () => {
      const project = await createProject(undefined, "US/Pacific");
      await captureJourneys(
        project.api_token,
        Object.fromEntries(
          FOUR_PERSONS.map(([id, ts]) => [
            id,
            ts.map((timestamp) => ({ event: "$pageview", timestamp, properties: { $group_0: "org:1" } })),
          ]),
        ),
        namesOf(FOUR_PERSONS),
      );
      const rows = await insightActorsOk(
        project.id,
        {
          kind: "InsightActorsQuery",
          day: 2,
          source: {
            kind: "StickinessQuery",
            dateRange: { date_from: "2020-01-09", date_to: "2020-01-19" },
            series: [{ kind: "EventsNode", event: "$pageview" }],
          },
        },
        ["actor", "properties.name"],
      );
      expect(actorIdSetOf(rows)).toEqual(["p2"]);
      expect(rows.map((row) => row[1])).toEqual(["p2"]);
    });

    notExpressible("test_insight_persons_stickiness_groups_query", "group aggregation");
  },
);

conformance(
  { name: "PostHog stickiness actors tests (test_stickiness_query_runner.py)", version: "7c159bb414" },
  () => {
    // posthog/hogql_queries/insights/test/test_stickiness_query_runner.py: the persons of a StickinessQuery
    // (UTC team, `$pageview`, `interval: "day"`), as a StickinessActorsQuery (`day`, `operator`) or
    // `to_actors_query(interval_num, operator)`, replayed as an ActorsQuery over a StickinessActorsQuery through
    // the Query API. PostHog counts the rows; where its comments name the persons, their distinct ids are compared.

    /** `_create_events`: `$pageview`s per distinct id (each with `properties`), persons named after their id, p1 with an email. */
    async function projectWith(
      pageviews: Record<string, string[]>,
      properties: Record<string, Record<string, unknown>> = {},
    ) {
      const project = await createProject();
      await captureJourneys(
        project.api_token,
        Object.fromEntries(
          Object.entries(pageviews).map(([id, timestamps]) => [
            id,
            timestamps.map((timestamp) => ({ event: "$pageview", timestamp, properties: properties[id] ?? {} })),
          ]),
        ),
        namesOf(Object.entries(pageviews)),
      );
      return project.id;
    }

    /** `_get_query(...)`: a StickinessQuery of `$pageview` by day. */
    const stickinessQuery = (date_from: string, date_to: string, extra: Record<string, unknown> = {}) => ({
      kind: "StickinessQuery",
      series: [{ kind: "EventsNode", event: "$pageview" }],
      dateRange: { date_from, date_to },
      interval: "day",
      ...extra,
    });

    /** The persons (distinct id set) of a StickinessActorsQuery: `day` intervals, compared by `operator` when given. */
    const actors = async (projectId: number, source: Record<string, unknown>, day: number, operator?: string) =>
      actorIdSetOf(
        await insightActorsOk(projectId, {
          kind: "StickinessActorsQuery",
          source,
          day,
          ...(operator ? { operator } : {}),
        }),
      );

    /** The data of the `test_actor_query_*` tests: p1 active 11–13 January, p2 11–12, p3 the 11th. */
    const THREE_PERSONS = {
      p1: ["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z", "2020-01-13T12:00:00Z"],
      p2: ["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z"],
      p3: ["2020-01-11T12:00:00Z"],
    };

    agrees("test_interval_2_day_filtering", async () => {
      // Intervals of 2 days from 11 January to the 20th: p1 is active in all 5, p2 (11th, 13th, 15th) in 3.
      // (Its counts half, data [0, 0, 1, 0, 1], is replayed in posthog-stickiness.test.ts.)
      const projectId = await projectWith(
        {
          p1: [
            "2020-01-11T12:00:00Z",
            "2020-01-12T12:00:00Z",
            "2020-01-13T12:00:00Z",
            "2020-01-14T12:00:00Z",
            "2020-01-15T12:00:00Z",
            "2020-01-16T12:00:00Z",
            "2020-01-17T12:00:00Z",
            "2020-01-18T12:00:00Z",
            "2020-01-19T12:00:00Z",
          ],
          p2: ["2020-01-11T12:00:00Z", "2020-01-13T12:00:00Z", "2020-01-15T12:00:00Z"],
        },
        {
          p1: { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:1" },
          p2: { $browser: "Firefox", prop: 10, bool_field: false, $group_0: "org:1" },
        },
      );
      const query = stickinessQuery("2020-01-11", "2020-01-20", { intervalCount: 2 });
      // PostHog: 0 actors active in exactly 1 interval; 2 in 3 or more.
      expect(await actors(projectId, query, 1, "exact")).toEqual([]);
      expect(await actors(projectId, query, 3, "gte")).toEqual(sorted(["p1", "p2"]));
    });

    agrees("test_actor_query_cumulative", async () => {
      const projectId = await projectWith(THREE_PERSONS);
      const query = stickinessQuery("2020-01-11", "2020-01-13", { stickinessFilter: { computedAs: "cumulative" } });
      // PostHog: 3 actors (all) active 1 or more days; 2 (p1 and p2) 2 or more; 1 (only p1) 3 or more.
      expect(await actors(projectId, query, 1)).toEqual(sorted(["p1", "p2", "p3"]));
      expect(await actors(projectId, query, 2)).toEqual(sorted(["p1", "p2"]));
      expect(await actors(projectId, query, 3)).toEqual(["p1"]);
    });

    agrees("test_actor_query_non_cumulative", async () => {
      const projectId = await projectWith(THREE_PERSONS);
      const query = stickinessQuery("2020-01-11", "2020-01-13");
      // PostHog asserts one actor each: "Only p3 / p2 / p1 was active for exactly 1 / 2 / 3 days".
      expect(await actors(projectId, query, 1)).toEqual(["p3"]);
      expect(await actors(projectId, query, 2)).toEqual(["p2"]);
      expect(await actors(projectId, query, 3)).toEqual(["p1"]);
    });

    agrees("test_actor_query_with_operator", async () => {
      const projectId = await projectWith(THREE_PERSONS);
      const query = stickinessQuery("2020-01-11", "2020-01-13");
      // PostHog: 2 actors, "p1 and p2 were active for >= 2 days"; 2, "p2 and p3 were active for <= 2 days".
      expect(await actors(projectId, query, 2, "gte")).toEqual(sorted(["p1", "p2"]));
      expect(await actors(projectId, query, 2, "lte")).toEqual(sorted(["p2", "p3"]));
    });
  },
);
