import { expect } from "vitest";
import { createProject } from "../helpers";
import { at, captureJourneys, idRange } from "./analysis-helpers";
import { agrees, conformance, deliberate, notExpressible } from "./ledger";
import { alias, dayDates, ev, NULL_BREAKDOWN, OTHER_BREAKDOWN, range, trends, trendsPersons } from "./trends-helpers";

/**
 * PostHog's trends persons tests (posthog/hogql_queries/insights/trends/test/test_trends_persons.py),
 * replayed through `POST /api/environments/:project_id/query/`: an ActorsQuery over an
 * InsightActorsQuery of a TrendsQuery, selecting `actor`, `created_at`, `event_count` and
 * `matched_recordings`, most events first (PostHog's `get_actors`, see trendsPersons). Persons are
 * compared as `distinct_id:event_count` (the ids alone where PostHog asserts no count), in the answer's
 * order where PostHog asserts one.
 *
 * Dates: these tests do not freeze the clock, so their `-7d` is the week before the test run, and the
 * `day` asked lies outside it. PostHog still answers, because a relative range does not bound a day's
 * persons (only an explicit one does); edgehog answers a day only inside the query's range. So the range
 * is written as the absolute dates that hold every day a test asks about: for `_create_events`, `-7d`
 * frozen on 6 May 2023 (29 April to 6 May, the week of its events), and its `-90d` and `-180d` too;
 * for a test's own events, `-7d` frozen on the last day the test asks about.
 */

const TO_MAY_6 = range("2023-04-29", "2023-05-06");
/** `-180d` frozen on 6 May 2023. */
const TO_MAY_6_180D = range("2022-11-07", "2023-05-06");
/** `-7d` frozen on 12 January 2020. */
const TO_JAN_12 = range("2020-01-05", "2020-01-12");
const PAGEVIEWS = [ev("$pageview")];
const FIRST_PAGEVIEWS = [ev("$pageview", { math: "first_time_for_user" })];

/** The persons' distinct ids without their event counts, where PostHog asserts no count. */
const idsOf = (persons: string[]) => persons.map((p) => p.split(":")[0]);

const view = (time: string, properties?: Record<string, unknown>) => at("$pageview", time, properties);

/**
 * `_create_events()`: person1 (US), person2 and person3 (DE) with `$pageview`s (and person1 one
 * `$pageleave`) on 29 April, 1 May and 6 May 2023; person4 (US) of another project with a `$pageview`
 * every day from 25 April to 6 May, which must never show.
 */
async function createEvents(token: string) {
  const chrome = { $browser: "Chrome" };
  const safari = { $browser: "Safari" };
  await captureJourneys(
    token,
    {
      person1: [
        view("2023-04-29T16:00:00Z", chrome),
        at("$pageleave", "2023-04-29T17:00:00Z", chrome),
        view("2023-05-01T16:00:00Z", { ...chrome, some_property: 20 }),
        view("2023-05-01T17:00:00Z", chrome),
        view("2023-05-01T18:00:00Z", chrome),
        view("2023-05-06T16:00:00Z", { some_property: 20 }),
      ],
      person2: [
        view("2023-04-29T17:00:00Z", safari),
        view("2023-04-29T18:00:00Z", safari),
        view("2023-05-01T16:00:00Z", { ...safari, some_property: 22 }),
        view("2023-05-01T17:00:00Z", safari),
      ],
      person3: [view("2023-05-01T16:00:00Z", safari)],
    },
    {
      person1: { $geoip_country_code: "US" },
      person2: { $geoip_country_code: "DE" },
      person3: { $geoip_country_code: "DE" },
    },
  );
  const other = await createProject();
  const person4 = dayDates("2023-04-25", 12).map((day) => view(`${day}T16:00:00Z`, { some_property: 20 }));
  await captureJourneys(other.api_token, { person4 }, { person4: { $geoip_country_code: "US" } });
}

async function projectWithEvents() {
  const project = await createProject();
  await createEvents(project.api_token);
  return project.id;
}

conformance({ name: "PostHog trends persons tests (test_trends_persons.py)", version: "57cf45815f" }, () => {
  agrees("test_trends_single_series_persons", async () => {
    const projectId = await projectWithEvents();
    expect(await trendsPersons(projectId, { series: PAGEVIEWS, dateRange: TO_MAY_6 }, { day: "2023-04-29" })).toEqual([
      "person2:2",
      "person1:1",
    ]);
  });

  // Series 0 is the default; series 1 (`$pageleave`) has person1's one event.
  agrees("test_trends_multiple_series_persons", async () => {
    const projectId = await projectWithEvents();
    const query = { series: [ev("$pageview"), ev("$pageleave")], dateRange: TO_MAY_6 };
    expect(await trendsPersons(projectId, query, { day: "2023-04-29" })).toEqual(["person2:2", "person1:1"]);
    expect(await trendsPersons(projectId, query, { day: "2023-04-29", series: 1 })).toEqual(["person1:1"]);
  });

  /** The persons of 1 May for each breakdown value (a single breakdown's value, or a list of one). */
  const mayFirst = async (breakdownFilter: Record<string, unknown>, values: unknown[]) => {
    const projectId = await projectWithEvents();
    const query = { series: PAGEVIEWS, dateRange: TO_MAY_6, breakdownFilter };
    return Promise.all(values.map((breakdown) => trendsPersons(projectId, query, { day: "2023-05-01", breakdown })));
  };

  agrees("test_trends_event_breakdown_persons", async () => {
    expect(await mayFirst({ breakdown: "$browser" }, ["Safari", "Firefox"])).toEqual([["person2:2", "person3:1"], []]);
  });

  agrees("test_trends_person_breakdown_persons", async () => {
    const byCountry = { breakdown: "$geoip_country_code", breakdown_type: "person" };
    expect(await mayFirst(byCountry, ["DE", "UK"])).toEqual([["person2:2", "person3:1"], []]);
  });

  notExpressible("test_trends_breakdown_others_persons", "skipped by PostHog");
  notExpressible("test_trends_multiple_breakdowns_others_persons", "skipped by PostHog");

  // PostHog's "other" sentinel narrows nothing: every person of 1 May (3) comes back, for one and for
  // two breakdown properties (its test is marked to go once "Other" filters). edgehog answers the
  // persons of the values the result folds into Other, found by the result's own ranking (no value
  // ranks after every value).
  deliberate("test_trends_filter_by_other", "trends persons", async () => {
    const projectId = await projectWithEvents();
    const one = { breakdowns: [{ property: "some_property", type: "event" }], breakdown_limit: 1 };
    const query = { series: PAGEVIEWS, dateRange: TO_MAY_6, breakdownFilter: one };
    // 20 is shown; Other is 22 and no value, which every person of 1 May has: all three here too.
    const shown = (await trends(projectId, query)).map((r) => r.breakdown_value);
    expect(shown).toEqual([["20"], [OTHER_BREAKDOWN]]);
    const persons = await trendsPersons(projectId, query, { day: "2023-05-01", breakdown: [OTHER_BREAKDOWN] });
    expect(persons.sort()).toEqual(["person1:2", "person2:2", "person3:1"]);

    const two = {
      breakdowns: [
        { property: "some_property", type: "event" },
        { property: "$browser", type: "event" },
      ],
      breakdown_limit: 1,
    };
    const both = { ...query, breakdownFilter: two };
    // (no value, Safari) is shown (4 pageviews): Other leaves out person3 and one of person2's pageviews.
    const shownBoth = (await trends(projectId, both)).map((r) => r.breakdown_value);
    expect(shownBoth).toEqual([
      [NULL_BREAKDOWN, "Safari"],
      [OTHER_BREAKDOWN, OTHER_BREAKDOWN],
    ]);
    const other = { day: "2023-05-01", breakdown: [OTHER_BREAKDOWN, OTHER_BREAKDOWN] };
    expect(await trendsPersons(projectId, both, other)).toEqual(["person1:3", "person2:1"]);
  });

  // On 6 May person1's one pageview has no `$browser`: no Chrome persons, person1 under the null sentinel.
  agrees("test_trends_breakdown_null_persons", async () => {
    const projectId = await projectWithEvents();
    const query = {
      series: PAGEVIEWS,
      dateRange: TO_MAY_6,
      breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 },
    };
    expect(await trendsPersons(projectId, query, { day: "2023-05-06", breakdown: "Chrome" })).toEqual([]);
    expect(await trendsPersons(projectId, query, { day: "2023-05-06", breakdown: NULL_BREAKDOWN })).toEqual([
      "person1:1",
    ]);
  });

  notExpressible("test_trends_breakdown_hogql_persons", "HogQL breakdowns");
  notExpressible("test_trends_cohort_breakdown_persons", "cohort breakdowns");
  notExpressible("test_trends_multi_cohort_breakdown_persons", "cohort breakdowns");
  notExpressible("test_trends_all_cohort_breakdown_persons_subquery", "cohort breakdowns (inCohortVia modifier)");
  notExpressible("test_trends_all_cohort_breakdown_persons_leftjoin", "cohort breakdowns (inCohortVia modifier)");
  notExpressible(
    "test_trends_all_cohort_breakdown_persons_leftjoin_conjoined",
    "cohort breakdowns (inCohortVia modifier)",
  );

  // One person a day from 17 to 23 April; the weekly active users of 28 April are those of the 7 days
  // ending then (22–28 April). The range is `-7d` frozen on 28 April.
  agrees("test_trends_math_weekly_active_persons", async () => {
    const project = await createProject();
    const ids = idRange("person_2023-04-", 17, 24);
    await captureJourneys(
      project.api_token,
      Object.fromEntries(ids.map((id) => [id, [view(`${id.slice("person_".length)}T16:00:00Z`)]])),
    );
    const query = {
      series: [ev("$pageview", { math: "weekly_active" })],
      dateRange: range("2023-04-21", "2023-04-28"),
    };
    expect((await trendsPersons(project.id, query, { day: "2023-04-28" })).sort()).toEqual([
      "person_2023-04-22:1",
      "person_2023-04-23:1",
    ]);
  });

  notExpressible("test_trends_math_property_sum_persons", "skipped by PostHog");
  notExpressible("test_trends_math_count_per_actor_persons", "skipped by PostHog");
  notExpressible("test_trends_math_group_persons", "group aggregation (unique_group math)");
  notExpressible("test_trends_math_group_persons_filters_empty", "group aggregation (unique_group math)");

  // A total value has no `day`: the range's persons, person1 and person2 with 4 pageviews each (in either
  // order), then person3 with 1. The range is `-7d` frozen on 1 May 2023 20:00, written to the moment: a
  // bold number's range is exact, so a date_to of "2023-05-01" would end at its midnight, before 1 May's events.
  agrees("test_trends_total_value_persons", async () => {
    const projectId = await projectWithEvents();
    const query = {
      series: PAGEVIEWS,
      dateRange: range("2023-04-24T20:00:00Z", "2023-05-01T20:00:00Z"),
      trendsFilter: { display: "BoldNumber" },
    };
    const persons = await trendsPersons(projectId, query);
    expect(persons.slice(0, 2).sort()).toEqual(["person1:4", "person2:4"]);
    expect(persons[2]).toBe("person3:1");
    expect(persons).toHaveLength(3);
  });

  // PostHog's `-7d` (frozen on 6 May: 29 April to 6 May) compares with the period a week earlier, so
  // the previous point of 6 May is 29 April. An absolute range's previous period is the same length
  // just before it; the one whose previous period is a week earlier is the 7 days ending 6 May.
  agrees("test_trends_compare_persons", async () => {
    const projectId = await projectWithEvents();
    const query = {
      series: PAGEVIEWS,
      dateRange: range("2023-04-30", "2023-05-06"),
      trendsFilter: {},
      compareFilter: { compare: true },
    };
    expect(await trendsPersons(projectId, query, { day: "2023-05-06", compare: "current" })).toEqual(["person1:1"]);
    expect(await trendsPersons(projectId, query, { day: "2023-05-06", compare: "previous" })).toEqual([
      "person2:2",
      "person1:1",
    ]);
  });

  agrees("test_trends_event_multiple_breakdowns_persons", async () => {
    expect(await mayFirst({ breakdowns: [{ property: "$browser" }] }, [["Safari"], ["Firefox"]])).toEqual([
      ["person2:2", "person3:1"],
      [],
    ]);
  });

  agrees("test_trends_person_multiple_breakdown_persons", async () => {
    const byCountry = { breakdowns: [{ property: "$geoip_country_code", type: "person" }] };
    expect(await mayFirst(byCountry, [["DE"], ["UK"]])).toEqual([["person2:2", "person3:1"], []]);
  });

  agrees("test_trends_multiple_breakdown_null_persons", async () => {
    const projectId = await projectWithEvents();
    const query = {
      series: PAGEVIEWS,
      dateRange: TO_MAY_6,
      breakdownFilter: { breakdowns: [{ property: "$browser" }], breakdown_limit: 1 },
    };
    expect(await trendsPersons(projectId, query, { day: "2023-05-06", breakdown: ["Chrome"] })).toEqual([]);
    expect(await trendsPersons(projectId, query, { day: "2023-05-06", breakdown: [NULL_BREAKDOWN] })).toEqual([
      "person1:1",
    ]);
  });

  notExpressible("test_trends_multiple_breakdowns_hogql_persons", "HogQL breakdowns");
  notExpressible("test_trends_breakdown_filter_by_range", "histogram bins (breakdown_histogram_bin_count)");
  notExpressible("test_trends_multiple_breakdowns_filter_by_range", "histogram bins (histogram_bin_count)");

  // A boolean property (PostHog types it with a property definition) breaks down as "true" and "false",
  // a missing one as the null sentinel: one person each on 29 April, for one and for a list of one
  // property. The range is `-7d` frozen on 29 April.
  agrees("test_trends_breakdown_by_boolean", async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, {
      person1: [view("2023-04-29T16:00:00Z", { bool: true })],
      person2: [view("2023-04-29T17:00:00Z", { bool: false })],
      person3: [view("2023-04-29T17:00:00Z", {})],
    });
    const week = { series: PAGEVIEWS, dateRange: range("2023-04-22", "2023-04-29") };
    const list = { ...week, breakdownFilter: { breakdowns: [{ property: "bool" }], breakdown_limit: 1 } };
    const single = { ...week, breakdownFilter: { breakdown: "bool", breakdown_limit: 1 } };
    const persons = (query: Record<string, unknown>, breakdown: unknown) =>
      trendsPersons(project.id, query, { day: "2023-04-29", breakdown });
    expect(await persons(list, ["true"])).toEqual(["person1:1"]);
    expect(await persons(list, ["false"])).toEqual(["person2:1"]);
    expect(await persons(list, [NULL_BREAKDOWN])).toEqual(["person3:1"]);
    expect(await persons(single, "true")).toEqual(["person1:1"]);
    expect(await persons(single, "false")).toEqual(["person2:1"]);
    expect(await persons(single, NULL_BREAKDOWN)).toEqual(["person3:1"]);
  });

  // First-time math: the persons whose first `$pageview` falls on the day: person1 and person2 on
  // 29 April, person3 on 1 May, one event each; nobody on 25–28 and 30 April nor 2–21 May (person4's
  // pageviews in the other project never count). The range holds every day asked: 25 April to 21 May.
  agrees("test_trends_math_first_time_for_user_basic", async () => {
    const projectId = await projectWithEvents();
    const query = { series: FIRST_PAGEVIEWS, dateRange: range("2023-04-25", "2023-05-21") };
    const days = dayDates("2023-04-25", 27);
    const persons = await Promise.all(days.map(async (day) => (await trendsPersons(projectId, query, { day })).sort()));
    const found = Object.fromEntries(days.map((day, i) => [day, persons[i]]).filter(([, ids]) => ids.length));
    expect(found).toEqual({ "2023-04-29": ["person1:1", "person2:1"], "2023-05-01": ["person3:1"] });
  });

  // A first pageview falls under its own `$browser`: person1's Chrome and person2's Safari on 29 April,
  // person3's Safari on 1 May (person1's later Chrome pageviews are not first), for one breakdown and
  // for a list of one.
  agrees("test_trends_math_first_time_for_user_breakdowns_basic", async () => {
    const projectId = await projectWithEvents();
    const single = { series: FIRST_PAGEVIEWS, dateRange: TO_MAY_6, breakdownFilter: { breakdown: "$browser" } };
    const list = { ...single, breakdownFilter: { breakdowns: [{ property: "$browser", type: "event" }] } };
    const persons = (query: Record<string, unknown>, day: string, breakdown: unknown) =>
      trendsPersons(projectId, query, { day, breakdown });
    for (const [query, value] of [
      [single, (v: string) => v],
      [list, (v: string) => [v]],
    ] as const) {
      expect(await persons(query, "2023-04-29", value("Chrome"))).toEqual(["person1:1"]);
      expect(await persons(query, "2023-04-29", value("Safari"))).toEqual(["person2:1"]);
      expect(await persons(query, "2023-05-01", value("Chrome"))).toEqual([]);
      expect(await persons(query, "2023-05-01", value("Safari"))).toEqual(["person3:1"]);
    }
  });

  notExpressible(
    "test_trends_math_first_time_for_user_numeric_breakdowns",
    "histogram bins (breakdown_histogram_bin_count, histogram_bin_count)",
  );

  // A person counts where their first pageview falls if it passes the series' filters: with
  // `$browser = Chrome` person1 on 29 April and nobody on 1 May (person3's first is Safari); with the
  // person property `$geoip_country_code = DE` person2 on 29 April, person3 on 1 May.
  agrees("test_trends_math_first_time_for_user_with_filters", async () => {
    const projectId = await projectWithEvents();
    const firstWith = (properties: Record<string, unknown>[]) => ({
      series: [ev("$pageview", { math: "first_time_for_user", properties })],
      dateRange: TO_MAY_6,
    });
    const chrome = firstWith([{ key: "$browser", operator: "exact", value: "Chrome", type: "event" }]);
    expect(idsOf(await trendsPersons(projectId, chrome, { day: "2023-04-29" }))).toEqual(["person1"]);
    expect(await trendsPersons(projectId, chrome, { day: "2023-05-01" })).toEqual([]);
    const de = firstWith([{ key: "$geoip_country_code", operator: "exact", value: "DE", type: "person" }]);
    expect(idsOf(await trendsPersons(projectId, de, { day: "2023-04-29" }))).toEqual(["person2"]);
    expect(await trendsPersons(projectId, de, { day: "2023-04-30" })).toEqual([]);
    expect(idsOf(await trendsPersons(projectId, de, { day: "2023-05-01" }))).toEqual(["person3"]);
  });

  // A person's first pageview is the first of any of their distinct ids: anon1+p1 on 11 January (p1's
  // pageview of the 12th is not first), anon2+p2 and anon3 on the 12th. The range is `-7d` frozen on
  // 12 January 2020.
  agrees("test_trends_math_first_time_for_user_handles_multiple_ids", async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, {
      p1: [alias("anon1"), view("2020-01-12T12:00:00Z")],
      anon1: [view("2020-01-11T12:00:00Z")],
      p2: [alias("anon2"), view("2020-01-12T12:01:00Z")],
      anon2: [view("2020-01-12T12:00:00Z")],
      anon3: [view("2020-01-12T12:00:00Z")],
    });
    const query = {
      series: FIRST_PAGEVIEWS,
      dateRange: TO_JAN_12,
      trendsFilter: { display: "ActionsLineGraph" },
    };
    const persons = async (day: string) => idsOf(await trendsPersons(project.id, query, { day })).sort();
    expect(await persons("2020-01-09")).toEqual([]);
    expect(await persons("2020-01-10")).toEqual([]);
    expect(await persons("2020-01-11")).toEqual(["anon1+p1"]);
    expect(await persons("2020-01-12")).toEqual(["anon2+p2", "anon3"]);
  });

  /**
   * PostHog's person anon1+p1 with a Chrome pageview from anon1 at `times[0]` and a Safari one from p1
   * at `times[1]`, and the persons of 11 and 12 January for first-time pageviews from Chrome and from Safari.
   */
  const firstFromBrowser = async (times: [string, string]) => {
    const project = await createProject();
    await captureJourneys(project.api_token, {
      p1: [alias("anon1"), view(times[1], { $browser: "Safari" })],
      anon1: [view(times[0], { $browser: "Chrome" })],
    });
    const answers: Record<string, string[][]> = {};
    for (const browser of ["Chrome", "Safari"]) {
      const query = {
        series: [
          ev("$pageview", {
            math: "first_time_for_user",
            properties: [{ key: "$browser", operator: "exact", value: browser, type: "event" }],
          }),
        ],
        dateRange: TO_JAN_12,
      };
      answers[browser] = await Promise.all(
        ["2020-01-11", "2020-01-12"].map(async (day) => idsOf(await trendsPersons(project.id, query, { day }))),
      );
    }
    return answers;
  };

  // Only the first pageview (anon1's, Chrome, on the 11th) counts: from Safari (p1's, on the 12th) nobody.
  agrees("test_trends_math_first_time_for_user_matches_first_event_only", async () => {
    expect(await firstFromBrowser(["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z"])).toEqual({
      Chrome: [["anon1+p1"], []],
      Safari: [[], []],
    });
  });

  // Two pageviews at the same first moment are both first: the person counts from Chrome and from Safari.
  agrees("test_trends_math_first_time_for_user_matches_all_first_events", async () => {
    expect(await firstFromBrowser(["2020-01-11T12:00:00Z", "2020-01-11T12:00:00Z"])).toEqual({
      Chrome: [["anon1+p1"], []],
      Safari: [["anon1+p1"], []],
    });
  });

  // By month: nobody in March, person1 and person2 in April, person3 in May. The range is `-180d`
  // frozen on 6 May 2023.
  agrees("test_trends_math_first_time_for_user_month_interval", async () => {
    const projectId = await projectWithEvents();
    const query = { interval: "month", series: FIRST_PAGEVIEWS, dateRange: TO_MAY_6_180D };
    expect(await trendsPersons(projectId, query, { day: "2023-03-01" })).toEqual([]);
    expect((await trendsPersons(projectId, query, { day: "2023-04-01" })).sort()).toEqual(["person1:1", "person2:1"]);
    expect(await trendsPersons(projectId, query, { day: "2023-05-01" })).toEqual(["person3:1"]);
  });

  agrees("test_trends_math_first_time_for_user_day_interval", async () => {
    const projectId = await projectWithEvents();
    const query = { interval: "day", series: FIRST_PAGEVIEWS, dateRange: TO_MAY_6 };
    expect((await trendsPersons(projectId, query, { day: "2023-04-29" })).sort()).toEqual(["person1:1", "person2:1"]);
    expect(await trendsPersons(projectId, query, { day: "2023-04-30" })).toEqual([]);
    expect(await trendsPersons(projectId, query, { day: "2023-05-01" })).toEqual(["person3:1"]);
  });

  // By week: the week of 24 April holds 29 April, that of 1 May holds 1 May, that of 17 April nothing.
  // The range is `-90d` frozen on 6 May 2023.
  agrees("test_trends_math_first_time_for_user_week_interval", async () => {
    const projectId = await projectWithEvents();
    const query = { interval: "week", series: FIRST_PAGEVIEWS, dateRange: range("2023-02-05", "2023-05-06") };
    expect((await trendsPersons(projectId, query, { day: "2023-04-24" })).sort()).toEqual(["person1:1", "person2:1"]);
    expect(await trendsPersons(projectId, query, { day: "2023-04-17" })).toEqual([]);
    expect(await trendsPersons(projectId, query, { day: "2023-05-01" })).toEqual(["person3:1"]);
  });

  // By hour: person1 at 16:00 and person2 at 17:00 on 29 April, person3 at 16:00 on 1 May, nobody in
  // the hours of their later pageviews.
  agrees("test_trends_math_first_time_for_user_hour_interval", async () => {
    const projectId = await projectWithEvents();
    const query = { interval: "hour", series: FIRST_PAGEVIEWS, dateRange: TO_MAY_6 };
    const hours = [
      "2023-04-29T16:00:00Z",
      "2023-04-29T17:00:00Z",
      "2023-04-29T18:00:00Z",
      "2023-05-01T16:00:00Z",
      "2023-05-01T17:00:00Z",
      "2023-05-01T18:00:00Z",
    ];
    expect(await Promise.all(hours.map((day) => trendsPersons(projectId, query, { day })))).toEqual([
      ["person1:1"],
      ["person2:1"],
      [],
      ["person3:1"],
      [],
      [],
    ]);
  });

  notExpressible("test_trends_math_first_time_for_user_minute_interval", "the minute interval");

  // First-time math over all events, by month: person1's first event is a pageview of 29 April until a
  // `$random` event of 10 March comes first, moving person1 to March.
  agrees("test_trends_math_first_time_for_user_all_events", async () => {
    const project = await createProject();
    await createEvents(project.api_token);
    const query = {
      interval: "month",
      series: [ev(null, { math: "first_time_for_user" })],
      dateRange: TO_MAY_6_180D,
    };
    const persons = async (day: string) => (await trendsPersons(project.id, query, { day })).sort();
    expect(await persons("2023-04-01")).toEqual(["person1:1", "person2:1"]);
    expect(await persons("2023-05-01")).toEqual(["person3:1"]);
    await captureJourneys(project.api_token, {
      person1: [at("$random", "2023-03-10T16:00:00Z", { $browser: "Safari" })],
    });
    expect(await persons("2023-04-01")).toEqual(["person2:1"]);
    expect(await persons("2023-03-01")).toEqual(["person1:1"]);
    expect(await persons("2023-05-01")).toEqual(["person3:1"]);
  });

  notExpressible("test_trends_math_first_time_for_user_actions", "actions");
});
