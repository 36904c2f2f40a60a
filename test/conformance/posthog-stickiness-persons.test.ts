import { expect } from "vitest";
import { createProject } from "../helpers";
import {
  captureJourneys,
  distinctIdSetOf,
  drillDownOk,
  FOUR_PERSONS,
  type JourneyEvent,
  type Journeys,
  namesOf,
} from "./analysis-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's stickiness actor (drill-down) tests, replayed against
 * `GET /api/environments/:project_id/persons/stickiness/`. Data goes in through `POST /batch/`;
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
    // posthog/hogql_queries/insights/test/test_insight_actors_query_runner.py: InsightActorsQuery over a
    // StickinessQuery, team in US/Pacific. Persons are created at their first event, as PostHog's fixture.
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
      const body = await drillDownOk(project.id, "stickiness", {
        date_from: "2020-01-09",
        date_to: "2020-01-19",
        events: [{ id: "$pageview", type: "events", order: 0 }],
        entity_id: "$pageview",
        entity_type: "events",
        stickiness_days: 2,
      });
      expect(distinctIdSetOf(body)).toEqual(["p2"]);
    });

    notExpressible("test_insight_persons_stickiness_groups_query", "group aggregation");
  },
);

conformance(
  { name: "PostHog stickiness actors tests (test_stickiness_query_runner.py)", version: "7c159bb414" },
  () => {
    // posthog/hogql_queries/insights/test/test_stickiness_query_runner.py: StickinessActorsQuery /
    // `to_actors_query(interval_num, operator)` over a StickinessQuery (UTC team, `$pageview`).

    // Actors of a 2-day `intervalCount`, with operators exact and gte.
    notExpressible("test_interval_2_day_filtering", "intervalCount");
    notExpressible("test_actor_query_cumulative", "cumulative stickiness");

    agrees("test_actor_query_non_cumulative", async () => {
      const project = await createProject();
      const pageviews = (...days: string[]) =>
        days.map((d) => ({ event: "$pageview", timestamp: `2020-01-${d}T12:00:00Z` }));
      await captureJourneys(
        project.api_token,
        { p1: pageviews("11", "12", "13"), p2: pageviews("11", "12"), p3: pageviews("11") },
        { p1: { name: "p1", email: "test@posthog.com" }, p2: { name: "p2" }, p3: { name: "p3" } },
      );
      const actors = (days: number) =>
        drillDownOk(project.id, "stickiness", {
          date_from: "2020-01-11",
          date_to: "2020-01-13",
          events: [{ id: "$pageview", type: "events", order: 0 }],
          entity_id: "$pageview",
          entity_type: "events",
          interval: "day",
          stickiness_days: days,
        });
      // PostHog asserts one actor each: "Only p3 / p2 / p1 was active for exactly 1 / 2 / 3 days".
      expect(distinctIdSetOf(await actors(1))).toEqual(["p3"]);
      expect(distinctIdSetOf(await actors(2))).toEqual(["p2"]);
      expect(distinctIdSetOf(await actors(3))).toEqual(["p1"]);
    });

    notExpressible("test_actor_query_with_operator", "stickiness operators (gte/lte)");
  },
);
