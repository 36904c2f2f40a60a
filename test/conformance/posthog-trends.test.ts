import { expect } from "vitest";
import { call, createProject } from "../helpers";
import { at, captureJourneys, idRange, type Journeys } from "./analysis-helpers";
import { alias, dayDates, dayLabels, ev, range, trends, trendsPersons, WEEK_TO_JAN_4 } from "./trends-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's trends tests (posthog/hogql_queries/insights/trends/test/test_trends.py), replayed as
 * TrendsQuery through `POST /api/environments/:project_id/query/`. The tests build legacy filters
 * that `filter_to_query` converts; here each is written as the TrendsQuery it becomes. Data goes in
 * through `POST /batch/` (person properties as `$set`, a person's second distinct id linked by a
 * `$create_alias` long before every range asked about); each case has its own project.
 *
 * The tests freeze the clock; edgehog runs on real time, so a relative range is written as the
 * absolute dates it meant then (`-7d` frozen on 2020-01-04 is 2019-12-28 to 2020-01-04). Events the
 * tests create at the unfrozen "now" and ask about with the default range are put on 2020-01-04
 * (UNFROZEN_AT) and asked about over that range. Cases whose point is the relative form itself
 * (`-24h`, `dStart`, `mStart`, ...) are not expressible.
 */

/** `-14d` frozen on 2020-01-04. */
const TWO_WEEKS_TO_JAN_4 = range("2019-12-21", "2020-01-04");
/** Where events the tests create at the unfrozen "now" go; the default range then is WEEK_TO_JAN_4. */
const UNFROZEN_AT = "2020-01-04T12:00:00Z";
const sum = (data: number[]) => data.reduce((a, b) => a + b, 0);

/** PostHog's `assertAlmostEqual(value, expected, delta)`. */
const near = (value: number, expected: number, delta: number) =>
  expect(Math.abs(value - expected), `${value} vs ${expected}`).toBeLessThanOrEqual(delta);

/** `also_test_with_different_timezones`: the team in UTC, UTC-7 and UTC+9 (zones without DST), offsets in hours. */
const ZONES: [string, number][] = [
  ["UTC", 0],
  ["America/Phoenix", -7],
  ["Asia/Tokyo", 9],
];
/** A naive timestamp of PostHog's test events, read on the team's wall clock (bulk_create_events), as UTC. */
const wall = (time: string, offsetHours: number) =>
  new Date(Date.parse(`${time}Z`) - offsetHours * 3_600_000).toISOString();

async function patchProject(projectId: number, body: Record<string, unknown>) {
  const res = await call(`/api/projects/${projectId}/`, { method: "PATCH", body });
  expect(res.status, res.text).toBe(200);
}

async function createCohort(projectId: number, name: string, properties: Record<string, unknown>[]) {
  const res = await call(`/api/projects/${projectId}/cohorts/`, {
    method: "POST",
    body: { name, groups: [{ properties }] },
  });
  expect(res.status, res.text).toBe(201);
  return res.json.id as number;
}

/**
 * `_create_events(use_time)`: one person (blabla, anonymous_id; `$some_prop: some_val`), four
 * "sign up" and one "no events" in Dec 2019 / Jan 2020, and a "sign up" in another project.
 */
async function createEvents(token: string, useTime = false) {
  const [t0, t1, t2] = useTime
    ? ["2019-12-24T03:45:34Z", "2020-01-01T00:06:34Z", "2020-01-02T16:34:34Z"]
    : ["2019-12-24T00:00:00Z", "2020-01-01T00:00:00Z", "2020-01-02T00:00:00Z"];
  await captureJourneys(
    token,
    {
      blabla: [
        alias("anonymous_id"),
        at("sign up", t0, { $some_property: "value", $bool_prop: true }),
        at("sign up", t1, { $some_property: "value", $bool_prop: false }),
        at("sign up", t1),
        at("sign up", t2, { $some_property: "other_value", $some_numerical_prop: 80 }),
        at("no events", t2),
      ],
      anonymous_id: [at("sign up", t1, { $bool_prop: false })],
    },
    { blabla: { $some_prop: "some_val" } },
  );
  // "second team should have no effect"
  const other = await createProject();
  await captureJourneys(other.api_token, { blabla: [at("sign up", t2, { $some_property: "other_value" })] });
}

/** `_create_multiple_people()`: person1…person4 (`name`), "watched movie" with event properties `order` and `name`. */
async function createMultiplePeople(token: string) {
  const movie = (day: string, order: string, name: string) =>
    at("watched movie", `2020-01-${day}T12:00:00Z`, { order, name });
  await captureJourneys(
    token,
    {
      person1: [movie("01", "1", "1")],
      person2: [movie("01", "1", "2"), movie("02", "2", "2"), movie("02", "2", "2")],
      person3: [movie("01", "1", "3"), movie("02", "2", "3"), movie("03", "2", "3")],
      person4: [movie("05", "1", "4")],
    },
    Object.fromEntries(["person1", "person2", "person3", "person4"].map((p) => [p, { name: p }])),
  );
}

/** `_create_active_users_events()`: p0, p1, p2 with `$pageview`s (property `key`) in Jan 2020. */
async function createActiveUsersEvents(token: string) {
  const view = (time: string, key: string) => at("$pageview", time, { key });
  await captureJourneys(
    token,
    {
      p0: [
        view("2020-01-03T11:00:00Z", "val"),
        view("2020-01-03T12:00:00Z", "val"),
        view("2020-01-12T12:00:00Z", "val"),
      ],
      p1: [
        view("2020-01-09T12:00:00Z", "bor"),
        view("2020-01-10T12:00:00Z", "bor"),
        view("2020-01-11T12:00:00Z", "val"),
      ],
      p2: [view("2020-01-09T12:00:00Z", "val"), view("2020-01-11T12:00:00Z", "bor")],
    },
    { p0: { name: "p1" }, p1: { name: "p1" }, p2: { name: "p2" } },
  );
}

/**
 * `_test_events_with_dates(dates, result, **filter_params)`: person_1's "event_name" at each date,
 * then one series of it; the first result's count, labels, data and days must be PostHog's.
 */
async function eventsWithDates(
  dates: string[],
  query: Record<string, unknown>,
  expected: { count: number; data: number[]; labels: string[]; days: string[] },
) {
  const project = await createProject();
  await captureJourneys(
    project.api_token,
    { person_1: dates.map((d) => at("event_name", d, { $browser: "Safari" })) },
    { person_1: { name: "John" } },
  );
  const [first] = await trends(project.id, { series: [ev("event_name")], ...query });
  expect({ count: first.count, data: first.data, labels: first.labels, days: first.days }).toEqual(expected);
}

/**
 * `_create_maths_events(values)` and one "sign up" series with `math` over `some_number` (the
 * action twin of PostHog's test is not replayed: edgehog has no actions). The values are created at
 * the unfrozen "now"; PostHog asserts the last bucket.
 */
async function mathOverValues(math: string, values: number[]) {
  const project = await createProject();
  await createEvents(project.api_token);
  const numbers = [...values, null].map((v) => at("sign up", UNFROZEN_AT, { some_number: v }));
  await captureJourneys(project.api_token, { someone_else: numbers });
  const [series] = await trends(project.id, {
    series: [ev("sign up", { math, math_property: "some_number" })],
    dateRange: WEEK_TO_JAN_4,
  });
  return series.data.at(-1) as number;
}

conformance({ name: "PostHog trends tests (test_trends.py)", version: "065bf8f254" }, () => {
  // Two series over `-7d`: day labels and counts per day.
  agrees("test_trends_per_day", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const [signUp] = await trends(project.id, {
      series: [ev("sign up"), ev("no events")],
      dateRange: WEEK_TO_JAN_4,
    });
    expect(signUp.label).toBe("sign up");
    expect([signUp.labels[4], signUp.data[4]]).toEqual(["1-Jan-2020", 3]);
    expect([signUp.labels[5], signUp.data[5]]).toEqual(["2-Jan-2020", 1]);
  });

  // "Just make sure this doesn't error": a breakdown over a property with no events in the range,
  // the property's definition typed String / Numeric / Boolean by an event long before.
  for (const [name, typed] of [
    ["test_no_props_string", "text"],
    ["test_no_props_numeric", 1],
    ["test_no_props_boolean", true],
  ] as const) {
    agrees(name, async () => {
      const project = await createProject();
      await captureJourneys(project.api_token, {
        setup: [at("setup", "2019-01-01T00:00:00Z", { $some_property: typed })],
      });
      const series = [ev("sign up", { name: "sign up" }), ev("no events")];
      for (const breakdownFilter of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }])
        expect(await trends(project.id, { series, dateRange: TWO_WEEKS_TO_JAN_4, breakdownFilter })).toEqual([]);
    });
  }

  // -48h.
  notExpressible("test_trends_per_day_48hours", "relative to a frozen clock");

  // Cumulative display: a running sum, 3 then 4.
  agrees("test_trends_per_day_cumulative", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const [series] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: WEEK_TO_JAN_4,
      trendsFilter: { display: "ActionsLineGraphCumulative" },
    });
    expect(series.label).toBe("sign up");
    expect([series.labels[4], series.data[4]]).toEqual(["1-Jan-2020", 3]);
    expect([series.labels[5], series.data[5]]).toEqual(["2-Jan-2020", 4]);
  });

  // Cumulative unique users count each person once, at their first day.
  agrees("test_trends_per_day_dau_cumulative", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    await captureJourneys(
      project.api_token,
      { new_user: [at("sign up", "2020-01-03T13:00:01Z", { $some_property: "value", $bool_prop: false })] },
      { new_user: { $some_prop: "some_val" } },
    );
    const [series] = await trends(project.id, {
      series: [ev("sign up", { math: "dau" })],
      dateRange: WEEK_TO_JAN_4,
      trendsFilter: { display: "ActionsLineGraphCumulative" },
    });
    expect(series.label).toBe("sign up");
    expect([series.labels[4], series.data[4]]).toEqual(["1-Jan-2020", 1]);
    expect([series.labels[5], series.data[5]]).toEqual(["2-Jan-2020", 1]);
    expect([series.labels[6], series.data[6]]).toEqual(["3-Jan-2020", 2]);
  });

  notExpressible("test_trends_groups_per_day", "group aggregation");
  notExpressible("test_trends_groups_per_day_cumulative", "group aggregation");

  // Cumulative unique users per breakdown value, values ordered by their totals.
  agrees("test_trends_breakdown_cumulative", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const results = await trends(project.id, {
      series: [ev("sign up", { math: "dau" })],
      dateRange: WEEK_TO_JAN_4,
      trendsFilter: { display: "ActionsLineGraphCumulative" },
      breakdownFilter: { breakdown: "$some_property" },
    });
    expect(results.map((r) => [r.label, r.labels[4], r.data])).toEqual([
      ["value", "1-Jan-2020", [0, 0, 0, 0, 1, 1, 1, 1]],
      ["other_value", "1-Jan-2020", [0, 0, 0, 0, 0, 1, 1, 1]],
      ["$$_posthog_breakdown_null_$$", "1-Jan-2020", [0, 0, 0, 0, 1, 1, 1, 1]],
    ]);
  });

  // `breakdown_normalize_url` trims a trailing slash: "first" and "first/" are one value.
  agrees("test_trends_breakdown_normalize_url", async () => {
    const project = await createProject();
    const url = (u: string) => at("sign up", "2020-01-02T00:00:00Z", { $current_url: u });
    await captureJourneys(project.api_token, {
      blabla: [url("http://hogflix/first"), url("http://hogflix/first/"), url("http://hogflix/second")],
    });
    const results = await trends(project.id, {
      series: [ev("sign up", { math: "dau" })],
      dateRange: WEEK_TO_JAN_4,
      trendsFilter: { display: "ActionsLineGraphCumulative" },
      breakdownFilter: { breakdown: "$current_url", breakdown_normalize_url: true },
    });
    const labels = results.map((r) => r.label).sort();
    expect(labels).toEqual(["http://hogflix/first", "http://hogflix/second"]);
    expect(results.map((r) => r.breakdown_value).sort()).toEqual(labels);
  });

  // A table's unique users are distinct over the whole range, whatever the interval.
  agrees("test_trends_single_aggregate_dau", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const table = (interval: string) =>
      trends(project.id, {
        series: [ev("sign up", { math: "dau" })],
        dateRange: WEEK_TO_JAN_4,
        interval,
        trendsFilter: { display: "ActionsTable" },
      });
    const [weekly] = await table("week");
    const [daily] = await table("day");
    expect(weekly.aggregated_value).toBe(1);
    expect(daily.aggregated_value).toBe(weekly.aggregated_value);
  });

  /** The `$math_prop` values 1, 1, 1, 2, 3 (1 Jan) and 4, 4 (2 Jan), with `$some_property: value` when asked. */
  async function mathPropEvents(token: string, withProperty = false) {
    const extra = withProperty ? { $some_property: "value" } : {};
    const math = (time: string, v: number) => at("sign up", time, { ...extra, $math_prop: v });
    await captureJourneys(
      token,
      {
        blabla: [
          alias("anonymous_id"),
          ...[1, 1, 1, 2, 3].map((v) => math("2020-01-01T00:06:34Z", v)),
          ...[4, 4].map((v) => math("2020-01-02T00:06:34Z", v)),
        ],
      },
      { blabla: { $some_prop: "some_val" } },
    );
  }

  // A table's median is over the whole range (2), whatever the interval.
  agrees("test_trends_single_aggregate_math", async () => {
    const project = await createProject();
    await mathPropEvents(project.api_token);
    const table = (interval: string) =>
      trends(project.id, {
        series: [ev("sign up", { math: "median", math_property: "$math_prop" })],
        dateRange: WEEK_TO_JAN_4,
        interval,
        trendsFilter: { display: "ActionsTable" },
      });
    const [weekly] = await table("week");
    const [daily] = await table("day");
    expect(weekly.aggregated_value).toBe(2);
    expect(daily.aggregated_value).toBe(weekly.aggregated_value);
  });

  notExpressible("test_trends_with_session_property_single_aggregate_math", "session properties");
  notExpressible("test_unique_session_with_session_breakdown", "session properties");
  notExpressible("test_unique_session_with_session_channel_type_breakdown_and_url_regex_filter", "session properties");
  notExpressible("test_trends_breakdown_single_aggregate_cohorts", "cohort breakdowns");

  /** Seven "sign up" of blabla on 1–2 Jan with `$browser` Chrome ×2, Safari ×5 (and `$variant` when given). */
  async function browserEvents(token: string, variants?: string[]) {
    const browsers = ["Chrome", "Chrome", "Safari", "Safari", "Safari", "Safari", "Safari"];
    const times = [...Array(5).fill("2020-01-01T00:06:34Z"), ...Array(2).fill("2020-01-02T00:06:34Z")];
    await captureJourneys(
      token,
      {
        blabla: [
          alias("anonymous_id"),
          ...browsers.map((b, i) =>
            at("sign up", times[i], {
              $some_property: "value",
              $browser: b,
              ...(variants ? { $variant: variants[i] } : {}),
            }),
          ),
        ],
      },
      { blabla: { $some_prop: "some_val" } },
    );
  }

  // A table broken down by browser: one total per value.
  agrees("test_trends_breakdown_single_aggregate", async () => {
    const project = await createProject();
    await browserEvents(project.api_token);
    const results = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: WEEK_TO_JAN_4,
      trendsFilter: { display: "ActionsTable" },
      breakdownFilter: { breakdown: "$browser" },
    });
    for (const r of results) expect(r.aggregated_value).toBe(r.breakdown_value === "Chrome" ? 2 : 5);
  });

  // A table broken down by two properties: list values, ordered by total, then by value.
  agrees("test_trends_multiple_breakdowns_single_aggregate", async () => {
    const project = await createProject();
    await browserEvents(project.api_token, ["1", "2", "1", "1", "2", "2", "2"]);
    const results = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: WEEK_TO_JAN_4,
      trendsFilter: { display: "ActionsTable" },
      breakdownFilter: { breakdowns: [{ property: "$browser" }, { property: "$variant" }] },
    });
    expect(results.map((r) => [r.breakdown_value, r.aggregated_value])).toEqual([
      [["Safari", "2"], 3],
      [["Safari", "1"], 2],
      [["Chrome", "1"], 1],
      [["Chrome", "2"], 1],
    ]);
  });

  notExpressible(
    "test_trends_breakdown_single_aggregate_with_zero_person_ids",
    "events with the zero person id (person-on-events only)",
  );

  // A table's median per breakdown value (single and multiple breakdowns), the same by day and by week.
  agrees("test_trends_breakdown_single_aggregate_math", async () => {
    const project = await createProject();
    await mathPropEvents(project.api_token, true);
    for (const breakdownFilter of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) {
      const table = (interval: string) =>
        trends(project.id, {
          series: [ev("sign up", { math: "median", math_property: "$math_prop" })],
          dateRange: WEEK_TO_JAN_4,
          interval,
          trendsFilter: { display: "ActionsTable" },
          breakdownFilter,
        });
      const [daily] = await table("day");
      const [weekly] = await table("week");
      expect(daily.aggregated_value).toBe(2);
      expect(daily.aggregated_value).toBe(weekly.aggregated_value);
    }
  });

  notExpressible(
    "test_trends_breakdown_with_session_property_single_aggregate_math_and_breakdown",
    "session properties",
  );
  notExpressible(
    "test_trends_person_breakdown_with_session_property_single_aggregate_math_and_breakdown",
    "session properties",
  );

  // `event: null` counts every event (5) where "sign up" counts 4.
  agrees("test_trends_any_event_total_count", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const count = async (event: string | null) =>
      (
        await trends(project.id, {
          series: [ev(event, { math: "total" })],
          dateRange: WEEK_TO_JAN_4,
          interval: "day",
          trendsFilter: { display: "ActionsLineGraph" },
        })
      )[0].count;
    expect(await count(null)).toBe(5);
    expect(await count("sign up")).toBe(4);
  });

  // p90 per breakdown value: the value of the largest number is kept.
  agrees("test_trends_breakdown_with_math_func", async () => {
    const project = await createProject();
    const journeys: Journeys = {};
    for (const id of idRange("person", 0, 20)) {
      const i = id.slice("person".length);
      journeys[id] = [0, 1].map(() =>
        at("sign up", "2020-01-01T00:06:34Z", { $some_property: `value_${i}`, $math_prop: 1 }),
      );
    }
    journeys.person21 = [at("sign up", "2020-01-01T00:06:34Z", { $some_property: "value_21", $math_prop: 25 })];
    await captureJourneys(project.api_token, journeys);
    for (const [breakdownFilter, expected] of [
      [{ breakdown: "$some_property" }, "value_21"],
      [{ breakdowns: [{ property: "$some_property" }] }, ["value_21"]],
    ] as const) {
      const results = await trends(project.id, {
        series: [ev("sign up", { math: "p90", math_property: "$math_prop" })],
        dateRange: WEEK_TO_JAN_4,
        interval: "day",
        trendsFilter: { display: "ActionsTable" },
        breakdownFilter,
      });
      expect(results.map((r) => r.breakdown_value)).toContainEqual(expected);
    }
  });

  // Compare over `-7d`: the previous period's days are 21–28 Dec (28 Dec in both, so weekdays line
  // up). The absolute range reaches that previous period with `compare_to: "-7d"`.
  agrees("test_trends_compare_day_interval_relative_range", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const [current, previous] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: WEEK_TO_JAN_4,
      compareFilter: { compare: true, compare_to: "-7d" },
    });
    expect(current.label).toBe("sign up");
    expect([current.labels[4], current.data[4]]).toEqual(["1-Jan-2020", 3]);
    expect([current.labels[5], current.data[5]]).toEqual(["2-Jan-2020", 1]);
    expect(current.days).toEqual(dayDates("2019-12-28", 8));
    expect(previous.days).toEqual(dayDates("2019-12-21", 8));
    expect(previous.label).toBe("sign up");
    expect([previous.labels[3], previous.data[3]]).toEqual(["24-Dec-2019", 1]);
    expect([previous.labels[4], previous.data[4]]).toEqual(["25-Dec-2019", 0]);
    const [plain] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: WEEK_TO_JAN_4,
      compareFilter: { compare: false },
    });
    expect(plain.label).toBe("sign up");
    expect([plain.labels[4], plain.data[4]]).toEqual(["1-Jan-2020", 3]);
    expect([plain.labels[5], plain.data[5]]).toEqual(["2-Jan-2020", 1]);
  });

  // Compare over one fixed day: the previous period is the day before.
  agrees("test_trends_compare_day_interval_fixed_range_single", async () => {
    const project = await createProject();
    await createEvents(project.api_token, true);
    const [current, previous] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: range("2020-01-02", "2020-01-02"),
      interval: "day",
      compareFilter: { compare: true },
    });
    expect([current.days, current.data]).toEqual([["2020-01-02"], [1]]);
    expect([previous.days, previous.data]).toEqual([["2020-01-01"], [3]]);
  });

  // Hourly compare: today's hours up to now (20:17 → 21 buckets) against the same hours yesterday.
  // `dStart` frozen at 2020-01-02 20:17 is written as the day up to the end of that hour.
  agrees("test_trends_compare_hour_interval_relative_range", async () => {
    const project = await createProject();
    await createEvents(project.api_token, true);
    const [current, previous] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: range("2020-01-02", "2020-01-02 20:59:59"),
      interval: "hour",
      compareFilter: { compare: true },
    });
    const hours = (day: string) => Array.from({ length: 21 }, (_, h) => `${day} ${String(h).padStart(2, "0")}:00:00`);
    expect(current.days).toEqual(hours("2020-01-02"));
    expect(current.data).toEqual(Array.from({ length: 21 }, (_, h) => (h === 16 ? 1 : 0)));
    expect(previous.days).toEqual(hours("2020-01-01"));
    expect(previous.data).toEqual(Array.from({ length: 21 }, (_, h) => (h === 0 ? 3 : 0)));
  });

  // Week buckets: labels cut to the range, days at the weeks' starts.
  agrees("test_week_interval", () =>
    eventsWithDates(
      ["2020-11-01T00:00:00Z", "2020-11-10T00:00:00Z", "2020-11-11T00:00:00Z", "2020-11-18T00:00:00Z"],
      { interval: "week", dateRange: range("2020-10-29", "2020-11-24") },
      {
        count: 4,
        data: [0, 1, 2, 1, 0],
        labels: ["29–31 Oct", "1–7 Nov", "8–14 Nov", "15–21 Nov", "22–24 Nov"],
        days: ["2020-10-25", "2020-11-01", "2020-11-08", "2020-11-15", "2020-11-22"],
      },
    ),
  );

  // Month buckets from an unpadded date ("2020-6-01").
  agrees("test_month_interval", () =>
    eventsWithDates(
      ["2020-07-10T00:00:00Z", "2020-07-30T00:00:00Z", "2020-10-18T00:00:00Z"],
      { interval: "month", dateRange: range("2020-6-01", "2020-11-24") },
      {
        count: 3,
        data: [0, 2, 0, 0, 1, 0],
        labels: ["Jun 2020", "Jul 2020", "Aug 2020", "Sep 2020", "Oct 2020", "Nov 2020"],
        days: ["2020-06-01", "2020-07-01", "2020-08-01", "2020-09-01", "2020-10-01", "2020-11-01"],
      },
    ),
  );

  // A week range from a Wednesday: the first bucket is the week, counting only from date_from.
  agrees("test_interval_rounding", () =>
    eventsWithDates(
      ["2020-11-01T00:00:00Z", "2020-11-10T00:00:00Z", "2020-11-11T00:00:00Z", "2020-11-18T00:00:00Z"],
      { interval: "week", dateRange: range("2020-11-04", "2020-11-24") },
      {
        count: 3,
        data: [0, 2, 1, 0],
        labels: ["4–7 Nov", "8–14 Nov", "15–21 Nov", "22–24 Nov"],
        days: ["2020-11-01", "2020-11-08", "2020-11-15", "2020-11-22"],
      },
    ),
  );

  // A month range from the 7th counts the month's earlier days too ("should round down to 6-1").
  agrees("test_interval_rounding_monthly", () =>
    eventsWithDates(
      ["2020-06-02T00:00:00Z", "2020-07-30T00:00:00Z"],
      { interval: "month", dateRange: range("2020-6-7", "2020-7-30") },
      { count: 2, data: [1, 1], labels: ["Jun 2020", "Jul 2020"], days: ["2020-06-01", "2020-07-01"] },
    ),
  );

  // dStart.
  notExpressible("test_today_timerange", "relative to a frozen clock");

  // `-1d` to `-1d` frozen on 2 Nov: 1 Nov, all of it.
  agrees("test_yesterday_timerange", () =>
    eventsWithDates(
      ["2020-11-01T05:20:00Z", "2020-11-01T10:22:00Z", "2020-11-01T10:25:00Z"],
      { dateRange: range("2020-11-01", "2020-11-01") },
      { count: 3, data: [3], labels: ["1-Nov-2020"], days: ["2020-11-01"] },
    ),
  );

  // -24h.
  notExpressible("test_last24hours_timerange", "relative to a frozen clock");
  // -48h.
  notExpressible("test_last48hours_timerange", "relative to a frozen clock");

  // `-7d` frozen on 7 Nov: eight days.
  agrees("test_last7days_timerange", () =>
    eventsWithDates(
      ["2020-11-01T05:20:00Z", "2020-11-02T10:22:00Z", "2020-11-04T10:25:00Z", "2020-11-05T08:25:00Z"],
      { dateRange: range("2020-10-31", "2020-11-07") },
      {
        count: 4,
        data: [0, 1, 1, 0, 1, 1, 0, 0],
        labels: dayLabels("2020-10-31", 8),
        days: dayDates("2020-10-31", 8),
      },
    ),
  );

  // `-14d` frozen on 14 Nov: fifteen days.
  agrees("test_last14days_timerange", () =>
    eventsWithDates(
      [
        "2020-11-01T05:20:00Z",
        "2020-11-02T10:22:00Z",
        "2020-11-04T10:25:00Z",
        "2020-11-05T08:25:00Z",
        "2020-11-05T08:25:00Z",
        "2020-11-10T08:25:00Z",
      ],
      { dateRange: range("2020-10-31", "2020-11-14") },
      {
        count: 6,
        data: [0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0],
        labels: dayLabels("2020-10-31", 15),
        days: dayDates("2020-10-31", 15),
      },
    ),
  );

  const NOVEMBER = [
    "2020-11-01T05:20:00Z",
    "2020-11-11T10:22:00Z",
    "2020-11-24T10:25:00Z",
    "2020-11-05T08:25:00Z",
    "2020-11-05T08:25:00Z",
    "2020-11-10T08:25:00Z",
  ];

  // `-30d` by week frozen on 30 Nov: a one-day first week labelled as a day.
  agrees("test_last30days_timerange", () =>
    eventsWithDates(
      NOVEMBER,
      { interval: "week", dateRange: range("2020-10-31", "2020-11-30") },
      {
        count: 6,
        data: [0, 3, 2, 0, 1, 0],
        labels: ["31-Oct-2020", "1–7 Nov", "8–14 Nov", "15–21 Nov", "22–28 Nov", "29–30 Nov"],
        days: ["2020-10-25", "2020-11-01", "2020-11-08", "2020-11-15", "2020-11-22", "2020-11-29"],
      },
    ),
  );

  // `-90d` by month frozen on 30 Nov: September to November.
  agrees("test_last90days_timerange", () =>
    eventsWithDates(
      ["2020-09-01T05:20:00Z", "2020-10-05T05:20:00Z", "2020-10-20T05:20:00Z", ...NOVEMBER],
      { interval: "month", dateRange: range("2020-09-01", "2020-11-30") },
      {
        count: 9,
        data: [1, 2, 6],
        labels: ["Sep 2020", "Oct 2020", "Nov 2020"],
        days: ["2020-09-01", "2020-10-01", "2020-11-01"],
      },
    ),
  );

  // mStart.
  notExpressible("test_this_month_timerange", "relative to a frozen clock");
  // -1mStart, -1mEnd.
  notExpressible("test_previous_month_timerange", "relative to a frozen clock");
  // yStart.
  notExpressible("test_year_to_date_timerange", "relative to a frozen clock");

  // `all` starts at the project's first event (the end, "now" in PostHog's test, written as 30 Apr).
  agrees("test_all_time_timerange", () =>
    eventsWithDates(
      [
        "2020-01-01T05:20:00Z",
        "2020-01-11T10:22:00Z",
        "2020-02-24T10:25:00Z",
        "2020-02-05T08:25:00Z",
        "2020-03-05T08:25:00Z",
      ],
      { interval: "month", dateRange: range("all", "2020-04-30") },
      {
        count: 5,
        data: [2, 2, 1, 0],
        labels: ["Jan 2020", "Feb 2020", "Mar 2020", "Apr 2020"],
        days: ["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"],
      },
    ),
  );

  // A fixed date_from up to "now" (10 Jan).
  agrees("test_custom_range_timerange", () =>
    eventsWithDates(
      [
        "2020-01-05T05:20:00Z",
        "2020-01-05T10:22:00Z",
        "2020-01-04T10:25:00Z",
        "2020-01-11T08:25:00Z",
        "2020-01-09T08:25:00Z",
      ],
      { dateRange: range("2020-01-05", "2020-01-10") },
      {
        count: 3,
        data: [2, 0, 0, 0, 1, 0],
        labels: dayLabels("2020-01-05", 6),
        days: dayDates("2020-01-05", 6),
      },
    ),
  );

  // An event property filter.
  agrees("test_property_filtering", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const [series] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: WEEK_TO_JAN_4,
      properties: [{ key: "$some_property", value: "value" }],
    });
    expect([series.labels[4], series.data[4]]).toEqual(["1-Jan-2020", 1]);
    expect([series.labels[5], series.data[5]]).toEqual(["2-Jan-2020", 0]);
  });

  notExpressible("test_trends_with_hogql_math", "HogQL math and breakdowns");
  notExpressible("test_trends_with_session_property_total_volume_math", "session properties");
  notExpressible("test_trends_with_session_property_total_volume_math_with_breakdowns", "session properties");
  notExpressible(
    "test_trends_with_session_property_total_volume_math_with_sessions_spanning_multiple_intervals",
    "session properties",
  );

  /** John (person_1) with one "event_name", Jane (person_2) with two, at `time`; the cohort of Jane. */
  async function johnAndJane(projectId: number, token: string, time: string, browsers = false) {
    await captureJourneys(
      token,
      {
        person_1: [at("event_name", time, browsers ? { $browser: "Safari" } : undefined)],
        person_2: [
          at("event_name", time, browsers ? { $browser: "Chrome" } : undefined),
          at("event_name", time, browsers ? { $browser: "Safari" } : undefined),
        ],
      },
      { person_1: { name: "John" }, person_2: { name: "Jane" } },
    );
    return createCohort(projectId, "cohort1", [{ key: "name", value: "Jane", type: "person" }]);
  }

  // A cohort filter: only Jane's two events (created at "now", asked about with the default range).
  agrees("test_filter_events_by_cohort", async () => {
    const project = await createProject();
    const cohort = await johnAndJane(project.id, project.api_token, UNFROZEN_AT, true);
    const [series] = await trends(project.id, {
      series: [ev("event_name")],
      dateRange: WEEK_TO_JAN_4,
      properties: [{ key: "id", value: cohort, type: "cohort" }],
    });
    expect(series.count).toBe(2);
    expect(series.data.at(-1)).toBe(2);
  });

  // The same with PostHog's cohort precalculated (edgehog has one way to evaluate a cohort).
  agrees("test_filter_events_by_precalculated_cohort", async () => {
    const project = await createProject();
    const cohort = await johnAndJane(project.id, project.api_token, "2020-01-02T00:00:00Z", true);
    const [series] = await trends(project.id, {
      series: [ev("event_name")],
      dateRange: range("2019-12-26", "2020-01-02"),
      properties: [{ key: "id", value: cohort, type: "cohort" }],
    });
    expect(series.count).toBe(2);
    expect(series.data.at(-1)).toBe(2);
  });

  // Hour buckets from a date to "now" (2020-01-02 00:00, to the end of that hour).
  agrees("test_interval_filtering_hour", async () => {
    const project = await createProject();
    await createEvents(project.api_token, true);
    const [series] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: range("2019-12-24", "2020-01-02 00:59:59"),
      interval: "hour",
    });
    expect([series.labels[3], series.data[3]]).toEqual(["24-Dec 03:00", 1]);
    expect(series.data[192]).toBe(3);
  });

  // Week buckets from a Sunday up to "now" (2 Jan).
  agrees("test_interval_filtering_week", async () => {
    const project = await createProject();
    await createEvents(project.api_token, true);
    const [series] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: range("2019-11-24", "2020-01-02"),
      interval: "week",
    });
    expect(series.labels.slice(0, 5)).toEqual(["24–30 Nov", "1–7 Dec", "8–14 Dec", "15–21 Dec", "22–28 Dec"]);
    expect(series.data.slice(0, 5)).toEqual([0, 0, 0, 0, 1]);
  });

  // Month buckets from an unpadded date ("2019-9-24") up to "now" (2 Jan).
  agrees("test_interval_filtering_month", async () => {
    const project = await createProject();
    await createEvents(project.api_token, true);
    const [series] = await trends(project.id, {
      series: [ev("sign up")],
      dateRange: range("2019-9-24", "2020-01-02"),
      interval: "month",
    });
    expect([series.labels[0], series.data[0]]).toEqual(["Sep 2019", 0]);
    expect([series.labels[3], series.data[3]]).toEqual(["Dec 2019", 1]);
    expect([series.labels[4], series.data[4]]).toEqual(["Jan 2020", 4]);
  });

  // dStart.
  notExpressible("test_interval_filtering_today_hourly", "relative to a frozen clock");
  notExpressible("test_breakdown_label", "unit test of the test module's own breakdown_label helper");

  // A filter on the breakdown property leaves one value.
  agrees("test_breakdown_with_filter", async () => {
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      {
        person1: [at("sign up", UNFROZEN_AT, { key: "val" })],
        person2: [at("sign up", UNFROZEN_AT, { key: "oh" })],
      },
      { person1: { email: "test@posthog.com" }, person2: { email: "test@gmail.com" } },
    );
    const results = await trends(project.id, {
      series: [ev("sign up", { name: "sign up" })],
      dateRange: TWO_WEEKS_TO_JAN_4,
      breakdownFilter: { breakdown: "key" },
      properties: [{ key: "key", value: "oh", operator: "not_icontains" }],
    });
    expect(results).toHaveLength(1);
    expect(results[0].breakdown_value).toBe("val");
  });

  notExpressible("test_action_filtering", "actions");
  notExpressible("test_action_filtering_for_action_in_different_env_of_project", "actions");
  notExpressible("test_action_filtering_with_cohort", "actions");
  notExpressible("test_trends_for_non_existing_action", "actions");
  notExpressible("test_trends_regression_filtering_by_action_with_person_properties", "actions");

  // Unique users per day, a person's two distinct ids counted once (the action twin is not replayed).
  agrees("test_dau_filtering", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    await captureJourneys(project.api_token, { someone_else: [at("sign up", "2020-01-02T00:00:00Z")] });
    const [series] = await trends(project.id, { series: [ev("sign up", { math: "dau" })], dateRange: WEEK_TO_JAN_4 });
    expect(series.data[4]).toBe(1);
    expect(series.data[5]).toBe(2);
  });

  // Property math over 2, 3, 5.5, 7.5 and 101…200 (PostHog allows 0.5 off for ClickHouse's quantiles).
  const TWO_TO_SEVEN = [2, 3, 5.5, 7.5];
  const HUNDRED = Array.from({ length: 100 }, (_, i) => 101 + i);
  for (const [name, math, values, expected] of [
    ["test_sum_filtering", "sum", TWO_TO_SEVEN, 18],
    ["test_avg_filtering", "avg", TWO_TO_SEVEN, 4.5],
    ["test_min_filtering", "min", TWO_TO_SEVEN, 2],
    ["test_max_filtering", "max", TWO_TO_SEVEN, 7.5],
    ["test_median_filtering", "median", HUNDRED, 150],
    ["test_p75_filtering", "p75", HUNDRED, 175],
    ["test_p90_filtering", "p90", HUNDRED, 190],
    ["test_p95_filtering", "p95", HUNDRED, 195],
    ["test_p99_filtering", "p99", HUNDRED, 199],
  ] as const) {
    agrees(name, async () => near(await mathOverValues(math, [...values]), expected, 0.5));
  }

  // The average ignores a text and a null: (2 + 8) / 2.
  agrees("test_avg_filtering_non_number_resiliency", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    await captureJourneys(project.api_token, {
      someone_else: [2, "x", null, 8].map((v) => at("sign up", UNFROZEN_AT, { some_number: v })),
    });
    const [series] = await trends(project.id, {
      series: [ev("sign up", { math: "avg", math_property: "some_number" })],
      dateRange: WEEK_TO_JAN_4,
    });
    expect(series.data.at(-1)).toBe(5);
  });

  // Each series with its own property filter.
  agrees("test_per_entity_filtering", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const [value, other] = await trends(project.id, {
      series: [
        ev("sign up", { properties: [{ key: "$some_property", value: "value" }] }),
        ev("sign up", { properties: [{ key: "$some_property", value: "other_value" }] }),
      ],
      dateRange: WEEK_TO_JAN_4,
    });
    expect([value.labels[4], value.data[4], value.count]).toEqual(["1-Jan-2020", 1, 1]);
    expect([other.labels[5], other.data[5], other.count]).toEqual(["2-Jan-2020", 1, 1]);
  });

  /** `_create_multiple_people()`, then one "watched movie" series over `-7d` frozen on 2020-01-04 00:00. */
  async function movieTrends(extra: Record<string, unknown>, node: Record<string, unknown> = {}) {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const [series] = await trends(project.id, {
      series: [ev("watched movie", node)],
      dateRange: WEEK_TO_JAN_4,
      ...extra,
    });
    return series;
  }

  // A person property filter.
  agrees("test_person_property_filtering", async () => {
    const series = await movieTrends({ properties: [{ key: "name", value: "person1", type: "person" }] });
    expect([series.labels[4], series.data[4]]).toEqual(["1-Jan-2020", 1]);
    expect([series.labels[5], series.data[5]]).toEqual(["2-Jan-2020", 0]);
  });

  // `name` is both a person and an event property: each filter reads its own.
  agrees("test_person_property_filtering_clashing_with_event_property", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    for (const filter of [
      { key: "name", value: "person1", type: "person" },
      { key: "name", value: "1", type: "event" },
    ]) {
      const [series] = await trends(project.id, {
        series: [ev("watched movie")],
        dateRange: WEEK_TO_JAN_4,
        properties: [filter],
      });
      expect([series.labels[4], series.data[4]]).toEqual(["1-Jan-2020", 1]);
      expect([series.labels[5], series.data[5]]).toEqual(["2-Jan-2020", 0]);
    }
  });

  // A person property filter on the series.
  agrees("test_entity_person_property_filtering", async () => {
    const series = await movieTrends({}, { properties: [{ key: "name", value: "person1", type: "person" }] });
    expect([series.labels[4], series.data[4]]).toEqual(["1-Jan-2020", 1]);
    expect([series.labels[5], series.data[5]]).toEqual(["2-Jan-2020", 0]);
  });

  notExpressible("test_breakdown_by_empty_cohort", "cohort breakdowns");
  notExpressible("test_breakdown_by_cohort", "cohort breakdowns");
  notExpressible("test_breakdown_by_event_metadata", "event metadata breakdowns");
  notExpressible("test_interval_filtering_breakdown", "cohort breakdowns");

  const PERSON_NAME = { breakdown: "name", breakdown_type: "person" };
  const PERSON_NAMES = { breakdowns: [{ type: "person", property: "name" }] };

  /** `_create_multiple_people()`, "watched movie" over `-14d` frozen on 2020-01-04, broken down as given. */
  async function moviesByName(projectId: number, breakdownFilter: Record<string, unknown>) {
    return trends(projectId, {
      series: [ev("watched movie", { name: "watched movie" })],
      dateRange: TWO_WEEKS_TO_JAN_4,
      breakdownFilter,
    });
  }

  // A person property breakdown, single and multiple (the action twin is not replayed).
  agrees("test_breakdown_by_person_property", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const single = await moviesByName(project.id, PERSON_NAME);
    expect(single.map((r) => r.breakdown_value).sort()).toEqual(["person1", "person2", "person3"]);
    for (const r of single) {
      if (r.breakdown_value === "person1") expect([r.count, r.label]).toEqual([1, "person1"]);
      if (r.breakdown_value === "person2") expect(r.count).toBe(3);
      if (r.breakdown_value === "person3") expect(r.count).toBe(3);
    }
    // For the multiple breakdown PostHog asserts only the values (its per-value checks compare a list with a text).
    const multiple = await moviesByName(project.id, PERSON_NAMES);
    expect(multiple.map((r) => r.breakdown_value).sort()).toEqual([["person1"], ["person2"], ["person3"]]);
  });

  notExpressible("test_virtual_person_property_breakdown", "virtual person properties ($virt_…)");

  // The same breakdown (PostHog: with persons on events); the multiple one asserts person1's count and label.
  agrees("test_breakdown_by_person_property_for_person_on_events", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    const single = await moviesByName(project.id, PERSON_NAME);
    expect(single.map((r) => r.breakdown_value).sort()).toEqual(["person1", "person2", "person3"]);
    for (const r of single) {
      if (r.breakdown_value === "person1") expect([r.count, r.label]).toEqual([1, "person1"]);
      if (r.breakdown_value === "person2") expect(r.count).toBe(3);
      if (r.breakdown_value === "person3") expect(r.count).toBe(3);
    }
    const multiple = await moviesByName(project.id, PERSON_NAMES);
    expect(multiple.map((r) => r.breakdown_value).sort()).toEqual([["person1"], ["person2"], ["person3"]]);
    // PostHog's line asserts the label ["person1"] (a list); its runner joins multiple breakdown values
    // with "::" (_format_breakdown_label) and test_trends_aggregate_by_distinct_id expects the text
    // "some_val" for the same shape of query: the text is asserted here.
    const person1 = multiple.find((r) => JSON.stringify(r.breakdown_value) === '["person1"]')!;
    expect(person1.count).toBe(1);
    expect(person1.label).toBe("person1");
  });

  notExpressible(
    "test_breakdown_by_person_property_for_person_on_events_with_zero_person_ids",
    "events with the zero person id (person-on-events only)",
  );
  // A pie's persons of a breakdown value (no `day`: the whole range), most events first: value_1 is person2
  // (2 events), then person1 and person3 (1 each); value_2 is person2 (1). person4's event is after the range.
  agrees("test_breakdown_by_property_pie", async () => {
    const project = await createProject();
    const movie = (day: string, fake_prop: string) => at("watched movie", `2020-01-${day}T12:00:00Z`, { fake_prop });
    await captureJourneys(project.api_token, {
      person1: [movie("01", "value_1")],
      person2: [movie("01", "value_1"), movie("01", "value_1"), movie("02", "value_2")],
      person3: [movie("01", "value_1")],
      person4: [movie("05", "value_1")],
    });
    const query = {
      series: [ev("watched movie", { name: "watched movie", math: "dau" })],
      dateRange: TWO_WEEKS_TO_JAN_4,
      trendsFilter: { display: "ActionsPie" },
      breakdownFilter: { breakdown: "fake_prop", breakdown_type: "event" },
    };
    const value1 = await trendsPersons(project.id, query, { series: 0, breakdown: "value_1" });
    expect(value1[0]).toBe("person2:2");
    expect(value1.slice(1).sort()).toEqual(["person1:1", "person3:1"]);
    expect(await trendsPersons(project.id, query, { series: 0, breakdown: "value_2" })).toEqual(["person2:1"]);
  });

  // A pie of unique users by person name: one each.
  agrees("test_breakdown_by_person_property_pie", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    for (const [breakdownFilter, wrap] of [
      [PERSON_NAME, (v: string) => v],
      [PERSON_NAMES, (v: string) => [v]],
    ] as const) {
      const results = await trends(project.id, {
        series: [ev("watched movie", { name: "watched movie", math: "dau" })],
        dateRange: TWO_WEEKS_TO_JAN_4,
        trendsFilter: { display: "ActionsPie" },
        breakdownFilter,
      });
      const values = results
        .map((r) => [r.breakdown_value, r.aggregated_value])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(values).toEqual(["person1", "person2", "person3"].map((p) => [wrap(p), 1]));
    }
  });

  // The same pie, the series filtered to persons whose name does not contain "person3".
  agrees("test_breakdown_by_person_property_pie_with_event_dau_filter", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    for (const [breakdownFilter, wrap] of [
      [PERSON_NAME, (v: string) => v],
      [PERSON_NAMES, (v: string) => [v]],
    ] as const) {
      const results = await trends(project.id, {
        series: [
          ev("watched movie", {
            name: "watched movie",
            math: "dau",
            properties: [{ key: "name", operator: "not_icontains", value: "person3", type: "person" }],
          }),
        ],
        dateRange: TWO_WEEKS_TO_JAN_4,
        trendsFilter: { display: "ActionsPie" },
        breakdownFilter,
      });
      const values = results
        .map((r) => [r.breakdown_value, r.aggregated_value])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      expect(values).toEqual(["person1", "person2"].map((p) => [wrap(p), 1]));
    }
  });

  // Test-account filters naming a cohort leave only its members' events.
  agrees("test_filter_test_accounts_cohorts", async () => {
    const project = await createProject();
    const cohort = await johnAndJane(project.id, project.api_token, UNFROZEN_AT);
    await patchProject(project.id, { test_account_filters: [{ key: "id", value: cohort, type: "cohort" }] });
    const [series] = await trends(project.id, {
      series: [ev("event_name")],
      dateRange: WEEK_TO_JAN_4,
      filterTestAccounts: true,
    });
    expect(series.count).toBe(2);
    expect(series.data.at(-1)).toBe(2);
  });

  // A cohort filter (PostHog's cohort precalculated).
  agrees("test_filter_by_precalculated_cohort", async () => {
    const project = await createProject();
    const cohort = await johnAndJane(project.id, project.api_token, UNFROZEN_AT);
    const [series] = await trends(project.id, {
      series: [ev("event_name")],
      dateRange: WEEK_TO_JAN_4,
      properties: [{ type: "cohort", key: "id", value: cohort }],
    });
    expect(series.count).toBe(2);
    expect(series.data.at(-1)).toBe(2);
  });

  // A cohort filter with a person property breakdown, single and multiple.
  agrees("test_breakdown_filter_by_precalculated_cohort", async () => {
    const project = await createProject();
    const cohort = await johnAndJane(project.id, project.api_token, UNFROZEN_AT);
    for (const [breakdownFilter, expected] of [
      [PERSON_NAME, "Jane"],
      [PERSON_NAMES, ["Jane"]],
    ] as const) {
      const [first] = await trends(project.id, {
        series: [ev("event_name")],
        dateRange: WEEK_TO_JAN_4,
        properties: [{ type: "cohort", key: "id", value: cohort }],
        breakdownFilter,
      });
      expect(first.breakdown_value).toEqual(expected);
      expect(first.count).toBe(2);
      expect(first.data.at(-1)).toBe(2);
    }
  });

  // A bar-by-value display: one total per series.
  agrees("test_bar_chart_by_value", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const [signUp, noEvents] = await trends(project.id, {
      series: [ev("sign up"), ev("no events")],
      dateRange: WEEK_TO_JAN_4,
      trendsFilter: { display: "ActionsBarValue" },
    });
    expect(signUp.aggregated_value).toBe(4);
    expect(noEvents.aggregated_value).toBe(1);
  });

  notExpressible("test_trends_aggregate_by_distinct_id", "aggregating by distinct id (an instance setting)");

  // 25 breakdown values under the default limit of 25: no "other".
  agrees("test_breakdown_filtering_limit", async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, {
      blabla: Array.from({ length: 25 }, (_, i) => at("sign up", "2020-01-02T00:00:00Z", { $some_property: i })),
    });
    for (const breakdownFilter of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) {
      const results = await trends(project.id, {
        series: [ev("sign up", { name: "sign up" })],
        dateRange: TWO_WEEKS_TO_JAN_4,
        breakdownFilter,
      });
      expect(results).toHaveLength(25);
    }
  });

  // A series' person filter and an event property breakdown, values ordered by count.
  agrees("test_breakdown_with_person_property_filter", async () => {
    const project = await createProject();
    await createMultiplePeople(project.api_token);
    for (const [breakdownFilter, wrap] of [
      [{ breakdown: "order" }, (v: string) => v],
      [{ breakdowns: [{ property: "order" }] }, (v: string) => [v]],
    ] as const) {
      const [first, second] = await trends(project.id, {
        series: [
          ev("watched movie", {
            name: "watched movie",
            properties: [{ key: "name", value: "person2", type: "person" }],
          }),
        ],
        dateRange: TWO_WEEKS_TO_JAN_4,
        breakdownFilter,
      });
      expect([first.count, first.breakdown_value]).toEqual([2, wrap("2")]);
      expect([second.count, second.breakdown_value]).toEqual([1, wrap("1")]);
    }
  });

  // Two series broken down: labels "<series> - <value>", no value as the null sentinel.
  agrees("test_breakdown_filtering", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    for (const breakdownFilter of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) {
      const results = await trends(project.id, {
        series: [ev("sign up", { name: "sign up" }), ev("no events")],
        dateRange: TWO_WEEKS_TO_JAN_4,
        breakdownFilter,
      });
      expect(results.slice(0, 4).map((r) => [r.label, sum(r.data)])).toEqual([
        ["sign up - value", 2],
        ["sign up - other_value", 1],
        ["sign up - $$_posthog_breakdown_null_$$", 2],
        ["no events - $$_posthog_breakdown_null_$$", 1],
      ]);
    }
  });

  // Two breakdowns: labels joined with "::", an empty value as the null sentinel; past the limit,
  // "other" in every part.
  agrees("test_multiple_breakdowns_label_formatting", async () => {
    const project = await createProject();
    const signUp = (time: string, browser: string, variant: string) =>
      at("sign up", time, { $some_property: "value", $browser: browser, $variant: variant });
    const day1 = "2020-01-01T00:06:34Z";
    const day2 = "2020-01-02T00:06:34Z";
    await captureJourneys(
      project.api_token,
      {
        blabla: [
          alias("anonymous_id"),
          signUp(day1, "Chrome", "1"),
          signUp(day1, "Chrome", "2"),
          signUp(day1, "Safari", "1"),
          signUp(day1, "Safari", "1"),
          signUp(day1, "Safari", "2"),
          signUp(day1, "Safari", ""),
          signUp(day2, "Safari", "2"),
          signUp(day2, "Safari", "2"),
          signUp(day2, "Chrome", ""),
        ],
      },
      { blabla: { $some_prop: "some_val" } },
    );
    const query = (breakdownFilter: Record<string, unknown>) =>
      trends(project.id, {
        series: [ev("sign up", { name: "sign up" }), ev("no events")],
        dateRange: TWO_WEEKS_TO_JAN_4,
        breakdownFilter,
      });
    const breakdowns = [{ property: "$browser" }, { property: "$variant" }];
    expect((await query({ breakdowns })).map((r) => r.label)).toEqual([
      "sign up - Safari::2",
      "sign up - Safari::1",
      "sign up - Chrome::1",
      "sign up - Chrome::2",
      "sign up - Chrome::$$_posthog_breakdown_null_$$",
      "sign up - Safari::$$_posthog_breakdown_null_$$",
    ]);
    expect((await query({ breakdowns, breakdown_limit: 1 })).map((r) => r.label)).toEqual([
      "sign up - Safari::2",
      "sign up - $$_posthog_breakdown_other_$$::$$_posthog_breakdown_other_$$",
    ]);
  });

  // A person property breakdown: a person without the property is the null sentinel, last.
  agrees("test_breakdown_filtering_persons", async () => {
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      {
        person1: [at("sign up", UNFROZEN_AT, { key: "val" })],
        person2: [at("sign up", UNFROZEN_AT, { key: "val" })],
        person3: [at("sign up", UNFROZEN_AT, { key: "val" })],
      },
      { person1: { email: "test@posthog.com" }, person2: { email: "test@gmail.com" } },
    );
    for (const breakdownFilter of [
      { breakdown: "email", breakdown_type: "person" },
      { breakdowns: [{ type: "person", property: "email" }] },
    ]) {
      const results = await trends(project.id, {
        series: [ev("sign up", { name: "sign up" })],
        dateRange: TWO_WEEKS_TO_JAN_4,
        breakdownFilter,
      });
      expect(results.slice(0, 3).map((r) => [r.label, r.count])).toEqual([
        ["test@gmail.com", 1],
        ["test@posthog.com", 1],
        ["$$_posthog_breakdown_null_$$", 1],
      ]);
    }
  });

  notExpressible("test_breakdown_filtering_persons_with_action_props", "actions");

  /** Four "sign up" of blabla on 3 and 4 Jan with `$current_url`, `$browser`, `$os`. */
  const urlEvents = (oses: [string, string, string, string], ids = ["blabla", "blabla", "blabla", "blabla"]) => {
    const spec = [
      ["2020-01-03T13:01:01Z", "first url", "Firefox"],
      ["2020-01-03T13:01:01Z", "first url", "Chrome"],
      ["2020-01-04T13:01:01Z", "second url", "Firefox"],
      ["2020-01-04T13:01:01Z", "second url", "Chrome"],
    ];
    const journeys: Journeys = {};
    spec.forEach(([time, url, browser], i) =>
      (journeys[ids[i]] ??= []).push(at("sign up", time, { $current_url: url, $browser: browser, $os: oses[i] })),
    );
    return journeys;
  };
  const URL_BREAKDOWNS = [{ breakdown: "$current_url" }, { breakdowns: [{ property: "$current_url" }] }];
  const MAC_SIGN_UPS = ev("sign up", { name: "sign up", properties: [{ key: "$os", value: "Mac" }] });

  // A breakdown with a series filter and a global filter.
  agrees("test_breakdown_filtering_with_properties", async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, urlEvents(["Mac", "Windows", "Mac", "Windows"]));
    for (const breakdownFilter of URL_BREAKDOWNS) {
      const results = await trends(project.id, {
        series: [MAC_SIGN_UPS],
        dateRange: range("2019-12-29", "2020-01-05"),
        breakdownFilter,
        properties: [{ key: "$browser", value: "Firefox" }],
      });
      const sorted = [...results].sort((a, b) => String(a.label).localeCompare(String(b.label)));
      const wrap = (v: string) => ("breakdown" in breakdownFilter ? v : [v]);
      expect(sorted.map((r) => [r.label, sum(r.data), r.breakdown_value])).toEqual([
        ["first url", 1, wrap("first url")],
        ["second url", 1, wrap("second url")],
      ]);
    }
  });

  // Global filters as an OR group, then as an AND group that no event passes.
  agrees("test_breakdown_filtering_with_properties_in_new_format", async () => {
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      urlEvents(["Windows", "Mac", "Mac", "Windows"], ["blabla", "blabla", "blabla1", "blabla2"]),
    );
    const values = [
      { key: "$browser", value: "Firefox" },
      { key: "$os", value: "Windows" },
    ];
    for (const breakdownFilter of URL_BREAKDOWNS) {
      const query = (type: string) =>
        trends(project.id, {
          series: [MAC_SIGN_UPS],
          dateRange: range("2019-12-22", "2020-01-05"),
          breakdownFilter,
          properties: { type, values },
        });
      const [first] = await query("OR");
      expect([first.label, sum(first.data), first.breakdown_value]).toEqual([
        "second url",
        1,
        "breakdown" in breakdownFilter ? "second url" : ["second url"],
      ]);
      expect(await query("AND")).toEqual([]);
    }
  });

  // Monthly active users by a person property, filtered by another.
  agrees("test_mau_with_breakdown_filtering_and_prop_filter", async () => {
    const project = await createProject();
    const signUps = () => ["2020-01-02T13:01:01Z", "2020-01-03T13:01:01Z"].map((t) => at("sign up", t));
    await captureJourneys(
      project.api_token,
      { blabla: [alias("anonymous_id"), ...signUps()], blabla2: signUps(), blabla3: signUps() },
      {
        blabla: { $some_prop: "some_val", filter_prop: "filter_val" },
        blabla2: { $some_prop: "some_val3", filter_prop: "filter_val2" },
        blabla3: { $some_prop: "some_val2", filter_prop: "filter_val" },
      },
    );
    for (const breakdownFilter of [
      { breakdown: "$some_prop", breakdown_type: "person" },
      { breakdowns: [{ property: "$some_prop", type: "person" }] },
    ]) {
      const [first, second] = await trends(project.id, {
        series: [ev("sign up", { math: "monthly_active" })],
        dateRange: WEEK_TO_JAN_4,
        breakdownFilter,
        properties: [{ key: "filter_prop", value: "filter_val", type: "person" }],
        trendsFilter: { display: "ActionsLineGraph" },
      });
      expect([first.label, sum(first.data), first.data[5]]).toEqual(["some_val", 3, 1]);
      expect([second.label, sum(second.data), second.data[5]]).toEqual(["some_val2", 3, 1]);
    }
  });

  /** `_create_events()` and one more "other_value" sign up of blabla on 2 Jan (`$os` when given). */
  async function dauBreakdownEvents(token: string, os?: string) {
    await createEvents(token);
    await captureJourneys(token, {
      blabla: [at("sign up", "2020-01-02T13:01:01Z", { $some_property: "other_value", ...(os ? { $os: os } : {}) })],
    });
  }
  const SOME_PROPERTY_BREAKDOWNS = [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }];

  // Unique users per breakdown value (the action twin is not replayed); with `samplingFactor: 1` too.
  for (const [name, extra] of [
    ["test_dau_with_breakdown_filtering", {}],
    ["test_dau_with_breakdown_filtering_with_sampling", { samplingFactor: 1 }],
  ] as const) {
    agrees(name, async () => {
      const project = await createProject();
      await dauBreakdownEvents(project.api_token);
      for (const breakdownFilter of SOME_PROPERTY_BREAKDOWNS) {
        const results = await trends(project.id, {
          series: [ev("sign up", { math: "dau" })],
          dateRange: WEEK_TO_JAN_4,
          breakdownFilter,
          ...extra,
        });
        expect(results.slice(0, 3).map((r) => r.label)).toEqual([
          "other_value",
          "value",
          "$$_posthog_breakdown_null_$$",
        ]);
        expect([sum(results[0].data), results[0].data[5]]).toEqual([1, 1]);
        expect([sum(results[1].data), results[1].data[4]]).toEqual([1, 1]);
      }
    });
  }

  // Unique users per breakdown value, filtered to the one event on Windows.
  agrees("test_dau_with_breakdown_filtering_with_prop_filter", async () => {
    const project = await createProject();
    await dauBreakdownEvents(project.api_token, "Windows");
    for (const breakdownFilter of SOME_PROPERTY_BREAKDOWNS) {
      const [first] = await trends(project.id, {
        series: [ev("sign up", { math: "dau" })],
        dateRange: WEEK_TO_JAN_4,
        breakdownFilter,
        properties: [{ key: "$os", value: "Windows" }],
      });
      expect([first.label, sum(first.data), first.data[5]]).toEqual(["other_value", 1, 1]);
    }
  });

  // The same property in a series filter (icontains) and a global filter (a list of values).
  agrees("test_against_clashing_entity_and_property_filter_naming", async () => {
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      {
        blabla: [alias("anonymous_id"), at("$pageview", "2020-01-03T12:00:00Z", { $host: "app.example.com" })],
      },
      { blabla: { $some_prop: "some_val" } },
    );
    for (const breakdownFilter of [
      { breakdown: "$some_prop", breakdown_type: "person" },
      { breakdowns: [{ property: "$some_prop", type: "person" }] },
    ]) {
      const [first] = await trends(project.id, {
        series: [ev("$pageview", { properties: [{ key: "$host", operator: "icontains", value: ".com" }] })],
        dateRange: WEEK_TO_JAN_4,
        breakdownFilter,
        properties: [{ key: "$host", value: ["app.example.com", "another.com"] }],
      });
      expect(first.count).toBe(1);
    }
  });

  notExpressible("test_action_with_prop", "actions");
  notExpressible("test_combine_all_cohort_and_icontains", "actions");
  notExpressible("test_person_filtering_in_cohort_in_action", "actions");

  // A person breakdown with person and event filters; person1's distinct id belongs to person3
  // (PostHog moves it there: here person3 aliases it before person1's event).
  agrees("test_breakdown_user_props_with_filter", async () => {
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      {
        person3: [alias("person1")],
        person1: [at("sign up", UNFROZEN_AT, { key: "val" })],
        person2: [at("sign up", UNFROZEN_AT, { key: "val" })],
      },
      { person3: { email: "test@gmail.com" }, person2: { email: "test@gmail.com" } },
    );
    const results = await trends(project.id, {
      series: [ev("sign up", { name: "sign up" })],
      dateRange: TWO_WEEKS_TO_JAN_4,
      breakdownFilter: { breakdown: "email", breakdown_type: "person" },
      properties: [
        { key: "email", value: "@posthog.com", operator: "not_icontains", type: "person" },
        { key: "key", value: "val" },
      ],
    });
    expect(results.map((r) => r.breakdown_value)).toEqual(["test@gmail.com"]);
  });

  // Nested AND/OR groups mixing person and event filters, globally and on the series.
  agrees("test_trend_breakdown_user_props_with_filter_with_partial_property_pushdowns", async () => {
    const project = await createProject();
    const persons: Record<string, Record<string, string>> = {
      person1: { email: "test@posthog.com", $os: "ios", $browser: "chrome" },
      person2: { email: "test@gmail.com", $os: "ios", $browser: "safari" },
      person3: { email: "test2@posthog.com", $os: "android", $browser: "chrome" },
      person32: { email: "test2@posthog.com", $os: "android", $browser: "chrome" },
      person4: { email: "test3@posthog.com", $os: "android", $browser: "safari" },
      person5: { email: "test4@posthog.com", $os: "android", $browser: "safari" },
      person6: { email: "test5@posthog.com", $os: "android", $browser: "safari" },
    };
    await captureJourneys(
      project.api_token,
      Object.fromEntries(Object.keys(persons).map((p) => [p, [at("sign up", "2020-05-01T00:00:00Z", { key: "val" })]])),
      persons,
    );
    const person = (key: string, value: string, operator = "exact") => ({ key, value, operator, type: "person" });
    const query = (series: Record<string, unknown>, properties: Record<string, unknown>) =>
      trends(project.id, {
        series: [series],
        dateRange: range("2020-01-01 00:00:00", "2020-07-01 00:00:00"),
        breakdownFilter: { breakdown: "email", breakdown_type: "person" },
        properties,
      });
    const loose = await query(ev("sign up", { name: "sign up" }), {
      type: "AND",
      values: [
        { type: "OR", values: [person("email", "@posthog.com", "not_icontains"), { key: "key", value: "val" }] },
        { type: "OR", values: [person("$os", "android"), person("$browser", "safari")] },
      ],
    });
    expect(loose.map((r) => r.breakdown_value).sort()).toEqual([
      "test2@posthog.com",
      "test3@posthog.com",
      "test4@posthog.com",
      "test5@posthog.com",
      "test@gmail.com",
    ]);
    const strict = await query(
      ev("sign up", {
        name: "sign up",
        properties: {
          type: "AND",
          values: [{ key: "key", value: "val" }, person("email", "@posthog.com", "icontains")],
        },
      }),
      { type: "AND", values: [{ type: "AND", values: [person("$os", "android"), person("$browser", "chrome")] }] },
    );
    expect(strict.map((r) => r.breakdown_value)).toEqual(["test2@posthog.com"]);
  });

  /** One weekly-active-users series of `$pageview` over the active users' events. */
  async function weeklyActive(projectId: number, query: Record<string, unknown>) {
    return trends(projectId, { series: [ev("$pageview", { math: "weekly_active" })], ...query });
  }

  // A table's weekly active users: those of the 7 days ending at date_to (only p0), with `samplingFactor: 1` too.
  for (const [name, extra] of [
    ["test_weekly_active_users_aggregated_range_wider_than_week", {}],
    ["test_weekly_active_users_aggregated_range_wider_than_week_with_sampling", { samplingFactor: 1 }],
  ] as const) {
    agrees(name, async () => {
      const project = await createProject();
      await createActiveUsersEvents(project.api_token);
      const [series] = await weeklyActive(project.id, {
        dateRange: range("2020-01-01", "2020-01-18"),
        trendsFilter: { display: "ActionsTable" },
        ...extra,
      });
      expect(series.aggregated_value).toBe(1);
    });
  }

  // A table over two days: all three were active in the 7 days ending on 12 Jan.
  agrees("test_weekly_active_users_aggregated_range_narrower_than_week", async () => {
    const project = await createProject();
    await createActiveUsersEvents(project.api_token);
    const [series] = await weeklyActive(project.id, {
      dateRange: range("2020-01-11", "2020-01-12"),
      trendsFilter: { display: "ActionsTable" },
    });
    expect(series.aggregated_value).toBe(3);
  });

  // Weekly active users per day, events before the range counting (in three time zones).
  agrees("test_weekly_active_users_daily", async () => {
    for (const [zone] of ZONES) {
      const project = await createProject(undefined, zone);
      await createActiveUsersEvents(project.api_token);
      const [series] = await weeklyActive(project.id, { dateRange: range("2020-01-08", "2020-01-19") });
      expect(series.days, zone).toEqual(dayDates("2020-01-08", 12));
      expect(series.data, zone).toEqual([1, 3, 2, 2, 3, 3, 3, 3, 3, 3, 1, 0]);
    }
  });

  notExpressible("test_weekly_active_groups_daily", "group aggregation");
  notExpressible("test_weekly_active_users_daily_based_on_action", "actions");

  // Weekly active users by week are unique users per week (in three time zones).
  agrees("test_weekly_active_users_weekly", async () => {
    for (const [zone] of ZONES) {
      const project = await createProject(undefined, zone);
      await createActiveUsersEvents(project.api_token);
      const [series] = await weeklyActive(project.id, {
        dateRange: range("2019-12-29", "2020-01-18"),
        interval: "week",
      });
      expect(series.days, zone).toEqual(["2019-12-29", "2020-01-05", "2020-01-12"]);
      expect(series.data, zone).toEqual([1, 2, 1]);
    }
  });

  // Weekly active users per hour: the 7 × 24 hours ending with each.
  agrees("test_weekly_active_users_hourly", async () => {
    const project = await createProject();
    await createActiveUsersEvents(project.api_token);
    const [series] = await weeklyActive(project.id, {
      dateRange: range("2020-01-09T06:00:00Z", "2020-01-09T17:00:00Z"),
      interval: "hour",
    });
    expect(series.days).toEqual(
      Array.from({ length: 12 }, (_, i) => `2020-01-09 ${String(6 + i).padStart(2, "0")}:00:00`),
    );
    expect(series.data).toEqual([1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3]);
  });

  // Hourly weekly active users across a whole week: who drops out at which hour.
  agrees("test_weekly_active_users_hourly_full_week", async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, {
      p0: [at("$pageview", "2020-01-03T10:59:59Z", { key: "val" })],
      p1: [at("$pageview", "2020-01-03T11:00:00Z", { key: "val" })],
      p2: [at("$pageview", "2020-01-03T11:00:01Z", { key: "val" })],
    });
    const [series] = await weeklyActive(project.id, {
      dateRange: range("2020-01-03T00:00:00Z", "2020-01-11T17:00:00Z"),
      interval: "hour",
    });
    expect(sum(series.data)).toBe(24 * 7 * 3);
    expect([series.days[10], series.data[10]]).toEqual(["2020-01-03 10:00:00", 1]);
    expect(series.days[11]).toBe("2020-01-03 11:00:00");
    expect(series.data.slice(11, 178).every((x: number) => x === 3)).toBe(true);
    expect([series.days[178], series.data[178]]).toEqual(["2020-01-10 10:00:00", 2]);
  });

  notExpressible(
    "test_weekly_active_users_daily_based_on_action_with_zero_person_ids",
    "events with the zero person id (person-on-events only)",
  );

  /** p1 (`$pageview` on 9, 10, 11 Jan) and p2 (9, 11 Jan), all with `key: val`. */
  async function breakdownActiveUsers(token: string) {
    const views = (...days: string[]) => days.map((d) => at("$pageview", `2020-01-${d}T12:00:00Z`, { key: "val" }));
    await captureJourneys(
      token,
      { p1: views("09", "10", "11"), p2: views("09", "11") },
      {
        p1: { name: "p1" },
        p2: { name: "p2" },
      },
    );
  }

  // Weekly active users per day by an event property.
  agrees("test_breakdown_weekly_active_users_daily", async () => {
    const project = await createProject();
    await breakdownActiveUsers(project.api_token);
    const [series] = await weeklyActive(project.id, {
      dateRange: range("2020-01-01T00:00:00Z", "2020-01-12T00:00:00Z"),
      breakdownFilter: { breakdown: "key" },
    });
    expect(series.data).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2]);
  });

  // Weekly active users per day, filtered by a person property matching a list.
  agrees("test_weekly_active_users_filtering", async () => {
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      {
        p1: [at("$pageview", "2020-01-09T12:00:00Z")],
        p2: [at("$pageview", "2020-01-10T12:00:00Z")],
        p3: [at("$pageview", "2020-01-11T12:00:00Z")],
      },
      { p1: { name: "person-1" }, p2: { name: "person-2" }, p3: { name: "person-3" } },
    );
    const [series] = await weeklyActive(project.id, {
      dateRange: range("2020-01-01T00:00:00Z", "2020-01-12T00:00:00Z"),
      properties: [{ key: "name", operator: "exact", value: ["person-1", "person-2"], type: "person" }],
    });
    expect(series.data).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2]);
  });

  notExpressible("test_breakdown_weekly_active_users_daily_based_on_action", "actions");

  // A table's weekly active users by an event property, over one day.
  agrees("test_breakdown_weekly_active_users_aggregated", async () => {
    const project = await createProject();
    await createActiveUsersEvents(project.api_token);
    const results = await weeklyActive(project.id, {
      dateRange: range("2020-01-11", "2020-01-11"),
      trendsFilter: { display: "ActionsTable" },
      breakdownFilter: { breakdown: "key" },
    });
    expect(results.map((r) => [r.breakdown_value, r.aggregated_value])).toEqual([
      ["bor", 2],
      ["val", 2],
    ]);
  });

  // Bar-by-value totals per breakdown value, with no days.
  agrees("test_breakdown_filtering_bar_chart_by_value", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const results = await trends(project.id, {
      series: [ev("sign up", { name: "sign up" })],
      dateRange: WEEK_TO_JAN_4,
      breakdownFilter: { breakdown: "$some_property" },
      trendsFilter: { display: "ActionsBarValue" },
    });
    expect(results.slice(0, 3).map((r) => r.aggregated_value)).toEqual([1, 1, 2]);
    expect(results[0].days).toEqual([]);
  });

  notExpressible("test_breakdown_multiple_cohorts", "cohort breakdowns");
  notExpressible("test_breakdown_single_cohort", "cohort breakdowns");
  notExpressible("test_filtering_with_action_props", "actions");
  notExpressible("test_trends_math_without_math_property", "skipped in PostHog (pytest.mark.skip)");
  notExpressible("test_should_throw_exception", "injects a failure into the query runner");
  // dStart.
  notExpressible("test_timezones_hourly_relative_from", "relative to a frozen clock");

  // Hour buckets of one local day, then the day itself (in three time zones).
  agrees("test_timezones_hourly_absolute_from", async () => {
    for (const [zone, offset] of ZONES) {
      const project = await createProject(undefined, zone);
      const signUp = (time: string, url: string) =>
        at("sign up", wall(time, offset), { $current_url: url, $browser: "Firefox", $os: "Mac" });
      await captureJourneys(project.api_token, {
        blabla: [
          signUp("2020-01-02T17:01:01", "first url"),
          signUp("2020-01-03T17:01:01", "second url"),
          signUp("2020-01-06T00:30:01", "second url"),
        ],
      });
      const [hourly] = await trends(project.id, {
        series: [ev("sign up", { name: "sign up" })],
        dateRange: range("2020-01-03", "2020-01-03 23:59:59"),
        interval: "hour",
      });
      expect(hourly.days, zone).toEqual(
        Array.from({ length: 24 }, (_, h) => `2020-01-03 ${String(h).padStart(2, "0")}:00:00`),
      );
      expect(hourly.data[17], zone).toBe(1);
      expect(hourly.data, zone).toHaveLength(24);
      const [daily] = await trends(project.id, {
        series: [ev("sign up", { name: "sign up" })],
        dateRange: range("2020-01-03", "2020-01-03"),
      });
      expect(daily.data, zone).toEqual([1]);
    }
  });

  // Local days for totals, unique users, weekly active users and breakdowns (in three time zones).
  agrees("test_timezones_daily", async () => {
    for (const [zone, offset] of ZONES) {
      const project = await createProject(undefined, zone);
      const signUp = (time: string, url: string) =>
        at("sign up", wall(time, offset), { $current_url: url, $browser: "Firefox", $os: "Mac" });
      await captureJourneys(project.api_token, {
        blabla: [
          signUp("2020-01-02T17:01:01", "first url"),
          signUp("2020-01-03T17:01:01", "second url"),
          signUp("2020-01-06T00:30:01", "second url"),
        ],
      });
      // -7d frozen on 5 Jan (local 05:00, then 13:01 UTC: the same local day in these zones), -14d for DAU.
      const week = range("2019-12-29", "2020-01-05");
      const WEEK_LABELS = dayLabels("2019-12-29", 8);
      const query = async (node: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        (await trends(project.id, { series: [ev("sign up", { name: "sign up", ...node })], ...extra }))[0];
      const total = await query({}, { dateRange: week });
      expect([total.data, total.labels], zone).toEqual([[0, 0, 0, 0, 1, 1, 0, 0], WEEK_LABELS]);
      const dau = await query({ math: "dau" }, { dateRange: range("2019-12-22", "2020-01-05") });
      expect([dau.data, dau.labels], zone).toEqual([
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0],
        dayLabels("2019-12-22", 15),
      ]);
      const wau = await query({ math: "weekly_active" }, { dateRange: week });
      expect([wau.data, wau.labels], zone).toEqual([[0, 0, 0, 0, 1, 1, 1, 1], WEEK_LABELS]);
      // PostHog's test puts `breakdown` inside the series, where it is no field: a plain series.
      const plain = await query({}, { dateRange: week });
      expect([plain.data, plain.labels], zone).toEqual([[0, 0, 0, 0, 1, 1, 0, 0], WEEK_LABELS]);
      const byOs = await query({ math: "dau" }, { dateRange: week, breakdownFilter: { breakdown: "$os" } });
      expect(byOs.data, zone).toEqual([0, 0, 0, 0, 1, 1, 0, 0]);
    }
  });

  // Weeks across a DST change (US/Pacific): every week keeps its event.
  agrees("test_non_deterministic_timezones", async () => {
    const project = await createProject(undefined, "US/Pacific");
    await captureJourneys(project.api_token, {
      blabla: [
        "2022-11-03T01:01:01Z",
        "2022-11-10T01:01:01Z",
        "2022-11-17T08:30:01Z",
        "2022-11-24T08:30:01Z",
        "2022-11-30T08:30:01Z",
      ].map((t) => at("sign up", t, { $browser: "Firefox", $os: "Mac" })),
    });
    // -30d frozen on 2022-11-30 13:01 UTC (05:01 local).
    const [series] = await trends(project.id, {
      series: [ev("sign up", { name: "sign up" })],
      dateRange: range("2022-10-31", "2022-11-30"),
      interval: "week",
    });
    expect(series.data).toEqual([1, 1, 1, 1, 1]);
  });

  // Week buckets starting on Sunday, then on Monday (the project's week_start_day), in three time zones.
  agrees("test_timezones_weekly", async () => {
    for (const [zone, offset] of ZONES) {
      const project = await createProject(undefined, zone);
      const signUp = (time: string) => at("sign up", wall(time, offset), { $browser: "Firefox", $os: "Mac" });
      await captureJourneys(project.api_token, {
        blabla: [signUp("2020-01-11T19:01:01"), signUp("2020-01-12T02:01:01"), signUp("2020-01-21T18:01:01")],
      });
      // -14d frozen on local 2020-01-26 03:00.
      const query = async () =>
        (
          await trends(project.id, {
            series: [ev("sign up", { name: "sign up" })],
            dateRange: range("2020-01-12", "2020-01-26"),
            interval: "week",
          })
        )[0];
      await patchProject(project.id, { week_start_day: 0 });
      const sunday = await query();
      expect([sunday.days, sunday.data], zone).toEqual([
        ["2020-01-12", "2020-01-19", "2020-01-26"],
        [1, 1, 0],
      ]);
      await patchProject(project.id, { week_start_day: 1 });
      const monday = await query();
      expect([monday.days, monday.data], zone).toEqual([
        ["2020-01-06", "2020-01-13", "2020-01-20"],
        [1, 0, 1],
      ]);
    }
  });

  // One day's range from date_from to date_to equal.
  agrees("test_same_day", async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, {
      blabla: [at("sign up", "2020-01-03T01:01:01Z", { $current_url: "first url", $browser: "Firefox", $os: "Mac" })],
    });
    const [series] = await trends(project.id, {
      series: [ev("sign up", { name: "sign up" })],
      dateRange: range("2020-01-03", "2020-01-03"),
    });
    expect(series.data).toEqual([1]);
  });

  // Two persons' events, then the persons merged (PostHog: a person id override): two events, one user.
  agrees("test_same_day_with_person_on_events_v2", async () => {
    const project = await createProject();
    const signUp = at("sign up", "2020-01-03T01:01:01Z", {
      $current_url: "first url",
      $browser: "Firefox",
      $os: "Mac",
    });
    await captureJourneys(project.api_token, {
      distinctid1: [signUp],
      distinctid2: [signUp, at("$merge_dangerously", "2020-01-03T02:00:00Z", { alias: "distinctid1" })],
    });
    const day = range("2020-01-03", "2020-01-03");
    const [events] = await trends(project.id, { series: [ev("sign up", { name: "sign up" })], dateRange: day });
    expect(events.data).toEqual([2]);
    const [users] = await trends(project.id, {
      series: [ev("sign up", { name: "sign up", math: "dau" })],
      dateRange: day,
    });
    expect(users.data).toEqual([1]);
  });

  notExpressible(
    "test_same_day_with_person_on_events_v2_latest_override",
    "person id overrides re-pointed by version (person-on-events v2)",
  );

  // Several negative filters on event and person properties: the query answers (no events).
  agrees("test_ilike_regression_with_current_clickhouse_version", async () => {
    const project = await createProject();
    const notPosthog = (key: string, type: string) => ({ key, type, value: "posthog.com", operator: "not_icontains" });
    await trends(project.id, {
      series: [ev("watched movie", { name: "watched movie" })],
      dateRange: TWO_WEEKS_TO_JAN_4,
      properties: [notPosthog("email", "event"), notPosthog("name", "event"), notPosthog("name", "person")],
    });
  });

  notExpressible("test_trends_count_per_user_average_daily", "count per actor math");
  notExpressible("test_trends_count_per_user_average_weekly", "count per actor math");
  notExpressible("test_trends_count_per_user_average_aggregated", "count per actor math");
  notExpressible("test_trends_count_per_user_maximum", "count per actor math");
  notExpressible("test_trends_count_per_user_average_with_event_property_breakdown", "count per actor math");
  notExpressible("test_trends_count_per_user_average_with_person_property_breakdown", "count per actor math");
  notExpressible("test_trends_count_per_user_average_aggregated_with_event_property_breakdown", "count per actor math");
  notExpressible(
    "test_trends_count_per_user_average_aggregated_with_event_property_breakdown_with_sampling",
    "count per actor math",
  );
  notExpressible("test_trends_count_per_group_average_daily", "group aggregation");
  notExpressible("test_trends_count_per_group_average_aggregated", "group aggregation");

  // Month buckets in US/Pacific for each breakdown value (`_create_event_count_per_actor_events()`).
  agrees("test_trends_breakdown_timezone", async () => {
    const project = await createProject(undefined, "US/Pacific");
    const video = (time: string, props: Record<string, unknown>) => at("viewed video", time, props);
    await captureJourneys(
      project.api_token,
      {
        blabla: [
          alias("anonymous_id"),
          video("2020-01-01T00:06:02Z", { $group_0: "bouba" }),
          video("2020-01-05T19:06:34Z", { color: "blue", $group_0: "bouba" }),
        ],
        anonymous_id: [video("2020-01-01T00:06:02Z", { color: "red", $group_0: "bouba" })],
        reeree: [video("2020-01-01T00:06:02Z", { color: "blue", $group_0: "bouba" })],
        tintin: [
          at("sign up", "2020-01-01T00:06:02Z", { $group_0: "kiki" }),
          video("2020-01-04T23:17:00Z", { color: "red", $group_0: "kiki" }),
          video("2020-01-05T19:06:34Z", { color: "red" }),
          video("2020-01-05T19:06:34Z", { color: "red", $group_0: "bouba" }),
          video("2020-01-05T19:06:34Z", { color: "blue", $group_0: "kiki" }),
        ],
        murmur: [at("sign up", "2020-01-03T19:06:34Z", { $group_0: "kiki" })],
        another_user: [video("2020-01-03T19:06:34Z", { color: "orange" })],
      },
      { blabla: { fruit: "mango" }, tintin: { fruit: "mango" }, reeree: { fruit: "tomato" } },
    );
    const results = await trends(project.id, {
      series: [ev("viewed video", { math: "dau" })],
      dateRange: range("2020-01-01", "2020-03-07"),
      interval: "month",
      breakdownFilter: { breakdown: "color" },
      trendsFilter: { display: "ActionsLineGraph" },
    });
    for (const r of results.slice(0, 3)) expect(r.days).toEqual(["2020-01-01", "2020-02-01", "2020-03-01"]);
  });

  notExpressible("test_breakdown_with_filter_groups", "group properties");
  notExpressible("test_breakdown_with_filter_groups_person_on_events", "group properties");
  notExpressible("test_breakdown_with_filter_groups_person_on_events_v2", "group properties");
  notExpressible("test_breakdown_by_group_props", "group properties");
  notExpressible("test_breakdown_by_group_props_person_on_events", "group properties");
  notExpressible("test_breakdown_by_group_props_with_person_filter", "group properties");
  notExpressible("test_filtering_with_group_props", "group properties");
  notExpressible("test_filtering_with_group_props_event_with_no_group_data", "group properties");
  notExpressible("test_breakdown_by_group_props_with_person_filter_person_on_events", "group properties");
  notExpressible("test_filtering_with_group_props_person_on_events", "group properties");
  notExpressible("test_filtering_by_multiple_groups_person_on_events", "group properties");
  // -1dStart, -1dEnd.
  notExpressible("test_yesterday_with_hourly_interval", "relative to a frozen clock");
});
