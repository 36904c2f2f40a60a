import { expect } from "vitest";
import { call, createProject } from "../helpers";
import { at, captureJourneys, type JourneyEvent, type Journeys } from "./analysis-helpers";
import { ev, range, type Series } from "./trends-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's stickiness tests, replayed as StickinessQuery through
 * `POST /api/environments/:project_id/query/`. Data goes in through `POST /batch/` (person
 * properties as `$set` on a person's first event, a person's second distinct id linked by a
 * `$create_alias`); each case has its own project, in UTC as PostHog's test team.
 *
 * The tests freeze the clock; edgehog runs on real time, so a relative range is written as the
 * absolute dates it meant then. The actors (drill-down) tests of both files are replayed in
 * posthog-stickiness-persons.test.ts.
 */

/** Runs a StickinessQuery (200 expected) and returns its result objects. */
async function stickiness(projectId: number, query: Record<string, unknown>): Promise<Series[]> {
  const res = await call(`/api/environments/${projectId}/query/`, {
    method: "POST",
    body: { query: { kind: "StickinessQuery", ...query } },
  });
  expect(res.status, res.text).toBe(200);
  return (res.json as { results: Series[] }).results;
}

async function patchProject(projectId: number, body: Record<string, unknown>) {
  const res = await call(`/api/projects/${projectId}/`, { method: "PATCH", body });
  expect(res.status, res.text).toBe(200);
}

/** `[1, …, n]`: a stickiness result's `days`. */
const slots = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** `["1 day", "2 days", …]` (`"1 day or more", …` when cumulative): a stickiness result's `labels`. */
const labelsOf = (unit: string, n: number, cumulative = false) =>
  slots(n).map((k) => `${k} ${unit}${k === 1 ? "" : "s"}${cumulative ? " or more" : ""}`);

conformance({ name: "PostHog stickiness tests (test_stickiness.py)", version: "b7ddf2454d" }, () => {
  // posthog/api/test/test_stickiness.py, `stickiness_test_factory` (the newest copy of the factory that
  // posthog/queries/test/test_stickiness.py held): legacy filters sent to `/insights/trend/`, which
  // PostHog turns into a StickinessQuery (filter_to_query); here each is written as that query. Its
  // people tests (test_stickiness_people_endpoint, test_stickiness_people_with_entity_filter,
  // test_stickiness_people_paginated) are replayed in posthog-stickiness-persons.test.ts.

  type Period = "hour" | "day" | "week" | "month";

  /** `base_time + period * k`: 2020-01-01 12:00 UTC plus k hours, days, weeks or months. */
  function after(k: number, period: Period): string {
    const t = new Date(Date.UTC(2020, 0, 1, 12));
    if (period === "hour") t.setUTCHours(12 + k);
    else if (period === "day") t.setUTCDate(1 + k);
    else if (period === "week") t.setUTCDate(1 + 7 * k);
    else t.setUTCMonth(k);
    return t.toISOString();
  }

  /**
   * `_create_multiple_people(period)`: "watched movie" ($browser Chrome, Safari for person4) by
   * person1 (at 0), person2 (at 0, twice at 1), person3 (person3a at 0 and 2, person3b at 1; the
   * `$create_alias` linking them is at 0, an event of another name) and person4 (at 4). Active
   * periods: person1 1, person2 2, person3 3, person4 1. `journeys` and `properties` add events and
   * persons to it.
   */
  async function createMultiplePeople(
    token: string,
    period: Period = "day",
    journeys: Journeys = {},
    properties: Record<string, Record<string, unknown>> = {},
  ) {
    const movie = (k: number, $browser = "Chrome"): JourneyEvent => at("watched movie", after(k, period), { $browser });
    const people: Journeys = {
      person1: [movie(0)],
      person2: [movie(0), movie(1), movie(1)],
      person3a: [at("$create_alias", after(0, period), { alias: "person3b" }), movie(0), movie(2)],
      person3b: [movie(1)],
      person4: [movie(4, "Safari")],
    };
    for (const [id, events] of Object.entries(journeys)) people[id] = [...(people[id] ?? []), ...events];
    await captureJourneys(token, people, {
      person1: { name: "person1" },
      person2: { name: "person2" },
      person3a: { name: "person3" },
      person4: { name: "person4" },
      ...properties,
    });
  }

  /** The `"watched movie"` series of most tests. */
  const MOVIE = ev("watched movie");
  /** The range of most tests (frozen at 2020-01-08 13:01:01). */
  const WEEK = range("2020-01-01", "2020-01-08");

  /** `date_from: all` with no `date_to`, frozen at 2020-01-08 13:01:01. */
  const ALL_TO_JAN_8 = range("all", "2020-01-08");

  /** PostHog's checks of most tests: count, then labels and data at slots 1, 2, 3 and 7. */
  function expectFirstSlots(result: Series, unit: string, count: number, data: [number, number, number, number]) {
    expect(result.count).toBe(count);
    const checked = [0, 1, 2, 6];
    expect(checked.map((i) => [result.labels[i], result.data[i]])).toEqual(
      checked.map((i, k) => [`${i + 1} ${unit}${i === 0 ? "" : "s"}`, data[k]]),
    );
  }

  agrees("test_stickiness", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [result] = await stickiness(project.id, { series: [MOVIE], dateRange: WEEK });
    expectFirstSlots(result, "day", 4, [2, 1, 1, 0]);
  });

  // PostHog overrides person1's person id with person2's (person-on-events v2); here person2 merges
  // person1 (`$merge_dangerously`, an event of another name): one person active on 1 and 2 Jan.
  agrees("test_stickiness_with_person_on_events_v2", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token, "day", {
      person2: [at("$merge_dangerously", "2020-01-02T13:00:00Z", { alias: "person1" })],
    });
    const [result] = await stickiness(project.id, { series: [MOVIE], dateRange: WEEK });
    expectFirstSlots(result, "day", 3, [1, 1, 1, 0]);
  });

  // `all` runs from the first event's day (1 Jan) to now, frozen at 2020-01-08 13:01:01: written
  // with that day as `date_to` (to the real now it would be thousands of days, past edgehog's 2000
  // periods).
  agrees("test_stickiness_all_time", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [result] = await stickiness(project.id, { series: [MOVIE], dateRange: ALL_TO_JAN_8 });
    expectFirstSlots(result, "day", 4, [2, 1, 1, 0]);
  });

  agrees("test_stickiness_hours", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token, "hour");
    const [result] = await stickiness(project.id, {
      series: [MOVIE],
      dateRange: range("2020-01-01T12:00:00.00Z", "2020-01-01T20:00:00.00Z"),
      interval: "hour",
    });
    expectFirstSlots(result, "hour", 4, [2, 1, 1, 0]);
  });

  agrees("test_stickiness_weeks", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token, "week");
    const [result] = await stickiness(project.id, {
      series: [MOVIE],
      dateRange: range("2020-01-01", "2020-02-15"),
      interval: "week",
    });
    expectFirstSlots(result, "week", 4, [2, 1, 1, 0]);
  });

  agrees("test_stickiness_months", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token, "month");
    const [result] = await stickiness(project.id, {
      series: [MOVIE],
      dateRange: range("2020-01-01", "2020-09-08"),
      interval: "month",
    });
    expectFirstSlots(result, "month", 4, [2, 1, 1, 0]);
  });

  // A global event property filter leaves out person4 (Safari).
  agrees("test_stickiness_prop_filter", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [result] = await stickiness(project.id, {
      series: [MOVIE],
      dateRange: WEEK,
      properties: [{ key: "$browser", value: "Chrome" }],
    });
    expectFirstSlots(result, "day", 3, [1, 1, 1, 0]);
  });

  notExpressible("test_stickiness_hogql_filter", "HogQL property filters");

  // The same filter on the series.
  agrees("test_stickiness_entity_filter", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [result] = await stickiness(project.id, {
      series: [ev("watched movie", { properties: [{ key: "$browser", value: "Chrome" }] })],
      dateRange: WEEK,
    });
    expectFirstSlots(result, "day", 3, [1, 1, 1, 0]);
  });

  // All events (`event: null`): the `$create_alias` is on a day person3 is active anyway.
  agrees("test_stickiness_any_event", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [result] = await stickiness(project.id, { series: [ev(null)], dateRange: WEEK });
    expectFirstSlots(result, "day", 4, [2, 1, 1, 0]);
  });

  // A person property filter on the series: only person1.
  agrees("test_stickiness_entity_person_filter", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [result] = await stickiness(project.id, {
      series: [
        ev("watched movie", {
          properties: [{ key: "name", value: ["person1"], operator: "exact", type: "person" }],
        }),
      ],
      dateRange: WEEK,
    });
    expectFirstSlots(result, "day", 1, [1, 0, 0, 0]);
  });

  notExpressible("test_stickiness_action", "actions");

  // Not frozen in PostHog: an absolute range, `compare` with the previous 8 days (24–31 Dec, no events).
  agrees("test_compare", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [current, previous] = await stickiness(project.id, {
      series: [ev("watched movie", { math: "dau", name: "watched movie", properties: [] })],
      dateRange: WEEK,
      interval: "day",
      properties: [],
      compareFilter: { compare: true },
      stickinessFilter: { display: "ActionsLineGraph" },
    });
    expect(current.data).toEqual([2, 1, 1, 0, 0, 0, 0, 0]);
    expect(previous.data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(current.compare_label).toBe("current");
    expect(previous.compare_label).toBe("previous");
  });

  // PostHog's test team filters out persons whose email contains the team's domain (its default
  // test-account filter for a user1@posthog.com): "ph" (test@posthog.com) is left out.
  agrees("test_filter_test_accounts", async () => {
    const project = await createProject();
    await patchProject(project.id, {
      test_account_filters: [{ key: "email", value: "@posthog.com", operator: "not_icontains", type: "person" }],
    });
    await createMultiplePeople(
      project.api_token,
      "day",
      { ph: [at("watched movie", after(0, "day"), { $browser: "Chrome" })] },
      { ph: { email: "test@posthog.com" } },
    );
    const [result] = await stickiness(project.id, { series: [MOVIE], dateRange: WEEK, filterTestAccounts: true });
    expectFirstSlots(result, "day", 4, [2, 1, 1, 0]);
  });

  // `sampling_factor: 1` reads every event (as the trends replay's `samplingFactor: 1` cases).
  agrees("test_stickiness_all_time_with_sampling", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [result] = await stickiness(project.id, {
      series: [MOVIE],
      dateRange: ALL_TO_JAN_8,
      samplingFactor: 1,
    });
    expectFirstSlots(result, "day", 4, [2, 1, 1, 0]);
  });
});

conformance({ name: "PostHog stickiness tests (test_stickiness_query_runner.py)", version: "14f7fdcf82" }, () => {
  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py: StickinessQuery
  // over `$pageview` by day, 2020-01-11 to 2020-01-20 unless the test says otherwise. Its actors tests
  // (test_actor_query_cumulative, test_actor_query_non_cumulative, test_actor_query_with_operator,
  // and the actors half of test_interval_2_day_filtering) are replayed in posthog-stickiness-persons.test.ts.

  interface TestPerson {
    events: [event: string, timestamps: string[]][];
    properties: Record<string, unknown>;
  }

  /**
   * `_create_events(data)`: each person (`name` = its distinct id, and `email: test@posthog.com`
   * for p1) with its events, every event carrying the person's `properties` as event properties.
   */
  async function createEvents(token: string, data: Record<string, TestPerson>) {
    const journeys: Journeys = {};
    for (const [id, { events, properties }] of Object.entries(data))
      journeys[id] = events.flatMap(([event, times]) => times.map((t) => at(event, t, { ...properties })));
    const people = Object.fromEntries(
      Object.keys(data).map((id) => [id, { name: id, ...(id === "p1" ? { email: "test@posthog.com" } : {}) }]),
    );
    await captureJourneys(token, journeys, people);
  }

  /** `2020-01-DDT12:00:00Z` for each day given. */
  const noon = (...days: number[]) => days.map((d) => `2020-01-${String(d).padStart(2, "0")}T12:00:00Z`);

  /**
   * `_create_test_events()`: p1 ($browser Chrome) with a `$pageview` and a `$pageleave` every day
   * 11–19 Jan (9 days); p2 (Firefox) with both on 11, 13, 15, 17, 19 Jan (5 days).
   */
  async function createTestEvents(token: string) {
    const days9 = noon(11, 12, 13, 14, 15, 16, 17, 18, 19);
    const days5 = noon(11, 13, 15, 17, 19);
    await createEvents(token, {
      p1: {
        events: [
          ["$pageview", days9],
          ["$pageleave", days9],
        ],
        properties: { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:1" },
      },
      p2: {
        events: [
          ["$pageview", days5],
          ["$pageleave", days5],
        ],
        properties: { $browser: "Firefox", prop: 10, bool_field: false, $group_0: "org:1" },
      },
    });
  }

  /** The three persons of test_cumulative_stickiness (and of the actors tests): p1 active on 11–13 Jan, p2 on 11–12, p3 on 11. */
  const THREE_PERSONS: Record<string, TestPerson> = {
    p1: { events: [["$pageview", noon(11, 12, 13)]], properties: {} },
    p2: { events: [["$pageview", noon(11, 12)]], properties: {} },
    p3: { events: [["$pageview", noon(11)]], properties: {} },
  };

  /** `_get_query(...)`: `$pageview` by day over the default range, with the test's fields over it. */
  const query = (fields: Record<string, unknown> = {}) => ({
    series: [ev("$pageview")],
    dateRange: range("2020-01-11", "2020-01-20"),
    interval: "day",
    ...fields,
  });

  /** A project with `_create_test_events()`, and the first result of `query(fields)`. */
  async function testEventsResult(fields: Record<string, unknown> = {}) {
    const project = await createProject();
    await createTestEvents(project.api_token);
    const [result] = await stickiness(project.id, query(fields));
    return result;
  }

  /** p1's 9 days and p2's 5 over the default 10-day range. */
  const NINE_AND_FIVE = [0, 0, 0, 0, 1, 0, 0, 0, 1, 0];
  /** Only p1 (Chrome), 9 days. */
  const CHROME_ONLY = [0, 0, 0, 0, 0, 0, 0, 0, 1, 0];

  agrees("test_stickiness_runs", async () => {
    const project = await createProject();
    await createTestEvents(project.api_token);
    const results = await stickiness(project.id, query());
    expect(Array.isArray(results)).toBe(true);
    expect(typeof results[0]).toBe("object");
  });

  notExpressible("test_stickiness_runs_with_poe", "person-on-events mode (an instance setting)");
  notExpressible("test_stickiness_data_warehouse", "data warehouse");
  notExpressible("test_stickiness_data_warehouse_with_entity_property_filter", "data warehouse");

  agrees("test_days", async () => {
    expect((await testEventsResult()).days).toEqual(slots(10));
  });

  agrees("test_count", async () => {
    expect((await testEventsResult()).count).toBe(2);
  });

  agrees("test_labels", async () => {
    const result = await testEventsResult();
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(labelsOf("day", 10));
  });

  // An absolute date_to with the hour interval is its first moment: 25 hours, each person active in one.
  agrees("test_interval_hour", async () => {
    const result = await testEventsResult({ interval: "hour", dateRange: range("2020-01-11", "2020-01-12") });
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(labelsOf("hour", 25));
    expect(result.days).toEqual(slots(25));
    expect(result.data).toEqual([2, ...Array(24).fill(0)]);
  });

  // `-2d` to now (the end of the current hour) frozen at 2020-01-20 12:00: 18 Jan 00:00 to 20 Jan
  // 12:59:59, 61 hours. p2 is active in one (19 Jan 12:00), p1 in two (18 and 19 Jan 12:00).
  agrees("test_interval_hour_last_days", async () => {
    const result = await testEventsResult({
      interval: "hour",
      dateRange: range("2020-01-18", "2020-01-20 12:59:59"),
    });
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(labelsOf("hour", 61));
    expect(result.days).toEqual(slots(61));
    expect(result.data).toEqual([1, 1, ...Array(59).fill(0)]);
  });

  agrees("test_interval_day", async () => {
    const result = await testEventsResult({ interval: "day" });
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(labelsOf("day", 10));
    expect(result.days).toEqual(slots(10));
    expect(result.data).toEqual(NINE_AND_FIVE);
  });

  // Two-day units counted back from 20 Jan: five of them, both persons active in all five.
  agrees("test_interval_2_day", async () => {
    const result = await testEventsResult({ interval: "day", intervalCount: 2 });
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(labelsOf("day", 5));
    expect(result.days).toEqual(slots(5));
    expect(result.data).toEqual([0, 0, 0, 0, 2]);
  });

  // p1 every day 11–19 Jan (five units), p2 on 11, 13, 15 Jan (three units). The test's actors half
  // (StickinessActorsQuery) is in posthog-stickiness-persons.test.ts.
  agrees("test_interval_2_day_filtering", async () => {
    const project = await createProject();
    await createEvents(project.api_token, {
      p1: {
        events: [["$pageview", noon(11, 12, 13, 14, 15, 16, 17, 18, 19)]],
        properties: { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:1" },
      },
      p2: {
        events: [["$pageview", noon(11, 13, 15)]],
        properties: { $browser: "Firefox", prop: 10, bool_field: false, $group_0: "org:1" },
      },
    });
    const [result] = await stickiness(project.id, query({ interval: "day", intervalCount: 2 }));
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(labelsOf("day", 5));
    expect(result.days).toEqual(slots(5));
    expect(result.data).toEqual([0, 0, 1, 0, 1]);
  });

  // Weeks from Sunday: those of 5, 12 and 19 Jan.
  agrees("test_interval_week", async () => {
    const result = await testEventsResult({ interval: "week" });
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(labelsOf("week", 3));
    expect(result.days).toEqual(slots(3));
    expect(result.data).toEqual([0, 0, 2]);
  });

  // `-30d` to now frozen at 2020-01-23 12:00: 24 Dec 2019 to 23 Jan 2020, the weeks of 22 Dec … 19 Jan.
  agrees("test_interval_full_weeks", async () => {
    const result = await testEventsResult({ interval: "week", dateRange: range("2019-12-24", "2020-01-23") });
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(labelsOf("week", 5));
    expect(result.days).toEqual(slots(5));
    expect(result.data).toEqual([0, 0, 2, 0, 0]);
  });

  agrees("test_interval_month", async () => {
    const result = await testEventsResult({ interval: "month" });
    expect(result.label).toBe("$pageview");
    expect(result.labels).toEqual(["1 month"]);
    expect(result.days).toEqual([1]);
    expect(result.data).toEqual([2]);
  });

  agrees("test_property_filtering", async () => {
    const result = await testEventsResult({
      properties: [{ key: "$browser", operator: "exact", value: "Chrome", type: "event" }],
    });
    expect(result.data).toEqual(CHROME_ONLY);
  });

  notExpressible("test_property_filtering_hogql", "HogQL property filters");

  agrees("test_event_filtering", async () => {
    const result = await testEventsResult({
      series: [
        ev("$pageview", { properties: [{ key: "$browser", operator: "exact", value: "Chrome", type: "event" }] }),
      ],
    });
    expect(result.data).toEqual(CHROME_ONLY);
  });

  // All events: `$pageleave` falls on the same days as `$pageview`.
  agrees("test_any_event", async () => {
    const result = await testEventsResult({ series: [ev(null)] });
    expect(result.label).toBe("All events");
    expect(result.data).toEqual(NINE_AND_FIVE);
  });

  notExpressible("test_actions", "actions");

  // The previous period (1–10 Jan) has no events.
  agrees("test_compare", async () => {
    const project = await createProject();
    await createTestEvents(project.api_token);
    const [current, previous] = await stickiness(
      project.id,
      query({ stickinessFilter: {}, compareFilter: { compare: true } }),
    );
    expect([current.count, current.compare_label]).toEqual([2, "current"]);
    expect([previous.count, previous.compare_label]).toEqual([0, "previous"]);
  });

  // 12–20 Jan against 11–19 Jan: p1 8 days then 9, p2 4 then 5.
  agrees("test_compare_to", async () => {
    const project = await createProject();
    await createTestEvents(project.api_token);
    const [current, previous] = await stickiness(
      project.id,
      query({
        dateRange: range("2020-01-12", "2020-01-20"),
        stickinessFilter: {},
        compareFilter: { compare: true, compare_to: "-1d" },
      }),
    );
    expect([current.count, current.compare_label, current.data]).toEqual([2, "current", [0, 0, 0, 1, 0, 0, 0, 1, 0]]);
    expect([previous.count, previous.compare_label, previous.data]).toEqual([
      2,
      "previous",
      [0, 0, 0, 0, 1, 0, 0, 0, 1],
    ]);
  });

  // Days counted only when their number of events meets the criteria: p1 has 2 events on 11, 13
  // and 15 Jan, 3 on 17 Jan, 1 on 19 Jan; p2 has 2 on 12 and 13 Jan, 1 on 19 Jan.
  agrees("test_criteria", async () => {
    const project = await createProject();
    const chrome = { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:1" };
    await createEvents(project.api_token, {
      p1: { events: [["$pageview", noon(11, 11, 13, 13, 15, 15, 17, 17, 17, 19)]], properties: chrome },
      p2: { events: [["$pageview", noon(12, 12, 13, 13, 19)]], properties: chrome },
    });
    const criteria = async (from: string, operator: string, value: number) => {
      const [result] = await stickiness(
        project.id,
        query({
          dateRange: range(from, "2020-01-20"),
          stickinessFilter: { stickinessCriteria: { operator, value } },
        }),
      );
      return [result.count, result.data];
    };
    expect(await criteria("2020-01-12", "gte", 2)).toEqual([2, [0, 1, 1, 0, 0, 0, 0, 0, 0]]);
    expect(await criteria("2020-01-12", "lte", 1)).toEqual([2, [2, 0, 0, 0, 0, 0, 0, 0, 0]]);
    expect(await criteria("2020-01-11", "exact", 2)).toEqual([2, [0, 1, 1, 0, 0, 0, 0, 0, 0, 0]]);
  });

  // The test-account filter is an event property: only p1's (Chrome) events are left.
  agrees("test_filter_test_accounts", async () => {
    const project = await createProject();
    await patchProject(project.id, {
      test_account_filters: [{ key: "$browser", type: "event", value: "Chrome", operator: "exact" }],
    });
    await createTestEvents(project.api_token);
    const [result] = await stickiness(project.id, query({ filterTestAccounts: true }));
    expect(result.data).toEqual(CHROME_ONLY);
  });

  notExpressible("test_group_aggregations", "group aggregation");
  notExpressible("test_hogql_aggregations", "HogQL math");
  notExpressible("test_limit_is_context_aware", "HogQL internals (the execution time limit of an async query)");

  const CUMULATIVE = { computedAs: "cumulative" };

  agrees("test_cumulative_stickiness", async () => {
    const project = await createProject();
    await createEvents(project.api_token, THREE_PERSONS);
    const [result] = await stickiness(
      project.id,
      query({ dateRange: range("2020-01-11", "2020-01-13"), stickinessFilter: CUMULATIVE }),
    );
    expect(result.data).toEqual([3, 2, 1]);
    expect(result.count).toBe(3);
    expect(result.labels).toEqual(labelsOf("day", 3, true));
  });

  // Hours 12, 13 and 14 of 11 Jan: p1 active in three, p2 in two.
  agrees("test_cumulative_stickiness_with_intervals", async () => {
    const project = await createProject();
    await createEvents(project.api_token, {
      p1: {
        events: [["$pageview", ["2020-01-11T12:00:00Z", "2020-01-11T13:00:00Z", "2020-01-11T14:00:00Z"]]],
        properties: {},
      },
      p2: { events: [["$pageview", ["2020-01-11T12:00:00Z", "2020-01-11T13:00:00Z"]]], properties: {} },
    });
    const [result] = await stickiness(
      project.id,
      query({
        dateRange: range("2020-01-11T12:00:00Z", "2020-01-11T14:00:00Z"),
        interval: "hour",
        stickinessFilter: CUMULATIVE,
      }),
    );
    expect(result.data).toEqual([2, 2, 1]);
    expect(result.labels).toEqual(labelsOf("hour", 3, true));
  });

  agrees("test_cumulative_stickiness_with_property_filter", async () => {
    const project = await createProject();
    await createEvents(project.api_token, {
      p1: { events: [["$pageview", noon(11, 12, 13)]], properties: { browser: "Chrome" } },
      p2: { events: [["$pageview", noon(11, 12)]], properties: { browser: "Safari" } },
    });
    const [result] = await stickiness(
      project.id,
      query({
        dateRange: range("2020-01-11", "2020-01-13"),
        properties: [{ key: "browser", value: "Chrome", operator: "exact", type: "event" }],
        stickinessFilter: CUMULATIVE,
      }),
    );
    expect(result.data).toEqual([1, 1, 1]);
    expect(result.labels).toEqual(labelsOf("day", 3, true));
  });

  // No events at all: one result with every slot at 0.
  agrees("test_cumulative_stickiness_zero_days", async () => {
    const project = await createProject();
    const [result] = await stickiness(
      project.id,
      query({ dateRange: range("2020-01-11", "2020-01-13"), stickinessFilter: CUMULATIVE }),
    );
    expect(result.data).toEqual([0, 0, 0]);
    expect(result.labels).toEqual(labelsOf("day", 3, true));
  });

  // Days with 2 or more events: p1 two (11, 12 Jan), p2 one (11 Jan), p3 none (not counted).
  agrees("test_cumulative_stickiness_with_criteria", async () => {
    const project = await createProject();
    await createEvents(project.api_token, {
      p1: { events: [["$pageview", noon(11, 11, 12, 12, 13)]], properties: {} },
      p2: { events: [["$pageview", noon(11, 11, 12)]], properties: {} },
      p3: { events: [["$pageview", noon(11)]], properties: {} },
    });
    const [result] = await stickiness(
      project.id,
      query({
        dateRange: range("2020-01-11", "2020-01-13"),
        stickinessFilter: { ...CUMULATIVE, stickinessCriteria: { operator: "gte", value: 2 } },
      }),
    );
    expect(result.data).toEqual([2, 1, 0]);
    expect(result.labels).toEqual(labelsOf("day", 3, true));
  });
});
