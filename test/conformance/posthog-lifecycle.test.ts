import { expect } from "vitest";
import { call, createProject } from "../helpers";
import { at, captureJourneys, FOUR_PERSONS, type Journeys, namesOf } from "./analysis-helpers";
import { dayDates, dayLabels, ev, range } from "./trends-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's lifecycle insight tests, replayed as LifecycleQuery through
 * `POST /api/environments/:project_id/query/`: the filter-based suite (posthog/queries/test/test_lifecycle.py,
 * whose filters PostHog's filter_to_query turns into the LifecycleQuery written here: `events` → `series`,
 * `date_from`/`date_to` → `dateRange`, `properties`, `filter_test_accounts` → `filterTestAccounts`) and the
 * query-native one (posthog/hogql_queries/insights/lifecycle/test/test_lifecycle_query_runner.py).
 *
 * Data goes in through `POST /batch/`. PostHog's fixtures create each person frozen at its first event
 * (`with freeze_time(timestamps[0]): _create_person(...)`); edgehog creates a person at the first event
 * captured for it, so its `created_at` is the same (the lifecycle persons replay relies on this too). A
 * person with two distinct ids is linked by a `$create_alias` at the time PostHog creates it. Each case has
 * its own project; time zone and week start are the project's, set through the API. Where a test freezes
 * "now" and asks about a range ending then, the range is written with that absolute end.
 */

type Status = "new" | "returning" | "resurrecting" | "dormant";
type Result = Record<string, any>;

/** `date_from`/`date_to` of most of the tests: eight day buckets, 12 to 19 January 2020. */
const JAN_12_TO_19 = range("2020-01-12T00:00:00Z", "2020-01-19T00:00:00Z");

/** What FOUR_PERSONS gives over JAN_12_TO_19 (test_lifecycle_trend and the many tests sharing its data). */
const FOUR_PERSONS_TREND: Record<Status, number[]> = {
  new: [1, 0, 0, 1, 0, 0, 0, 0],
  returning: [1, 1, 0, 0, 0, 0, 0, 0],
  resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
  dormant: [0, -2, -1, 0, -2, 0, -1, 0],
};

/** Only p1 of FOUR_PERSONS (created on the 11th) over JAN_12_TO_19: what the property filters leave. */
const P1_ONLY_TREND: Record<Status, number[]> = {
  new: [0, 0, 0, 0, 0, 0, 0, 0],
  returning: [1, 1, 0, 0, 0, 0, 0, 0],
  resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
  dormant: [0, 0, -1, 0, -1, 0, -1, 0],
};

/** FOUR_PERSONS without p1 (the test account) over JAN_12_TO_19. */
const WITHOUT_P1_TREND: Record<Status, number[]> = {
  new: [1, 0, 0, 1, 0, 0, 0, 0],
  returning: [0, 0, 0, 0, 0, 0, 0, 0],
  resurrecting: [1, 0, 0, 0, 0, 0, 0, 0],
  dormant: [0, -2, 0, 0, -1, 0, 0, 0],
};

/** The data of the week tests (February and March 2020). */
const WEEKS_DATA: [string, string[]][] = [
  [
    "p1",
    [
      "2020-02-01T12:00:00Z",
      "2020-02-05T12:00:00Z",
      "2020-02-10T12:00:00Z",
      "2020-02-15T12:00:00Z",
      "2020-02-27T12:00:00Z",
      "2020-03-02T12:00:00Z",
    ],
  ],
  ["p2", ["2020-02-11T12:00:00Z", "2020-02-18T12:00:00Z"]],
  ["p3", ["2020-02-12T12:00:00Z"]],
  ["p4", ["2020-02-27T12:00:00Z"]],
];

const WEEKS_TREND: Record<Status, number[]> = {
  new: [0, 2, 0, 1, 0, 0],
  returning: [1, 1, 1, 0, 1, 0],
  resurrecting: [0, 0, 0, 1, 0, 0],
  dormant: [0, 0, -2, -1, -1, -1],
};

/** The data of the month tests (December 2019 to September 2020). */
const MONTHS_DATA: [string, string[]][] = [
  [
    "p1",
    [
      "2020-01-11T12:00:00Z",
      "2020-02-12T12:00:00Z",
      "2020-03-13T12:00:00Z",
      "2020-05-15T12:00:00Z",
      "2020-07-17T12:00:00Z",
      "2020-09-19T12:00:00Z",
    ],
  ],
  ["p2", ["2019-12-09T12:00:00Z", "2020-02-12T12:00:00Z"]],
  ["p3", ["2020-02-12T12:00:00Z"]],
  ["p4", ["2020-05-15T12:00:00Z"]],
];

/** The test team's test account filter: persons whose email contains @posthog.com (p1) are left out. */
const TEST_ACCOUNT_FILTERS = [{ key: "email", value: "@posthog.com", operator: "not_icontains", type: "person" }];

/** Runs a LifecycleQuery; returns the raw response. */
function lifecycleCall(projectId: number, query: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return call(`/api/environments/${projectId}/query/`, {
    method: "POST",
    body: { query: { kind: "LifecycleQuery", ...query }, ...extra },
  });
}

/** Runs a LifecycleQuery (200 expected) and returns its result objects. */
async function lifecycle(projectId: number, query: Record<string, unknown>): Promise<Result[]> {
  const res = await lifecycleCall(projectId, query);
  expect(res.status, res.text).toBe(200);
  return res.json.results as Result[];
}

/** PostHog's `assertLifecycleResults`: each status's data, whatever the order of the results. */
function expectLifecycle(results: Result[], expected: Record<Status, number[]>) {
  expect(results).toHaveLength(4);
  expect(Object.fromEntries(results.map((r) => [r.status, r.data]))).toEqual(expected);
}

async function patchProject(projectId: number, body: Record<string, unknown>) {
  const res = await call(`/api/projects/${projectId}/`, { method: "PATCH", body });
  expect(res.status, res.text).toBe(200);
}

/** PostHog's `_create_events(data, event)`: one person per distinct id, created at its first event, `event` at each timestamp. */
function journeysOf(data: [string, string[]][], event = "$pageview"): Journeys {
  return Object.fromEntries(data.map(([id, timestamps]) => [id, timestamps.map((t) => at(event, t))]));
}

/** A project (in `timezone`, UTC by default) holding `_create_events(data)`. */
async function projectWith(data: [string, string[]][], timezone?: string) {
  const project = await createProject(undefined, timezone);
  await captureJourneys(project.api_token, journeysOf(data), namesOf(data));
  return project.id;
}

/** `test_lifecycle_trend`: FOUR_PERSONS over 12–19 January. */
async function fourPersonsTrend(interval?: string) {
  const projectId = await projectWith(FOUR_PERSONS);
  const results = await lifecycle(projectId, { series: [ev("$pageview")], dateRange: JAN_12_TO_19, interval });
  expectLifecycle(results, FOUR_PERSONS_TREND);
  return results;
}

/** `test_lifecycle_trend_any_event` / `_all_events`: p1 and p2 with `$pageview`, p3 and p4 with `$other`, all events asked. */
async function allEventsTrend(interval?: string) {
  const project = await createProject();
  const [p1, p2, p3, p4] = FOUR_PERSONS;
  await captureJourneys(project.api_token, journeysOf([p1, p2]), namesOf([p1, p2]));
  await captureJourneys(project.api_token, journeysOf([p3, p4], "$other"), namesOf([p3, p4]));
  const results = await lifecycle(project.id, { series: [ev(null)], dateRange: JAN_12_TO_19, interval });
  expectLifecycle(results, FOUR_PERSONS_TREND);
  return results;
}

/**
 * The property filtering tests' data: FOUR_PERSONS' pageviews, p1's with `$number: 1`, persons named
 * (PostHog creates them at the unfrozen "now", after every event: none is new in the range either way).
 */
async function numberedProject() {
  const project = await createProject();
  const journeys = journeysOf(FOUR_PERSONS);
  journeys.p1 = journeys.p1.map((e) => ({ ...e, properties: { $number: 1 } }));
  const names = Object.fromEntries(FOUR_PERSONS.map(([id]) => [id, { name: id }]));
  await captureJourneys(project.api_token, journeys, names);
  return project.id;
}

/** `$number` is 1, globally then on the series: only p1's events. */
async function propFiltering(value: number | string, interval?: string) {
  const projectId = await numberedProject();
  const filter = [{ key: "$number", value, operator: "exact", type: "event" }];
  const global = await lifecycle(projectId, {
    series: [ev("$pageview")],
    dateRange: JAN_12_TO_19,
    interval,
    properties: filter,
  });
  expectLifecycle(global, P1_ONLY_TREND);
  const onSeries = await lifecycle(projectId, {
    series: [ev("$pageview", { properties: filter })],
    dateRange: JAN_12_TO_19,
    interval,
  });
  expectLifecycle(onSeries, P1_ONLY_TREND);
}

/** The person's `name` is p1, on the series: only p1's events. */
async function personPropFiltering(interval?: string) {
  const projectId = await numberedProject();
  const results = await lifecycle(projectId, {
    series: [ev("$pageview", { properties: [{ key: "name", value: "p1", operator: "exact", type: "person" }] })],
    dateRange: JAN_12_TO_19,
    interval,
  });
  expectLifecycle(results, P1_ONLY_TREND);
}

/** One person (created 12 January 12:00) with the distinct ids p1 and another_p1, active through both. */
async function distinctIdRepeat(interval?: string) {
  const project = await createProject();
  const created = "2020-01-12T12:00:00Z";
  await captureJourneys(
    project.api_token,
    {
      p1: [
        at("$pageview", created),
        at("$create_alias", created, { alias: "another_p1" }),
        at("$pageview", "2020-01-15T12:00:00Z"),
        at("$pageview", "2020-01-17T12:00:00Z"),
        at("$pageview", "2020-01-19T12:00:00Z"),
      ],
      another_p1: [at("$pageview", "2020-01-14T12:00:00Z")],
    },
    { p1: { name: "p1" } },
  );
  const results = await lifecycle(project.id, { series: [ev("$pageview")], dateRange: JAN_12_TO_19, interval });
  expectLifecycle(results, {
    new: [1, 0, 0, 0, 0, 0, 0, 0],
    returning: [0, 0, 0, 1, 0, 0, 0, 0],
    resurrecting: [0, 0, 1, 0, 0, 1, 0, 1],
    dormant: [0, -1, 0, 0, -1, 0, -1, 0],
  });
}

/**
 * `date_from: "all"` with "now" frozen at 2020-01-17 13:01: from the project's first event (9 January)
 * to the end of the 17th, nine day buckets.
 */
async function allTime(interval?: string) {
  const projectId = await projectWith(FOUR_PERSONS);
  const results = await lifecycle(projectId, {
    series: [ev("$pageview")],
    dateRange: range("all", "2020-01-17"),
    interval,
  });
  expectLifecycle(results, {
    new: [1, 0, 1, 1, 0, 0, 1, 0, 0],
    returning: [0, 0, 0, 1, 1, 0, 0, 0, 0],
    resurrecting: [0, 0, 0, 1, 0, 0, 1, 0, 1],
    dormant: [0, -1, 0, 0, -2, -1, 0, -2, 0],
  });
}

/** Weekly from Wednesday 5 February to 9 March, weeks starting on `weekStartDay` (0 Sunday, 1 Monday). */
async function weeks(weekStartDay: 0 | 1, days: string[]) {
  const projectId = await projectWith(WEEKS_DATA);
  await patchProject(projectId, { week_start_day: weekStartDay });
  const results = await lifecycle(projectId, {
    series: [ev("$pageview")],
    dateRange: range("2020-02-05T00:00:00Z", "2020-03-09T00:00:00Z"),
    interval: "week",
  });
  expect(results[0].days).toEqual(days);
  expectLifecycle(results, WEEKS_TREND);
}

/** Monthly from February to September 2020: the same shape as the daily FOUR_PERSONS_TREND. */
async function months() {
  const projectId = await projectWith(MONTHS_DATA);
  const results = await lifecycle(projectId, {
    series: [ev("$pageview")],
    dateRange: range("2020-02-01T00:00:00Z", "2020-09-01T00:00:00Z"),
    interval: "month",
  });
  expectLifecycle(results, FOUR_PERSONS_TREND);
}

/** `filterTestAccounts` with the test team's filter leaves p1 (email test@posthog.com) out. */
async function filterTestAccounts(interval?: string) {
  const projectId = await projectWith(FOUR_PERSONS);
  await patchProject(projectId, { test_account_filters: TEST_ACCOUNT_FILTERS });
  const results = await lifecycle(projectId, {
    series: [ev("$pageview")],
    dateRange: JAN_12_TO_19,
    interval,
    filterTestAccounts: true,
  });
  expectLifecycle(results, WITHOUT_P1_TREND);
}

/**
 * FOUR_PERSONS with p1's first two events at 23:00 on the 11th and 01:00 on the 12th (UTC): in UTC the
 * usual trend; the project then moved to US/Pacific, where both fall on the 11th.
 */
async function timezones(interval?: string) {
  const [[, p1Times], ...others] = FOUR_PERSONS;
  const data: [string, string[]][] = [
    ["p1", ["2020-01-11T23:00:00Z", "2020-01-12T01:00:00Z", ...p1Times.slice(2)]],
    ...others,
  ];
  const projectId = await projectWith(data, "UTC");
  const query = { series: [ev("$pageview")], dateRange: range("2020-01-12", "2020-01-19"), interval };
  expectLifecycle(await lifecycle(projectId, query), FOUR_PERSONS_TREND);

  await patchProject(projectId, { timezone: "US/Pacific" });
  expectLifecycle(await lifecycle(projectId, query), {
    new: [1, 0, 0, 1, 0, 0, 0, 0],
    returning: [0, 0, 0, 0, 0, 0, 0, 0],
    resurrecting: [1, 1, 0, 1, 0, 1, 0, 1],
    dormant: [-1, -2, -1, 0, -2, 0, -1, 0],
  });
}

conformance({ name: "PostHog lifecycle tests (test_lifecycle.py)", version: "0c09c3fc95" }, () => {
  // posthog/queries/test/test_lifecycle.py. Its filters have no `interval` (day, the default). Its
  // test_lifecycle_trend_people and test_lifecycle_trend_people_paginated (and the get_people part of
  // test_filter_test_accounts) ask the persons drill-down: posthog-lifecycle-persons.test.ts replays them.

  agrees("test_lifecycle_trend", async () => {
    await fourPersonsTrend();
  });

  // `events: [{id: null}]`: every event, `$pageview` or `$other`.
  agrees("test_lifecycle_trend_any_event", async () => {
    await allEventsTrend();
  });

  notExpressible("test_lifecycle_trend_with_zero_person_ids", "events with the zero person id (person-on-events only)");

  // `properties: [{key: "$number", value: 1}]` (an event property, exact), then the same on the series.
  agrees("test_lifecycle_trend_prop_filtering", () => propFiltering(1));

  agrees("test_lifecycle_trend_person_prop_filtering", () => personPropFiltering());

  agrees("test_lifecycle_trends_distinct_id_repeat", () => distinctIdRepeat());

  notExpressible("test_lifecycle_trend_action", "actions");

  agrees("test_lifecycle_trend_all_time", () => allTime());

  // The days it asserts are Mondays: the filter-based lifecycle started weeks on Monday. Replayed on a
  // project whose week starts on Monday (what test_lifecycle_query_runner.py's _weeks_monday pins too).
  agrees("test_lifecycle_trend_weeks", () =>
    weeks(1, ["2020-02-03", "2020-02-10", "2020-02-17", "2020-02-24", "2020-03-02", "2020-03-09"]),
  );

  agrees("test_lifecycle_trend_months", () => months());

  agrees("test_filter_test_accounts", () => filterTestAccounts());

  agrees("test_timezones", () => timezones());

  notExpressible("test_sampling", "sampling (samplingFactor)");
});

conformance({ name: "PostHog lifecycle tests (test_lifecycle_query_runner.py)", version: "30d5d25f59" }, () => {
  // posthog/hogql_queries/insights/lifecycle/test/test_lifecycle_query_runner.py.

  // TestLifecycleQueryRetentionGroupAggregation.
  notExpressible("test_lifecycle_query_group_0", "group aggregation");
  notExpressible("test_lifecycle_query_group_1", "group aggregation");
  notExpressible("test_lifecycle_query_group_with_different_created_at", "group aggregation");

  // TestLifecycleQueryRunner.
  agrees("test_lifecycle_query_rejects_empty_series", async () => {
    const project = await createProject();
    const res = await lifecycleCall(project.id, {
      series: [],
      dateRange: range("2020-01-09", "2020-01-19"),
      interval: "day",
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.detail).toContain("Lifecycle insights require at least one series.");
  });

  // The whole result objects, in the order new, returning, resurrecting, dormant, 9 to 19 January.
  agrees("test_lifecycle_query_whole_range", async () => {
    const projectId = await projectWith(FOUR_PERSONS);
    const results = await lifecycle(projectId, {
      series: [ev("$pageview")],
      dateRange: range("2020-01-09", "2020-01-19"),
      interval: "day",
    });
    const result = (status: Status, count: number, data: number[]) => ({
      count,
      data,
      days: dayDates("2020-01-09", 11),
      label: `$pageview - ${status}`,
      labels: dayLabels("2020-01-09", 11),
      status,
      action: { id: "$pageview", math: "total", name: "$pageview", order: 0, type: "events" },
    });
    expect(results.map((r) => r.status)).toEqual(["new", "returning", "resurrecting", "dormant"]);
    expect(results).toEqual([
      result("new", 4, [1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0]),
      result("returning", 2, [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]),
      result("resurrecting", 4, [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1]),
      result("dormant", -7, [0, -1, 0, 0, -2, -1, 0, -2, 0, -1, 0]),
    ]);
  });

  notExpressible("test_events_query_whole_range", "the runner's inner events query (HogQL internals)");
  notExpressible("test_events_query_partial_range", "the runner's inner events query (HogQL internals)");

  agrees("test_lifecycle_trend", async () => {
    const results = await fourPersonsTrend("day");
    expect(results[0].label).toBe("$pageview - new");
  });

  agrees("test_lifecycle_trend_all_events", async () => {
    const results = await allEventsTrend("day");
    expect(results[0].label).toBe("All events - new");
  });

  notExpressible("test_lifecycle_trend_with_zero_person_ids", "events with the zero person id (person-on-events only)");

  // `$number` exact "1" (a string against the number 1), globally then on the series.
  agrees("test_lifecycle_trend_prop_filtering", () => propFiltering("1", "day"));

  agrees("test_lifecycle_trend_person_prop_filtering", () => personPropFiltering("day"));

  notExpressible("test_lifecycle_virtual_person_property_hogql_filter", "HogQL property filters");
  notExpressible("test_lifecycle_virtual_person_property_filter", "virtual person properties ($virt_…)");

  agrees("test_lifecycle_trends_distinct_id_repeat", () => distinctIdRepeat("day"));

  notExpressible("test_lifecycle_trend_action", "actions");

  agrees("test_lifecycle_trend_all_time", () => allTime("day"));

  agrees("test_lifecycle_trend_weeks_sunday", () =>
    weeks(0, ["2020-02-02", "2020-02-09", "2020-02-16", "2020-02-23", "2020-03-01", "2020-03-08"]),
  );

  agrees("test_lifecycle_trend_weeks_monday", () =>
    weeks(1, ["2020-02-03", "2020-02-10", "2020-02-17", "2020-02-24", "2020-03-02", "2020-03-09"]),
  );

  agrees("test_lifecycle_trend_months", () => months());

  agrees("test_filter_test_accounts", () => filterTestAccounts("day"));

  agrees("test_timezones", () => timezones("day"));

  notExpressible("test_sampling", "sampling (samplingFactor)");

  // A cohort of the persons whose email is test@posthog.com (p1): the counts of each status.
  agrees("test_cohort_filter", async () => {
    const projectId = await projectWith(FOUR_PERSONS);
    const cohort = await call(`/api/projects/${projectId}/cohorts/`, {
      method: "POST",
      body: {
        name: "test accounts",
        groups: [{ properties: [{ key: "email", value: ["test@posthog.com"], type: "person", operator: "exact" }] }],
      },
    });
    expect(cohort.status, cohort.text).toBe(201);
    const results = await lifecycle(projectId, {
      series: [ev("$pageview")],
      dateRange: JAN_12_TO_19,
      interval: "day",
      properties: [{ type: "cohort", key: "id", value: cohort.json.id }],
    });
    expect(results.map((r) => r.count)).toEqual([0, 2, 3, -3]);
  });

  // p3 and p4 send `$process_person_profile: false`: they have no person and are not counted.
  agrees("test_excludes_personless_events", async () => {
    const project = await createProject();
    const persons: [string, string[]][] = [
      ["p1", ["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z", "2020-01-13T12:00:00Z", "2020-01-14T12:00:00Z"]],
      ["p2", ["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z"]],
    ];
    await captureJourneys(project.api_token, journeysOf(persons), namesOf(persons));
    const personless: Journeys = {
      p3: ["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z", "2020-01-13T12:00:00Z", "2020-01-14T12:00:00Z"].map((t) =>
        at("$pageview", t, { $process_person_profile: false }),
      ),
      p4: ["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z"].map((t) =>
        at("$pageview", t, { $process_person_profile: false }),
      ),
    };
    await captureJourneys(project.api_token, personless);
    const results = await lifecycle(project.id, {
      series: [ev("$pageview")],
      dateRange: range("2020-01-11T00:00:00Z", "2020-01-14T00:00:00Z"),
      interval: "day",
    });
    expect(results[0].data).toEqual([2, 0, 0, 0]); // new
    expect(results[2].data).toEqual([0, 0, 0, 0]); // resurrecting
  });

  // US/Pacific: 2025-03-09T00:00Z is the evening of the 8th; the person is new on the 9th (the day
  // clocks go forward) and dormant on the 10th.
  agrees("test_dormant_on_dst", async () => {
    const projectId = await projectWith([["p1", ["2025-03-09T12:00:00Z"]]], "US/Pacific");
    const results = await lifecycle(projectId, {
      series: [ev("$pageview")],
      dateRange: range("2025-03-09T00:00:00Z", "2025-03-12T00:00:00Z"),
      interval: "day",
    });
    expect(results[0].status).toBe("new");
    expect(results[0].data).toEqual([0, 1, 0, 0]);
    expect(results[0].days).toEqual(["2025-03-08", "2025-03-09", "2025-03-10", "2025-03-11"]);
    expect(results[3].status).toBe("dormant");
    expect(results[3].data).toEqual([0, 0, -1, 0]);
  });

  // A dashboard's breakdown override (the Query API's `filters_override`) is ignored: LifecycleQuery has
  // no breakdown, and the query still answers, as it does without the override.
  agrees("test_dashboard_breakdown_filter_does_not_update_breakdown_filter", async () => {
    const project = await createProject();
    const query = { series: [ev("$pageview")], dateRange: range("2020-01-09", "2020-01-20"), interval: "day" };
    const plain = await lifecycle(project.id, query);
    const res = await lifecycleCall(project.id, query, {
      filters_override: {
        breakdown_filter: { breakdown: "$feature/my-fabulous-feature", breakdown_type: "event", breakdown_limit: 10 },
      },
    });
    expect(res.status, res.text).toBe(200);
    const results = res.json.results as Result[];
    expect(results.map((r) => r.status)).toEqual(["new", "returning", "resurrecting", "dormant"]);
    for (const r of results) expect(r).not.toHaveProperty("breakdown_value");
    expect(results).toEqual(plain);
  });

  notExpressible("test_dashboard_property_filters_are_ignored_for_data_warehouse_series", "data warehouse series");

  // `@parameterized.expand`, "now" frozen at 2020-01-20 (the range ends before it).
  // Weekly from Tuesday 14 January (weeks start on Sunday): the weeks of the 12th and the 19th.
  agrees("test_lifecycle_interval_boundary_filtering_0_week_interval_mid_week", async () => {
    const projectId = await projectWith(FOUR_PERSONS);
    const results = await lifecycle(projectId, {
      series: [ev("$pageview")],
      dateRange: range("2020-01-14", "2020-01-19"),
      interval: "week",
    });
    expect(results.map((r) => r.status)).toEqual(["new", "returning", "resurrecting", "dormant"]);
    expectLifecycle(results, { new: [2, 0], returning: [2, 1], resurrecting: [0, 0], dormant: [0, -3] });
    expect(results[0].days).toEqual(["2020-01-12", "2020-01-19"]);
  });

  // Monthly from 14 January: one bucket, January, in which all four are new.
  agrees("test_lifecycle_interval_boundary_filtering_1_month_interval_mid_month", async () => {
    const projectId = await projectWith(FOUR_PERSONS);
    const results = await lifecycle(projectId, {
      series: [ev("$pageview")],
      dateRange: range("2020-01-14", "2020-01-19"),
      interval: "month",
    });
    expect(results.map((r) => r.status)).toEqual(["new", "returning", "resurrecting", "dormant"]);
    expectLifecycle(results, { new: [4], returning: [0], resurrecting: [0], dormant: [0] });
    expect(results[0].days).toEqual(["2020-01-01"]);
  });
});
