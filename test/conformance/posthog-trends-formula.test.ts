import { expect } from "vitest";
import { call, createProject } from "../helpers";
import { at, captureJourneys } from "./analysis-helpers";
import { agrees, conformance, notExpressible } from "./ledger";
import { alias, dayDates, dayLabels, ev, NULL_BREAKDOWN, range, trends, WEEK_TO_JAN_4 } from "./trends-helpers";

/**
 * PostHog's trends formula tests (posthog/hogql_queries/insights/trends/test/test_formula.py),
 * replayed as TrendsQuery through `POST /api/environments/:project_id/query/`.
 *
 * `setUp` gives one person (blabla, anonymous_id) "session start" and "session end" events on 2 and
 * 3 Jan 2020 with `xyz`, `location` and one `$session_id`; `_run` asks for the sum and the average of
 * `xyz` with the formula `A + B`, its `extra` replacing whole keys of that query. The tests freeze
 * the clock (2020-01-04 13:01:01 unless `run_at` says otherwise); a relative range is written as the
 * absolute dates it meant then, as in posthog-trends.test.ts. The group PostHog's setUp creates
 * (`$group_0`) is left out: edgehog refuses group math, and no replayed case reads it.
 */

const SESSION = "session-1";

/** `setUp()` in a new project; returns `_run(extra)`. */
async function formulaProject() {
  const project = await createProject();
  const event = (name: string, time: string, xyz: number, location: string, extra: Record<string, unknown> = {}) =>
    at(name, time, { xyz, location, $session_id: SESSION, ...extra });
  const [jan2, jan3, jan3Later] = ["2020-01-02T13:01:01Z", "2020-01-03T13:01:01Z", "2020-01-03T13:04:01Z"];
  await captureJourneys(
    project.api_token,
    {
      blabla: [
        alias("anonymous_id"),
        event("session start", jan2, 200, "Paris", { $current_url: "http://example.org" }),
        event("session start", jan2, 300, "Paris"),
        event("session start", jan2, 400, "London"),
        event("session start", jan3, 400, "London"),
        event("session start", jan3Later, 500, "London"),
        event("session end", jan3Later, 500, "London"),
        event("session end", jan3Later, 500, "Belo Horizonte"),
        event("session end", jan3Later, 400, ""),
      ],
    },
    { blabla: { $some_prop: "some_val" } },
  );
  const query = (extra: Record<string, unknown> = {}) => ({
    series: [
      ev("session start", { math: "sum", math_property: "xyz" }),
      ev("session start", { math: "avg", math_property: "xyz" }),
    ],
    trendsFilter: { formula: "A + B" },
    dateRange: WEEK_TO_JAN_4,
    ...extra,
  });
  return {
    id: project.id,
    query,
    run: (extra?: Record<string, unknown>) => trends(project.id, query(extra)),
  };
}

/** `n` zeros with `values` placed at their indexes. */
const zerosWith = (n: number, values: Record<number, number>) => Array.from({ length: n }, (_, i) => values[i] ?? 0);

const BY_LOCATION = { breakdownFilter: { breakdown: "location" } };

conformance({ name: "PostHog trends tests (test_formula.py)", version: "031e5805fc" }, () => {
  // `-24h` by hour frozen on 2020-01-03 13:05:01: the 25 hours from 2 Jan 13:00.
  agrees("test_hour_interval_hour_level_relative", async () => {
    const { run } = await formulaProject();
    const [series] = await run({
      dateRange: range("2020-01-02 13:00:00", "2020-01-03 13:59:59"),
      interval: "hour",
    });
    expect(series.data).toEqual(zerosWith(25, { 0: 1200, 24: 1350 }));
  });

  // `-1d` by hour frozen on 2020-01-03 13:05:01: from 2 Jan 00:00, 38 hours.
  agrees("test_hour_interval_day_level_relative", async () => {
    const { run } = await formulaProject();
    const [series] = await run({ dateRange: range("2020-01-02", "2020-01-03 13:59:59"), interval: "hour" });
    expect(series.data).toEqual(zerosWith(38, { 13: 1200, 37: 1350 }));
  });

  // `-3d` frozen on 2020-01-03: the sum plus the average per day.
  agrees("test_day_interval", async () => {
    const { run } = await formulaProject();
    const [series] = await run({ dateRange: range("2019-12-31", "2020-01-03") });
    expect(series.data).toEqual([0, 0, 1200, 1350]);
  });

  // `-2w` by week frozen on 2020-01-03: the last week's sum (1800) plus its average (360).
  agrees("test_week_interval", async () => {
    const { run } = await formulaProject();
    const [series] = await run({ dateRange: range("2019-12-20", "2020-01-03"), interval: "week" });
    expect(series.data).toEqual([0, 0, 2160]);
  });

  // `-2m` by month frozen on 2020-01-03.
  agrees("test_month_interval", async () => {
    const { run } = await formulaProject();
    const [series] = await run({ dateRange: range("2019-11-03", "2020-01-03"), interval: "month" });
    expect(series.data).toEqual([0, 0, 2160]);
  });

  // Each operator, bucket by bucket; a division by zero is 0; `count` is the data's sum.
  agrees("test_formula", async () => {
    const { run } = await formulaProject();
    const formula = async (text: string) => (await run({ trendsFilter: { formula: text } }))[0];
    expect((await formula("A - B")).data).toEqual([0, 0, 0, 0, 0, 600, 450, 0]);
    expect((await formula("A * B")).data).toEqual([0, 0, 0, 0, 0, 270000, 405000, 0]);
    expect((await formula("A / B")).data).toEqual([0, 0, 0, 0, 0, 3, 2, 0]);
    const scaled = await formula("(A/3600)/B");
    expect(scaled.data).toEqual([0, 0, 0, 0, 0, 1 / 1200, 1 / 1800, 0]);
    expect(scaled.count).toBe(1 / 720);
    const byZero = await formula("A/0");
    expect(byZero.data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(byZero.count).toBe(0);
  });

  // Unique sessions over unique users: one session, one person each day.
  agrees("test_formula_with_unique_sessions", async () => {
    const { run } = await formulaProject();
    const [series] = await run({
      series: [ev("session start", { math: "unique_session" }), ev("session start", { math: "dau" })],
      trendsFilter: { formula: "A / B" },
    });
    expect(series.data).toEqual([0, 0, 0, 0, 0, 1, 1, 0]);
  });

  notExpressible("test_regression_formula_with_unique_sessions_2x_and_duration_filter", "session properties");
  notExpressible("test_regression_formula_with_unique_sessions_2x_and_duration_filter_2x", "session properties");
  notExpressible("test_regression_formula_with_session_duration_aggregation", "session properties");

  // A bold number over a series with events and one without: the formula of the two totals.
  agrees("test_aggregated_one_without_events", async () => {
    const { run } = await formulaProject();
    const [first] = await run({
      trendsFilter: { display: "BoldNumber", formula: "B + A" },
      series: [
        ev("session start", { name: "session start", math: "sum", math_property: "xyz" }),
        ev("session error", { name: "session error", math: "sum", math_property: "session not here" }),
      ],
    });
    expect(first.aggregated_value).toBe(1800);
    expect(first.label).toBe("Formula (B + A)");
  });

  // A formula per breakdown value, values ordered by total; the label stays the formula's.
  agrees("test_breakdown", async () => {
    const { run } = await formulaProject();
    const results = await run({ trendsFilter: { formula: "A - B" }, ...BY_LOCATION });
    expect(results).toHaveLength(2);
    expect([results[0].data, results[0].breakdown_value]).toEqual([[0, 0, 0, 0, 0, 0, 450, 0], "London"]);
    expect([results[1].data, results[1].label, results[1].breakdown_value]).toEqual([
      [0, 0, 0, 0, 0, 250, 0, 0],
      "Formula (A - B)",
      "Paris",
    ]);
  });

  // The same as a pie: the formula of each value's totals (London 1300 − 1300/3).
  agrees("test_breakdown_aggregated", async () => {
    const { run } = await formulaProject();
    const results = await run({ trendsFilter: { formula: "A - B", display: "ActionsPie" }, ...BY_LOCATION });
    expect(results.map((r) => [r.aggregated_value, r.label, r.breakdown_value])).toEqual([
      [866.6666666666667, "Formula (A - B)", "London"],
      [250, "Formula (A - B)", "Paris"],
    ]);
  });

  // Values only the second series has count (Belo Horizonte), an empty value is the null sentinel;
  // Paris and Belo Horizonte tie on their totals (500), Paris first.
  agrees("test_breakdown_with_different_breakdown_values_per_series", async () => {
    const { run } = await formulaProject();
    const results = await run({
      series: [
        ev("session start", { math: "sum", math_property: "xyz" }),
        ev("session end", { math: "sum", math_property: "xyz" }),
      ],
      trendsFilter: { formula: "A + B" },
      ...BY_LOCATION,
    });
    expect(results.map((r) => [r.data, r.label, r.breakdown_value])).toEqual([
      [[0, 0, 0, 0, 0, 400, 1400, 0], "Formula (A + B)", "London"],
      [[0, 0, 0, 0, 0, 500, 0, 0], "Formula (A + B)", "Paris"],
      [[0, 0, 0, 0, 0, 0, 500, 0], "Formula (A + B)", "Belo Horizonte"],
      [[0, 0, 0, 0, 0, 0, 400, 0], "Formula (A + B)", NULL_BREAKDOWN],
    ]);
  });

  // B has no events: B / A is zero for each of A's values; the whole objects, Paris before London
  // (equal in everything, PostHog orders by the value descending).
  agrees("test_breakdown_counts_of_different_events_one_without_events", async () => {
    const { run } = await formulaProject();
    const results = await run({
      trendsFilter: { display: "ActionsLineGraph", formula: "B / A" },
      breakdownFilter: { breakdown: "location", breakdown_type: "event" },
      series: [ev("session start", { name: "session start" }), ev("session error", { name: "session error" })],
    });
    const object = (breakdown_value: string) => ({
      data: [0, 0, 0, 0, 0, 0, 0, 0],
      count: 0,
      labels: dayLabels("2019-12-28", 8),
      days: dayDates("2019-12-28", 8),
      label: "Formula (B / A)",
      breakdown_value,
      action: null,
      filter: expect.anything(),
      order: 0,
    });
    expect(results).toEqual([object("Paris"), object("London")]);
  });

  notExpressible("test_breakdown_cohort", "cohort breakdowns");
  notExpressible("test_breakdown_hogql", "HogQL breakdowns");
  notExpressible("test_breakdown_hogql_with_as_alias", "HogQL breakdowns");
  notExpressible("test_breakdown_hogql_alias_forms", "HogQL breakdowns");
  notExpressible("test_multiple_breakdowns_with_hogql_aliases", "HogQL breakdowns");

  // Event counts of two events with different breakdown values: every value of either series.
  agrees("test_breakdown_mismatching_sizes", async () => {
    const { run } = await formulaProject();
    const results = await run({
      series: [ev("session start"), ev("session end")],
      breakdownFilter: { breakdown: "location" },
      trendsFilter: { formula: "A + B" },
    });
    expect(results.map((r) => [r.breakdown_value, r.data])).toEqual([
      ["London", [0, 0, 0, 0, 0, 1, 3, 0]],
      ["Paris", [0, 0, 0, 0, 0, 2, 0, 0]],
      ["Belo Horizonte", [0, 0, 0, 0, 0, 0, 1, 0]],
      [NULL_BREAKDOWN, [0, 0, 0, 0, 0, 0, 1, 0]],
    ]);
  });

  // A global filter: only the event with the URL (200 + 200).
  agrees("test_global_properties", async () => {
    const { run } = await formulaProject();
    const [series] = await run({ properties: [{ key: "$current_url", value: "http://example.org" }] });
    expect(series.data).toEqual([0, 0, 0, 0, 0, 400, 0, 0]);
  });

  // A filter value full of URL escapes matches nothing (and is no error).
  agrees("test_properties_with_escape_params", async () => {
    const { run } = await formulaProject();
    const value =
      "http://localhost:8000/insights?insight=TRENDS&interval=day&display=ActionsLineGraph&actions=%5B%5D&events=%5B%7B%22id%22%3A%22%24pageview%22%2C%22name%22%3A%22%24pageview%22%2C%22type%22%3A%22events%22%2C%22order%22%3A0%7D%2C%7B%22id%22%3A%22%24pageview%2";
    const [series] = await run({ properties: [{ key: "$current_url", value }] });
    expect(series.data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  // A filter on the first series only.
  agrees("test_event_properties", async () => {
    const { run } = await formulaProject();
    const [series] = await run({
      series: [
        ev("session start", {
          math: "sum",
          math_property: "xyz",
          properties: [{ key: "$current_url", value: "http://example.org" }],
        }),
        ev("session start", { math: "avg", math_property: "xyz" }),
      ],
    });
    expect(series.data).toEqual([0, 0, 0, 0, 0, 500, 450, 0]);
  });

  // Compare over `-1dStart` frozen on 2020-01-04 (3–4 Jan): the formula of each period, current first.
  agrees("test_compare", async () => {
    const { run } = await formulaProject();
    const [current, previous] = await run({
      dateRange: range("2020-01-03", "2020-01-04"),
      compareFilter: { compare: true },
    });
    expect([current.days, current.data]).toEqual([
      ["2020-01-03", "2020-01-04"],
      [1350, 0],
    ]);
    expect([previous.days, previous.data]).toEqual([
      ["2020-01-01", "2020-01-02"],
      [0, 1200],
    ]);
  });

  // A pie: the formula of the totals over the range (1800 + 360).
  agrees("test_aggregated", async () => {
    const { run } = await formulaProject();
    const [first] = await run({ trendsFilter: { display: "ActionsPie", formula: "A + B" } });
    expect(first.aggregated_value).toBe(2160);
  });

  // Cumulative: one object, the formula of the running values.
  agrees("test_cumulative", async () => {
    const { run } = await formulaProject();
    const results = await run({ trendsFilter: { display: "ActionsLineGraphCumulative", formula: "A + B" } });
    expect(results).toHaveLength(1);
    expect(results[0].data).toEqual([0, 0, 0, 0, 0, 1200, 2550, 2550]);
    expect(results[0].days).toEqual(dayDates("2019-12-28", 8));
  });

  // A third series the formula does not name changes nothing.
  agrees("test_multiple_events", async () => {
    const { run } = await formulaProject();
    const [series] = await run({
      series: [
        ev("session start", { math: "sum", math_property: "xyz" }),
        ev("session start", { math: "avg", math_property: "xyz" }),
        ev("session start", { math: "avg", math_property: "xyz" }),
      ],
    });
    expect(series.data).toEqual([0, 0, 0, 0, 0, 1200, 1350, 0]);
  });

  // Unique sessions plus unique sessions.
  agrees("test_session_formulas", async () => {
    const { run } = await formulaProject();
    const [series] = await run({
      series: [ev("session start", { math: "unique_session" }), ev("session start", { math: "unique_session" })],
    });
    expect(series.data).toEqual([0, 0, 0, 0, 0, 2, 2, 0]);
  });

  notExpressible("test_group_formulas", "group aggregation");
  notExpressible("test_formula_with_hogql_math_no_matching_events", "HogQL math");

  // A formula naming a series the query lacks is refused (PostHog: ExposedHogQLError, a 400).
  agrees("test_formula_referencing_missing_series_returns_error", async () => {
    const { id, query } = await formulaProject();
    const res = await call(`/api/environments/${id}/query/`, {
      method: "POST",
      body: {
        query: {
          kind: "TrendsQuery",
          ...query({
            series: [ev("session start", { math: "sum", math_property: "xyz" })],
            trendsFilter: { formula: "A/B" },
          }),
        },
      },
    });
    expect(res.status, res.text).toBe(400);
  });
});
