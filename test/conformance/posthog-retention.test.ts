import { expect } from "vitest";
import { call, createProject } from "../helpers";
import { actorIdSetOf, at, captureJourneys, insightActorsOk, type Journeys, sorted } from "./analysis-helpers";
import { alias, OTHER_BREAKDOWN } from "./trends-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's retention tests, replayed as RetentionQuery through `POST /api/environments/:project_id/query/`,
 * and their persons as an ActorsQuery over an InsightActorsQuery (`interval` = the cohort's index,
 * `breakdown` = the breakdown value asked about): the query-native suite
 * (posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py) and the filter-based one
 * (posthog/queries/test/test_retention.py, whose filters PostHog turns into the RetentionQuery written here:
 * `target_entity` → `retentionFilter.targetEntity`, `returning_entity` → `returningEntity`, `period`,
 * `total_intervals` → `totalIntervals`, `retention_type` → `retentionType`, `date_to` → `dateRange`,
 * `properties`, `filter_test_accounts` → `filterTestAccounts`, `sampling_factor` → `samplingFactor`).
 *
 * The tests compare `pad()`-ed matrices of `values[].count` (one row per cohort, `totalIntervals` values,
 * 0 after the range's end), labels and cohort `date`s; so does this file. PostHog compares dates as
 * datetimes (the same instant), so the dates are compared as instants, except where a test compares the
 * ISO text. Persons are compared by distinct id (a person with several: sorted, joined with `+`); as sets
 * where a test compares persons only, and in order with their `appearances` (the intervals each person
 * counts at) where it reads them, ordered by their number (PostHog's persons modal order).
 *
 * Data goes in through `POST /batch/`, a person at their first event. PostHog's `_create_events` gives
 * every even row of a call `$some_property: "value"`, so does `Data.events`; a person's second distinct id
 * (alias1) is linked by a `$create_alias` in December 2019, before every range asked about; person
 * properties are `$set` on a person's first event. PostHog's test events take a naive `_date(...)` in the
 * team's time zone, as do the queries' dates: the events are sent at that wall time in the project's zone,
 * the queries keep PostHog's naive dates. Each case has its own project.
 */

type Cohort = {
  label: string;
  date: string;
  values: { count: number; label: string }[];
  breakdown_value?: unknown;
};
type Query = Record<string, unknown>;
/** One row of `_create_events`: distinct id, naive time (`d(...)`), extra event properties. */
type Row = [string, string, Record<string, unknown>?];

/**
 * PostHog's `_date(day, hour=5, month=0, minute=0)`: 2020-06-(10 + day) at 05:00 by default, `month`
 * months later, as the naive ISO text PostHog passes (the project's wall time).
 */
function d(day: number, hour = 5, month = 0, minute = 0): string {
  return new Date(Date.UTC(2020, 5 + month, 10 + day, hour, minute)).toISOString().slice(0, 19);
}

/** A project's wall time (naive ISO) as UTC, `offset` being the zone's offset that day (`-07:00` for US/Pacific in June). */
const inZone = (naive: string, offset: string) => new Date(`${naive}${offset}`).toISOString();

/** What PostHog's fixture calls (`_create_person`, `_create_events`) make, as events for `POST /batch/`. */
class Data {
  readonly journeys: Journeys = {};
  readonly people: Record<string, Record<string, unknown>> = {};
  /** `offset`: the project's UTC offset at the fixture's dates (events are naive wall times in it). */
  constructor(private readonly offset = "Z") {}

  /** `_create_person(distinct_ids=[id, ...others], properties=properties)`. */
  person(id: string, properties?: Record<string, unknown>, ...others: string[]) {
    this.journeys[id] = [...others.map(alias), ...(this.journeys[id] ?? [])];
    if (properties) this.people[id] = properties;
    return this;
  }

  /** `_create_events(team, rows, event)`: `$some_property: "value"` on the call's even rows. */
  events(rows: Row[], event = "$pageview") {
    rows.forEach(([id, naive, extra], i) => {
      const properties = { ...(i % 2 === 0 ? { $some_property: "value" } : {}), ...extra };
      (this.journeys[id] ??= []).push(at(event, inZone(naive, this.offset), properties));
    });
    return this;
  }

  /** A project (in `timezone`) holding the data; its id. */
  async project(timezone?: string) {
    const project = await createProject(undefined, timezone);
    await captureJourneys(project.api_token, this.journeys, this.people);
    return project.id;
  }
}

async function patchProject(projectId: number, body: Record<string, unknown>) {
  const res = await call(`/api/projects/${projectId}/`, { method: "PATCH", body });
  expect(res.status, res.text).toBe(200);
}

/** A RetentionQuery (`retentionFilter` defaults to `{}`, as the tests' `run_query` does). */
const retentionQuery = (query: Query) => ({ kind: "RetentionQuery", retentionFilter: {}, ...query });

/** Runs a RetentionQuery (200 expected) and returns its cohort rows. */
async function retention(projectId: number, query: Query): Promise<Cohort[]> {
  const res = await call(`/api/environments/${projectId}/query/`, {
    method: "POST",
    body: { query: retentionQuery(query) },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.results as Cohort[];
}

/** The persons of cohort `interval` (of breakdown value `breakdown`): ActorsQuery over an InsightActorsQuery. */
async function persons(projectId: number, query: Query, interval: number, breakdown?: string[]) {
  const source = {
    kind: "InsightActorsQuery",
    source: retentionQuery(query),
    interval,
    ...(breakdown ? { breakdown } : {}),
  };
  return actorIdSetOf(await insightActorsOk(projectId, source));
}

/**
 * PostHog's `run_actors_query`: the persons of cohort `interval` with their `appearances` (the
 * intervals they count at) and the `select`ed columns, most appearances first: rows of the person's
 * distinct ids (sorted, joined with `+`), the appearances and the columns.
 */
async function appearances(projectId: number, query: Query, interval: number, select: string[] = []) {
  const res = await call(`/api/environments/${projectId}/query/`, {
    method: "POST",
    body: {
      query: {
        kind: "ActorsQuery",
        select: ["person", "appearances", ...select],
        orderBy: ["length(appearances) DESC", "actor_id"],
        source: { kind: "InsightActorsQuery", source: retentionQuery(query), interval },
      },
    },
  });
  expect(res.status, res.text).toBe(200);
  return (res.json.results as unknown[][]).map(([person, ...rest]) => [
    [...(person as { distinct_ids: string[] }).distinct_ids].sort().join("+"),
    ...rest,
  ]);
}

/** `pluck(result, "values", "count")`. */
const counts = (rows: Cohort[]) => rows.map((r) => r.values.map((v) => v.count));

/** PostHog's `pad()`: a triangle of rows to the matrix, zeros after each row's end. */
function pad(rows: number[][]): number[][] {
  const width = Math.max(...rows.map((r) => r.length));
  return rows.map((r) => [...r, ...Array<number>(width - r.length).fill(0)]);
}

/** `n` rows of `width` zeros. */
const zeros = (n: number, width = n) => Array.from({ length: n }, () => Array<number>(width).fill(0));

/** `["Day 0", …]`: the cohorts' labels. */
const periods = (unit: string, n: number) => Array.from({ length: n }, (_, i) => `${unit} ${i}`);

/** Each cohort's start as a UTC instant (the text itself when it is not a date). */
const instants = (rows: Cohort[]) =>
  rows.map((r) => (Number.isNaN(Date.parse(r.date)) ? r.date : new Date(r.date).toISOString()));

/** `n` instants `step` hours apart from `from` (ISO, UTC). */
const everyHours = (from: string, n: number, step: number) =>
  Array.from({ length: n }, (_, i) => new Date(Date.parse(from) + i * step * 3_600_000).toISOString());

/** The rows of one breakdown value, in order. */
const of = (rows: Cohort[], value: unknown) => rows.filter((r) => r.breakdown_value === value);

/** The breakdown values present, sorted. */
const breakdownValues = (rows: Cohort[]) => [...new Set(rows.map((r) => String(r.breakdown_value)))].sort();

/** The row labelled `label` (the tests' `next(row for row in result if row["label"] == label)`). */
const labelled = (rows: Cohort[], label: string) => rows.find((r) => r.label === label);

// ---------------------------------------------------------------------------------------------------------
// Fixtures shared by both files.

/** The events of most tests: person1 on days 0, 1, 2, 5 (and alias1 at 9:00 that day), 6; person2 on 1, 2, 3, 6. */
const TWO_PERSONS: Row[] = [
  ["person1", d(0)],
  ["person1", d(1)],
  ["person1", d(2)],
  ["person1", d(5)],
  ["alias1", d(5, 9)],
  ["person1", d(6)],
  ["person2", d(1)],
  ["person2", d(2)],
  ["person2", d(3)],
  ["person2", d(6)],
];

/** TWO_PERSONS with extra properties on row `index`. */
const withProperties = (index: number, properties: Record<string, unknown>): Row[] =>
  TWO_PERSONS.map(([id, t], i) => (i === index ? [id, t, properties] : [id, t]));

/** person1 (also alias1) and person2, with `properties`, and the `rows` (TWO_PERSONS by default) in one call. */
const twoPersons = (
  rows: Row[] = TWO_PERSONS,
  properties: { person1?: Record<string, unknown>; person2?: Record<string, unknown> } = {},
) => new Data().person("person1", properties.person1, "alias1").person("person2", properties.person2).events(rows);

/** TWO_PERSONS by day over 11 days to 20 June (test_day_interval). */
const DAY_INTERVAL = pad([
  [1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0],
  [2, 2, 1, 0, 1, 2, 0, 0, 0, 0],
  [2, 1, 0, 1, 2, 0, 0, 0, 0],
  [1, 0, 0, 1, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0],
  [1, 1, 0, 0, 0, 0],
  [2, 0, 0, 0, 0],
  [0, 0, 0, 0],
  [0, 0, 0],
  [0, 0],
  [0],
]);

/** TWO_PERSONS with `$some_property: "value"` on the events and their returns (test_retention_with_properties). */
const WITH_SOME_PROPERTY = pad([
  [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
  [1, 0, 1, 0, 0, 0, 0, 0, 0, 0],
  [1, 0, 0, 1, 0, 0, 0, 0, 0],
  [1, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0],
  [1, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0],
  [0, 0, 0, 0],
  [0, 0, 0],
  [0, 0],
  [0],
]);

/** Only person1 (by a person property filter) over 7 days to 16 June. */
const PERSON1_ONLY = pad([
  [1, 1, 1, 0, 0, 1, 1],
  [1, 1, 0, 0, 1, 1],
  [1, 0, 0, 1, 1],
  [0, 0, 0, 0],
  [0, 0, 0],
  [1, 1],
  [1],
]);

/** Without person1 (the test account) over 11 days to 20 June. */
const WITHOUT_PERSON1 = pad([
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
  [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
  [1, 1, 0, 0, 1, 0, 0, 0, 0],
  [1, 0, 0, 1, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0],
  [1, 0, 0, 0, 0],
  [0, 0, 0, 0],
  [0, 0, 0],
  [0, 0],
  [0],
]);

/** The test team's test account filter: persons whose email contains @posthog.com (person1) are left out. */
const TEST_ACCOUNT_FILTERS = [{ key: "email", value: "@posthog.com", operator: "not_icontains", type: "person" }];

/** The week tests' events: both persons in June and July 2020. */
const WEEK_ROWS: Row[] = [
  ["person1", d(0)],
  ["person2", d(0)],
  ["person1", d(1)],
  ["person2", d(1)],
  ["person1", d(7)],
  ["person2", d(7)],
  ["person1", d(14)],
  ["person1", d(-6, 5, 1)],
  ["person2", d(-6, 5, 1)],
  ["person2", d(1, 5, 1)],
  ["person1", d(1, 5, 1)],
  ["person2", d(15, 5, 1)],
];

const WEEK_COUNTS = pad([
  [2, 2, 1, 2, 2, 0, 1],
  [2, 1, 2, 2, 0, 1],
  [1, 1, 1, 0, 0],
  [2, 2, 0, 1],
  [2, 0, 1],
  [0, 0],
  [1],
]);

/** Sunday weeks from 7 June 2020. */
const SUNDAY_WEEKS = everyHours("2020-06-07T00:00:00Z", 7, 24 * 7);
/** Monday weeks from 8 June 2020. */
const MONDAY_WEEKS = everyHours("2020-06-08T00:00:00Z", 7, 24 * 7);

/** The month tests' events: the 10th of January to November 2020. */
const MONTH_ROWS: Row[] = [
  ["person1", d(0, 5, -5)],
  ["person2", d(0, 5, -5)],
  ["person1", d(0, 5, -4)],
  ["person2", d(0, 5, -4)],
  ["person1", d(0, 5, -3)],
  ["person2", d(0, 5, -3)],
  ["person1", d(0, 5, -1)],
  ["person1", d(0, 5, 0)],
  ["person2", d(0, 5, 0)],
  ["person2", d(0, 5, 1)],
  ["person1", d(0, 5, 3)],
  ["person2", d(0, 5, 5)],
];

/** MONTH_ROWS by month, and HOUR_ROWS by hour: the same matrix. */
const MONTH_COUNTS = pad([
  [2, 2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
  [2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
  [2, 0, 1, 2, 1, 0, 1, 0, 1],
  [0, 0, 0, 0, 0, 0, 0, 0],
  [1, 1, 0, 0, 1, 0, 0],
  [2, 1, 0, 1, 0, 1],
  [1, 0, 0, 0, 1],
  [0, 0, 0, 0],
  [1, 0, 0],
  [0, 0],
  [1],
]);

/** The 1st of January to November 2020. */
const MONTH_STARTS = Array.from({ length: 11 }, (_, i) => new Date(Date.UTC(2020, i, 1)).toISOString());

/** The hour tests' events: 10 June 2020, 06:00 to 16:00. */
const HOUR_ROWS: Row[] = [
  ["person1", d(0, 6)],
  ["person2", d(0, 6)],
  ["person1", d(0, 7)],
  ["person2", d(0, 7)],
  ["person1", d(0, 8)],
  ["person2", d(0, 8)],
  ["person1", d(0, 10)],
  ["person1", d(0, 11)],
  ["person2", d(0, 11)],
  ["person2", d(0, 12)],
  ["person1", d(0, 14)],
  ["person2", d(0, 16)],
];

/** The two persons of the week, month and hour tests (person1 also alias1, both with an email). */
const emailPersons = (offset?: string) =>
  new Data(offset)
    .person("person1", { email: "person1@test.com" }, "alias1")
    .person("person2", { email: "person2@test.com" });

/**
 * `test_month_interval_with_person_on_events_v2`: person1 on the 10th of January, March, May, July, September,
 * November, person2 of February, April, June, August, October (each event twice: the test creates it with
 * an explicit person id and again through `_create_events`), then person1's person id overridden by
 * person2's. Here person2 merges person1 (`$merge_dangerously`, an event of another name): one person,
 * active every month.
 */
async function monthsOneMergedPerson(dateTo: string) {
  const months = Array.from({ length: 11 }, (_, i) => i - 5);
  const rows: Row[] = months.map((m) => [m % 2 === 0 ? "person2" : "person1", d(0, 5, m)]);
  const data = emailPersons();
  for (const [id, t] of rows) (data.journeys[id] ??= []).push(at("$pageview", inZone(t, "Z")));
  data.events(rows);
  data.journeys.person2.push(at("$merge_dangerously", "2020-12-01T00:00:00Z", { alias: "person1" }));
  const projectId = await data.project();
  const results = await retention(projectId, {
    dateRange: { date_to: dateTo },
    retentionFilter: { period: "Month", totalIntervals: 11 },
  });
  expect(results.map((r) => r.label)).toEqual(periods("Month", 11));
  expect(counts(results)).toEqual(pad(Array.from({ length: 11 }, (_, i) => Array<number>(11 - i).fill(1))));
  return results;
}

/** `_create_first_time_retention_events()`: sign-ups (some before the range) and pageviews of four persons. */
function firstTimeData() {
  return new Data()
    .person("person1", undefined, "alias1")
    .person("person2")
    .person("person3")
    .person("person4")
    .person("shouldnt_include")
    .events(
      [
        ["shouldnt_include", d(-5)],
        ["shouldnt_include", d(-1)],
        ["person1", d(-1)],
        ["person1", d(1)],
        ["person1", d(2)],
        ["person1", d(3)],
        ["person1", d(4)],
        ["person2", d(-1)],
      ],
      "$user_signed_up",
    )
    .events(TWO_PERSONS)
    .events([["person3", d(0)]], "$user_signed_up")
    .events([
      ["person3", d(1)],
      ["person3", d(3)],
      ["person3", d(4)],
      ["person3", d(5)],
    ])
    .events([["person4", d(2)]], "$user_signed_up")
    .events([
      ["person4", d(3)],
      ["person4", d(5)],
    ]);
}

/** First-time retention of `$user_signed_up`, returning on `$pageview`. */
const FIRST_TIME_SIGNUP = {
  retentionType: "retention_first_time",
  targetEntity: { id: "$user_signed_up", name: "$user_signed_up", type: "events" },
  returningEntity: { id: "$pageview", name: "$pageview", type: "events" },
};

const FIRST_TIME_DAYS = pad([
  [2, 1, 2, 2, 1, 0, 1],
  [1, 1, 0, 1, 1, 1],
  [0, 0, 0, 0, 0],
  [1, 1, 0, 1],
  [0, 0, 0],
  [0, 0],
  [0],
]);

/** The events of test_retention_multiple_events and test_retention_any_event. */
function multipleEventsData() {
  return new Data()
    .person("person1", undefined, "alias1")
    .person("person2")
    .person("person3")
    .person("person4")
    .events(
      [
        ["person1", d(0)],
        ["person1", d(1)],
        ["person1", d(2)],
        ["person1", d(3)],
        ["person2", d(0)],
        ["person2", d(1)],
        ["person2", d(2)],
        ["person2", d(3)],
        ["person3", d(5)],
      ],
      "$some_event",
    )
    .events([
      ["person1", d(5)],
      ["person1", d(6)],
      ["person2", d(5)],
    ]);
}

const MULTIPLE_EVENTS = pad([
  [2, 0, 0, 0, 0, 2, 1],
  [2, 0, 0, 0, 2, 1],
  [2, 0, 0, 2, 1],
  [2, 0, 2, 1],
  [0, 0, 0],
  [1, 0],
  [0],
]);

const ANY_EVENT = pad([
  [2, 2, 2, 2, 0, 2, 1],
  [2, 2, 2, 0, 2, 1],
  [2, 2, 0, 2, 1],
  [2, 0, 2, 1],
  [0, 0, 0],
  [3, 1],
  [1],
]);

/** test_timezones: person1 at 01:00 UTC on 9, 10 and 11 June, person2 at 01:00 and 09:00 on the 16th. */
async function timezones(dateTo: string) {
  const data = new Data()
    .person("person1", undefined, "alias1")
    .person("person2")
    .events([
      ["person1", d(-1, 1)],
      ["person1", d(0, 1)],
      ["person1", d(1, 1)],
      ["person2", d(6, 1)],
      ["person2", d(6, 9)],
    ]);
  const projectId = await data.project("UTC");
  const query = { dateRange: { date_to: dateTo }, retentionFilter: { totalIntervals: 11 } };
  const utc = await retention(projectId, query);
  await patchProject(projectId, { timezone: "US/Pacific" });
  const pacific = await retention(projectId, query);
  expect(pacific.map((r) => r.label)).toEqual(periods("Day", 11));
  expect(pacific[0].date).toBe("2020-06-10T00:00:00-07:00");
  expect(counts(utc)).toEqual(
    pad([
      [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0], // person2
      [0, 0, 0, 0],
      [0, 0, 0],
      [0, 0],
      [0],
    ]),
  );
  expect(counts(pacific)).toEqual(
    pad([
      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 1, 0, 0, 0, 0], // person2 is across two dates in US/Pacific
      [1, 0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0],
      [0, 0],
      [0],
    ]),
  );
}

// ---------------------------------------------------------------------------------------------------------
// The cases both files hold: each body is written once here and registered by both blocks. Where the two
// files' translations differ (a `date_to`, a filter's shape, an assertion one file makes), the block passes
// its part in, or asserts it after the shared body, at its registration.

/** 11 cohorts: most tests' count, and the legacy filters' default (see the legacy block). */
const ELEVEN = { totalIntervals: 11 };

/** person1 and person2's emails (test_retention_with_user_properties). */
const EMAILS = { person1: { email: "person1@test.com" }, person2: { email: "person2@test.com" } };

/** `n` day cohorts (`Day 0`, …) of the `expected` counts. */
function expectDays(results: Cohort[], n: number, expected: number[][]) {
  expect(results).toHaveLength(n);
  expect(results.map((r) => r.label)).toEqual(periods("Day", n));
  expect(counts(results)).toEqual(expected);
}

/** `n` day cohorts from 10 June (00:00 UTC) of the `expected` counts. */
function expectDaysFromJune10(results: Cohort[], n: number, expected: number[][]) {
  expectDays(results, n, expected);
  expect(instants(results)[0]).toBe("2020-06-10T00:00:00.000Z");
}

/** test_retention_default: no date range, the last 11 days to now, in which nothing happened. */
async function retentionDefault() {
  const projectId = await twoPersons().project();
  const results = await retention(projectId, { retentionFilter: ELEVEN });
  expect(counts(results)).toEqual(zeros(11));
}

/**
 * test_day_interval: `date_to` at 06:00 on the 20th, the whole 20th is in, 11 day cohorts from the 10th;
 * `query` adds to the query (test_day_interval_sampled's `samplingFactor`).
 */
async function dayInterval(query: Query = {}) {
  const projectId = await twoPersons().project();
  const results = await retention(projectId, { dateRange: { date_to: d(10, 6) }, ...query, retentionFilter: ELEVEN });
  expectDaysFromJune10(results, 11, DAY_INTERVAL);
}

/** MONTH_ROWS (test_month_interval) by month, 11 cohorts to `dateTo`; the cohorts (their dates: the caller's). */
async function monthInterval(dateTo: string) {
  const projectId = await emailPersons().events(MONTH_ROWS).project();
  const results = await retention(projectId, {
    dateRange: { date_to: dateTo },
    retentionFilter: { period: "Month", totalIntervals: 11 },
  });
  expect(results.map((r) => r.label)).toEqual(periods("Month", 11));
  expect(counts(results)).toEqual(MONTH_COUNTS);
  return results;
}

/** WEEK_ROWS by week, 7 cohorts to `dateTo` in the project `projectId`. */
const weeks = (projectId: number, dateTo: string) =>
  retention(projectId, { dateRange: { date_to: dateTo }, retentionFilter: { period: "Week", totalIntervals: 7 } });

/** 7 week cohorts of WEEK_COUNTS starting at `starts`. */
function expectWeeks(results: Cohort[], starts: string[]) {
  expect(results.map((r) => r.label)).toEqual(periods("Week", 7));
  expect(counts(results)).toEqual(WEEK_COUNTS);
  expect(instants(results)).toEqual(starts);
}

/** test_week_interval: weeks start on Sunday (the project's default), then on Monday. */
async function weekInterval() {
  const projectId = await emailPersons().events(WEEK_ROWS).project();
  expectWeeks(await weeks(projectId, d(10, 0, 1)), SUNDAY_WEEKS);
  await patchProject(projectId, { week_start_day: 1 });
  expectWeeks(await weeks(projectId, d(10, 0, 1)), MONDAY_WEEKS);
}

/** test_interval_rounding: `date_to` on Friday 24 July, the first cohort is still the week of 7 June. */
async function intervalRounding() {
  const projectId = await emailPersons().events(WEEK_ROWS).project();
  expectWeeks(await weeks(projectId, d(14, 0, 1)), SUNDAY_WEEKS);
}

/**
 * test_hour_interval: HOUR_ROWS by hour to 16:13 on the 10th, 11 cohorts from `first` (ISO, UTC); the
 * project in `timezone`, the events' wall times at `offset` (test_hour_interval_team_timezone).
 */
async function hourInterval(first = "2020-06-10T06:00:00Z", timezone?: string, offset?: string) {
  const projectId = await emailPersons(offset).events(HOUR_ROWS).project(timezone);
  const results = await retention(projectId, {
    dateRange: { date_to: d(0, 16, 0, 13) },
    retentionFilter: { period: "Hour", totalIntervals: 11 },
  });
  expect(results.map((r) => r.label)).toEqual(periods("Hour", 11));
  expect(counts(results)).toEqual(MONTH_COUNTS);
  expect(instants(results)).toEqual(everyHours(first, 11, 1));
}

/** test_retention_people_basic: cohort 0 (the 10th) is person1 alone, there at days 0 to 2, not 3 or 4. */
async function peopleBasic() {
  const projectId = await twoPersons().project();
  const query = { dateRange: { date_to: d(10, 6) }, retentionFilter: ELEVEN };
  expect(await persons(projectId, query, 0)).toEqual(["alias1+person1"]);
  const days = await appearances(projectId, query, 0, ["day_0", "day_1", "day_2", "day_3", "day_4"]);
  expect(days.map(([person, , ...flags]) => [person, ...flags])).toEqual([["alias1+person1", 1, 1, 1, 0, 0]]);
}

/** test_retention_people_in_period: cohort 2 (the 12th): person2 (four appearances), then person1 (three). */
async function peopleInPeriod() {
  const projectId = await twoPersons([...TWO_PERSONS, ["person2", d(7)]]).project();
  const query = { dateRange: { date_to: d(10, 6) }, retentionFilter: ELEVEN };
  expect(await appearances(projectId, query, 2)).toEqual([
    ["person2", [0, 1, 4, 5]],
    ["alias1+person1", [0, 3, 4]],
  ]);
}

/** First-time `$user_signed_up`, returning on `$pageview` (the people tests: no entity names). */
const FIRST_TIME_IDS = {
  retentionType: "retention_first_time",
  targetEntity: { id: "$user_signed_up", type: "events" },
  returningEntity: { id: "$pageview", type: "events" },
};

/** The persons of cohort 0 of first-time sign-ups to `dateTo`, with `retentionFilter`'s intervals. */
const firstTimeCohortZero = (projectId: number, dateTo: string, retentionFilter: Query) =>
  persons(projectId, { dateRange: { date_to: dateTo }, retentionFilter: { ...FIRST_TIME_IDS, ...retentionFilter } }, 0);

/** test_retention_people_in_period_first_time: the first-time sign-ups of the 10th (cohort 0 to the 20th): person3, back on days 1, 3, 4 and 5. */
async function peopleInPeriodFirstTime() {
  const projectId = await firstTimeData().project();
  const query = { dateRange: { date_to: d(10, 6) }, retentionFilter: { ...FIRST_TIME_IDS, ...ELEVEN } };
  expect(await appearances(projectId, query, 0)).toEqual([["person3", [0, 1, 3, 4, 5]]]);
}

/** test_retention_people_first_time: person3 on the 10th, then none in cohort 0 to the 24th (`later`'s intervals). */
async function peopleFirstTime(later: Query) {
  const projectId = await firstTimeData().project();
  expect(await firstTimeCohortZero(projectId, d(10, 6), ELEVEN)).toEqual(["person3"]);
  expect(await firstTimeCohortZero(projectId, d(14, 6), later)).toEqual([]);
}

/** multipleEventsData() in 7 day cohorts to the 16th, with `retentionFilter`'s entities: the `expected` counts. */
async function multipleEvents(retentionFilter: Query, expected: number[][]) {
  const projectId = await multipleEventsData().project();
  const results = await retention(projectId, {
    dateRange: { date_to: d(6, 6) },
    retentionFilter: { totalIntervals: 7, ...retentionFilter },
  });
  expectDays(results, 7, expected);
}

/** Any event as the target and as the return (test_retention_any_event). */
const ANY_EVENT_ENTITIES = {
  targetEntity: { id: null, type: "events" },
  returningEntity: { id: null, type: "events" },
};

/** test_first_time_retention: firstTimeData() in 7 day cohorts to the 15th, with `retentionFilter`'s entities. */
async function firstTimeRetention(retentionFilter: Query) {
  const projectId = await firstTimeData().project();
  const results = await retention(projectId, {
    dateRange: { date_to: d(5, 6) },
    retentionFilter: { totalIntervals: 7, ...retentionFilter },
  });
  expectDays(results, 7, FIRST_TIME_DAYS);
}

/** test_retention_with_properties: only the events with `$some_property: "value"` (as `properties` says it). */
async function withSomeProperty(properties: unknown) {
  const projectId = await twoPersons().project();
  const results = await retention(projectId, { dateRange: { date_to: d(10, 0) }, retentionFilter: ELEVEN, properties });
  expectDaysFromJune10(results, 11, WITH_SOME_PROPERTY);
}

/** test_retention_with_user_properties: only person1 (by email, as `properties` says it), 7 days to the 16th. */
async function withUserProperties(properties: unknown) {
  const projectId = await twoPersons(TWO_PERSONS, EMAILS).project();
  const results = await retention(projectId, {
    dateRange: { date_to: d(6, 0) },
    properties,
    retentionFilter: { totalIntervals: 7 },
  });
  expectDaysFromJune10(results, 7, PERSON1_ONLY);
}

/** test_filter_test_accounts: person1 (`test@posthog.com`) is a test account, left out. */
async function filterTestAccounts() {
  const projectId = await twoPersons(TWO_PERSONS, { person1: { email: "test@posthog.com" } }).project();
  await patchProject(projectId, { test_account_filters: TEST_ACCOUNT_FILTERS });
  const results = await retention(projectId, {
    dateRange: { date_to: d(10, 6) },
    filterTestAccounts: true,
    retentionFilter: ELEVEN,
  });
  expectDaysFromJune10(results, 11, WITHOUT_PERSON1);
}

// ---------------------------------------------------------------------------------------------------------

conformance({ name: "PostHog retention tests (test_retention_query_runner.py)", version: "02ace87db8" }, () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py: TestRetention, then
  // TestClickhouseRetentionGroupAggregation.

  agrees("test_retention_default", retentionDefault);
  agrees("test_day_interval", () => dayInterval());

  // `date_to` on 25 November: the month cohorts begin on the 1st, January to November.
  agrees("test_month_interval", async () => {
    expect(instants(await monthInterval(d(15, 0, 5)))).toEqual(MONTH_STARTS);
  });

  agrees("test_month_interval_with_person_on_events_v2", async () => {
    const results = await monthsOneMergedPerson(d(0, 0, 5));
    expect(instants(results)).toEqual(MONTH_STARTS);
  });

  agrees("test_week_interval", weekInterval);
  agrees("test_hour_interval", () => hourInterval());

  // The team in US/Pacific before the events are made: the events' and the range's wall times are
  // Pacific (UTC-7 in June), the cohorts 06:00 to 16:00 Pacific.
  agrees("test_hour_interval_team_timezone", () => hourInterval("2020-06-10T13:00:00Z", "US/Pacific", "-07:00"));

  agrees("test_interval_rounding", intervalRounding);

  /** The rolling retention tests' persons and events; `times` copies of person1's day-4 and person3's day-3 events. */
  const rollingData = (times = 1) =>
    new Data()
      .person("person1")
      .person("person2")
      .person("person3")
      .person("person4")
      .person("person5")
      .events([
        ["person1", d(0)],
        ["person1", d(3)],
        ...Array.from({ length: times }, (): Row => ["person1", d(4)]),
        ["person2", d(0)],
        ["person2", d(1)],
        ["person3", d(1)],
        ["person3", d(2)],
        ...Array.from({ length: times }, (): Row => ["person3", d(3)]),
        ["person4", d(3)],
        ["person4", d(4)],
        ["person5", d(4)],
      ]);
  const ALL_EVENTS = { id: null, name: "All events" };

  // Cumulative over all events, 5 day cohorts from the 11th (the 10th is before the range).
  agrees("test_rolling_retention", async () => {
    const projectId = await rollingData().project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(5, 6) },
      retentionFilter: { cumulative: true, totalIntervals: 5, targetEntity: ALL_EVENTS, returningEntity: ALL_EVENTS },
    });
    expect(counts(results)).toEqual(pad([[2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 2, 0], [3, 0], [0]]));
  });

  agrees("test_rolling_retention_with_minimum_occurrences", async () => {
    const projectId = await rollingData(3).project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(5, 6) },
      retentionFilter: {
        cumulative: true,
        totalIntervals: 5,
        minimumOccurrences: 3,
        targetEntity: ALL_EVENTS,
        returningEntity: ALL_EVENTS,
      },
    });
    expect(counts(results)).toEqual(pad([[2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 1, 0], [3, 0], [0]]));
  });

  agrees("test_rolling_retention_doesnt_double_count_same_user", async () => {
    const projectId = await rollingData().project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(5, 6) },
      retentionFilter: { cumulative: true, totalIntervals: 6, targetEntity: ALL_EVENTS, returningEntity: ALL_EVENTS },
    });
    expect(counts(results)).toEqual(pad([[2, 2, 1, 1, 1, 0], [2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 2, 0], [3, 0], [0]]));
  });

  // Any event as the target (the test's second half, an action of any event, is not replayed: no actions).
  agrees("test_all_events", async () => {
    const projectId = await twoPersons().project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(10, 6) },
      retentionFilter: {
        totalIntervals: 11,
        targetEntity: ALL_EVENTS,
        returningEntity: { id: "$pageview", type: "events" },
      },
    });
    expect(counts(results)).toEqual(DAY_INTERVAL);
  });

  // Two pageviews needed to count as returning: only person1 on day 5 (person1 and alias1).
  agrees("test_all_events_with_minimum_occurrences", async () => {
    const projectId = await twoPersons().project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(10, 6) },
      retentionFilter: {
        totalIntervals: 11,
        targetEntity: ALL_EVENTS,
        returningEntity: { id: "$pageview", type: "events" },
        minimumOccurrences: 2,
      },
    });
    expect(counts(results)).toEqual(
      pad([
        [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 1, 0, 0, 0, 0, 0],
        [2, 0, 0, 1, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0],
        [0, 0],
        [0],
      ]),
    );
  });

  // First time `event2` (the 12th), returning on any event or on event2: the same answer.
  agrees("test_all_events_target_first_time", async () => {
    const projectId = await new Data()
      .person("person1")
      .events(
        [
          ["person1", d(0)],
          ["person1", d(1)],
          ["person1", d(2)],
        ],
        "event1",
      )
      .events(
        [
          ["person1", d(2)],
          ["person1", d(3)],
        ],
        "event2",
      )
      .project();
    const query = (returningEntity: Query) => ({
      dateRange: { date_to: d(2, 6) },
      retentionFilter: {
        retentionType: "retention_first_time",
        totalIntervals: 4,
        targetEntity: { id: "event2", type: "events" },
        returningEntity,
      },
    });
    const allEvents = await retention(projectId, query(ALL_EVENTS));
    const specific = await retention(projectId, query({ id: "event2", type: "events" }));
    expect(counts(specific)).toEqual(pad([[0, 0, 0, 0], [0, 0, 0], [0, 0], [1]]));
    expect(specific).toEqual(allEvents);
  });

  agrees("test_retention_people_basic", peopleBasic);

  // The later question has the default 8 cohorts to the 24th: the first is the 17th.
  agrees("test_retention_people_first_time", () => peopleFirstTime({}));

  agrees("test_retention_people_in_period", peopleInPeriod);

  notExpressible("test_retention_people_search", "search over an insight's persons");

  agrees("test_retention_people_in_period_first_time", peopleInPeriodFirstTime);

  // The runner's test names its entities and says the period.
  agrees("test_retention_multiple_events", () =>
    multipleEvents(
      {
        period: "Day",
        targetEntity: { id: "$some_event", name: "$some_event", type: "events" },
        returningEntity: { id: "$pageview", name: "$pageview", type: "events" },
      },
      MULTIPLE_EVENTS,
    ),
  );

  agrees("test_retention_any_event", () => multipleEvents({ period: "Day", ...ANY_EVENT_ENTITIES }, ANY_EVENT));

  notExpressible("test_retention_event_action", "actions");

  agrees("test_first_time_retention", () => firstTimeRetention({ period: "Day", ...FIRST_TIME_SIGNUP }));

  // Weeks from 3 May to the week of 14 June: shouldnt_include's first sign-up (5 June), then four persons.
  agrees("test_first_time_retention_weeks", async () => {
    const projectId = await firstTimeData().project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(5, 6) },
      retentionFilter: { period: "Week", totalIntervals: 7, ...FIRST_TIME_SIGNUP },
    });
    expect(results).toHaveLength(7);
    expect(counts(results)).toEqual(pad([...zeros(4, 7).map((r, i) => r.slice(i)), [1, 0, 0], [4, 4], [0]]));
  });

  // A global event property filter (a property group, no `type`: an event property).
  agrees("test_retention_with_properties", () =>
    withSomeProperty({
      type: "AND",
      values: [{ type: "AND", values: [{ key: "$some_property", operator: "exact", value: ["value"] }] }],
    }),
  );

  const TARGET_PROPERTY = [{ key: "$target_event_property", type: "event", operator: "exact", value: ["value"] }];

  // Only person1's first event (day 0) starts a cohort.
  agrees("test_retention_with_properties_on_start_event", async () => {
    const projectId = await twoPersons(withProperties(0, { $target_event_property: "value" })).project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(10, 0) },
      retentionFilter: { targetEntity: { id: "$pageview", properties: TARGET_PROPERTY }, totalIntervals: 11 },
    });
    expect(results).toHaveLength(11);
    expect(results.map((r) => r.label)).toEqual(periods("Day", 11));
    expect(instants(results)[0]).toBe("2020-06-10T00:00:00.000Z");
    expect(counts(results)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0], ...zeros(10).map((r, i) => r.slice(i))]));
  });

  // person1's first matching pageview is on day 2: cohort 2, back on days 5 and 6.
  agrees("test_retention_with_properties_on_start_event_for_first_time", async () => {
    const rows: Row[] = TWO_PERSONS.map(([id, t], i) =>
      i === 2 || i === 3 ? [id, t, { $target_event_property: "value" }] : [id, t],
    );
    const projectId = await twoPersons(rows).project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(10, 0) },
      retentionFilter: {
        retentionType: "retention_first_time",
        totalIntervals: 11,
        targetEntity: { id: "$pageview", properties: TARGET_PROPERTY },
      },
    });
    expect(results).toHaveLength(11);
    expect(results.map((r) => r.label)).toEqual(periods("Day", 11));
    expect(instants(results)[0]).toBe("2020-06-10T00:00:00.000Z");
    const expected = zeros(11).map((r, i) => r.slice(i));
    expected[2] = [1, 0, 0, 1, 1, 0, 0, 0, 0];
    expect(counts(results)).toEqual(pad(expected));
  });

  // Only person1's day-1 pageview counts as a return.
  agrees("test_retention_with_properties_on_return_event", async () => {
    const projectId = await twoPersons(withProperties(1, { $target_event_property: "value" })).project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(10, 0) },
      retentionFilter: { totalIntervals: 11, returningEntity: { id: "$pageview", properties: TARGET_PROPERTY } },
    });
    expect(results).toHaveLength(11);
    expect(results.map((r) => r.label)).toEqual(periods("Day", 11));
    expect(instants(results)[0]).toBe("2020-06-10T00:00:00.000Z");
    expect(counts(results)).toEqual(
      pad([
        [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0],
        [0, 0],
        [0],
      ]),
    );
  });

  /** person1 and person2 on days 0 and 1, `properties[k]` on row k. */
  const daysZeroAndOne = (properties: Record<number, Record<string, unknown>>) =>
    new Data()
      .person("person1")
      .person("person2")
      .events(
        (
          [
            ["person1", d(0)],
            ["person2", d(0)],
            ["person1", d(1)],
            ["person2", d(1)],
          ] as Row[]
        ).map(([id, t], k) => [id, t, properties[k]]),
      );

  agrees("test_retention_with_properties_on_all_events_target_entity", async () => {
    const projectId = await daysZeroAndOne({
      0: { $target_event_property: "value" },
      1: { $target_event_property: "other" },
    }).project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(6, 0) },
      retentionFilter: {
        period: "Day",
        totalIntervals: 7,
        targetEntity: { id: null, type: "events", properties: TARGET_PROPERTY },
        returningEntity: { id: null, type: "events" },
      },
    });
    expect(results[0].values[0].count).toBe(1);
  });

  agrees("test_retention_with_properties_on_all_events_returning_entity", async () => {
    const projectId = await daysZeroAndOne({
      2: { $return_event_property: "value" },
      3: { $return_event_property: "other" },
    }).project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(6, 0) },
      retentionFilter: {
        period: "Day",
        totalIntervals: 7,
        targetEntity: { id: null, type: "events" },
        returningEntity: {
          id: null,
          type: "events",
          properties: [{ key: "$return_event_property", type: "event", operator: "exact", value: ["value"] }],
        },
      },
    });
    expect(results[0].values[0].count).toBe(2);
    expect(results[0].values[1].count).toBe(1);
  });

  notExpressible("test_retention_with_properties_on_action_target_entity", "actions");
  notExpressible("test_retention_with_properties_on_action_returning_entity", "actions");

  // First-time pageviews; only person1's day-5 pageview (with the property) counts as a return.
  agrees("test_retention_with_properties_on_return_event_with_first_time", async () => {
    const projectId = await twoPersons(withProperties(3, { $target_event_property: "value" })).project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(10, 0) },
      retentionFilter: {
        retentionType: "retention_first_time",
        totalIntervals: 11,
        returningEntity: { id: "$pageview", properties: TARGET_PROPERTY },
      },
    });
    expect(results).toHaveLength(11);
    expect(results.map((r) => r.label)).toEqual(periods("Day", 11));
    expect(instants(results)[0]).toBe("2020-06-10T00:00:00.000Z");
    const expected = zeros(11).map((r, i) => r.slice(i));
    expected[0] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0];
    expected[1] = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    expect(counts(results)).toEqual(pad(expected));
  });

  const PERSON1_EMAIL = {
    type: "AND",
    values: [
      { type: "AND", values: [{ key: "email", operator: "exact", type: "person", value: ["person1@test.com"] }] },
    ],
  };

  agrees("test_retention_with_user_properties", () => withUserProperties(PERSON1_EMAIL));

  // Every event twice, and one more on day 3 for person1 (a cohort, but never a return).
  agrees("test_retention_with_user_properties_and_minimum_occurrences", async () => {
    const data = twoPersons([...TWO_PERSONS, ...TWO_PERSONS], EMAILS).events([["person1", d(3)]]);
    const projectId = await data.project();
    const results = await retention(projectId, {
      dateRange: { date_to: d(6, 0) },
      properties: PERSON1_EMAIL,
      retentionFilter: { totalIntervals: 7, minimumOccurrences: 2 },
    });
    expect(results).toHaveLength(7);
    expect(results.map((r) => r.label)).toEqual(periods("Day", 7));
    expect(instants(results)[0]).toBe("2020-06-10T00:00:00.000Z");
    expect(counts(results)).toEqual(
      pad([[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [1, 0, 1, 1], [0, 0, 0], [1, 1], [1]]),
    );
  });

  notExpressible("test_retention_with_user_properties_via_action", "actions");
  notExpressible("test_retention_action_start_point", "actions");

  agrees("test_filter_test_accounts", filterTestAccounts);

  // --- retention_first_ever_occurrence: a person's cohort is the interval of their first-ever target event.

  /** `_create_first_time_ever_retention_events()`. */
  const firstEverData = () =>
    new Data()
      .person("person1", undefined, "alias1")
      .person("person2")
      .person("person3")
      .person("person4")
      .person("person5")
      .events([["person1", d(0)]])
      .events([["person1", d(1)]], "$user_signed_up")
      .events([
        ["person1", d(1)],
        ["person1", d(3)],
        ["person1", d(5)],
      ])
      .events([["person2", d(1)]], "$user_signed_up")
      .events([
        ["person2", d(2)],
        ["person2", d(4)],
      ])
      .events([["person3", d(2)]])
      .events([["person3", d(3)]], "$user_signed_up")
      .events([
        ["person3", d(4)],
        ["person3", d(6)],
      ])
      .events([["person4", d(-1)]])
      .events([["person4", d(2)]], "$user_signed_up")
      .events([["person4", d(3)]])
      .events([["person5", d(3)]], "$user_signed_up")
      .events([
        ["person5", d(4)],
        ["person5", d(5)],
      ]);

  const FIRST_EVER_SIGNUP = {
    period: "Day",
    totalIntervals: 7,
    retentionType: "retention_first_ever_occurrence",
    targetEntity: { id: "$user_signed_up", name: "$user_signed_up", type: "events" },
    returningEntity: { id: "$pageview", name: "$pageview", type: "events" },
  };
  /** 10 to 17 June: eight day cohorts of seven values. */
  const JUNE_10_TO_17 = { date_from: d(0), date_to: d(7) };

  agrees("test_retention_first_time_ever_basic", async () => {
    const projectId = await firstEverData().project();
    const results = await retention(projectId, { dateRange: JUNE_10_TO_17, retentionFilter: FIRST_EVER_SIGNUP });
    expect(results).toHaveLength(8);
    expect(results.map((r) => r.label)).toEqual(periods("Day", 8));
    expect(counts(results)).toEqual([
      [0, 0, 0, 0, 0, 0, 0],
      [2, 1, 1, 1, 1, 0, 0],
      [1, 1, 0, 0, 0, 0, 0],
      [2, 2, 1, 1, 0, 0, 0],
      ...zeros(4, 7),
    ]);
  });

  /** The breakdown tests' persons: person1 to person4, sign-ups on days 2, 1, 2, 4, pageviews around them. */
  const firstEverBreakdownData = (
    properties: (id: string) => Record<string, unknown> | undefined,
    events: Record<string, unknown>[],
  ) => {
    const [p1, p2, p3] = events;
    const data = new Data();
    for (const id of ["person1", "person2", "person3", "person4"]) data.person(id, properties(id));
    return data
      .events([["person1", d(1), p1]])
      .events([["person1", d(2), p1]], "$user_signed_up")
      .events([
        ["person1", d(3), p1],
        ["person1", d(5), p1],
      ])
      .events([["person2", d(1), p2]], "$user_signed_up")
      .events([
        ["person2", d(2), p2],
        ["person2", d(4), p2],
      ])
      .events([["person3", d(2), p3]], "$user_signed_up")
      .events([
        ["person3", d(3), p3],
        ["person3", d(5), p3],
      ]);
  };

  /** Two persons signing up on day 2 and returning on days 3 and 5. */
  const BOTH_ON_DAY_2 = [...zeros(2, 7), [2, 2, 0, 2, 0, 0, 0], ...zeros(5, 7)];
  /** One person signing up on day 1 and returning on days 2 and 4. */
  const ONE_ON_DAY_1 = [[0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 1, 0, 0, 0], ...zeros(6, 7)];

  agrees("test_retention_first_time_ever_with_person_breakdown", async () => {
    const ages: Record<string, string> = { person1: "25", person2: "30", person3: "25", person4: "30" };
    const data = firstEverBreakdownData((id) => ({ age: ages[id] }), []);
    // person4 (age 30): a pageview on day 3, the sign-up on day 4, pageviews on days 5 and 6.
    data
      .events([["person4", d(3)]])
      .events([["person4", d(4)]], "$user_signed_up")
      .events([
        ["person4", d(5)],
        ["person4", d(6)],
      ]);
    const projectId = await data.project();
    const results = await retention(projectId, {
      dateRange: JUNE_10_TO_17,
      retentionFilter: FIRST_EVER_SIGNUP,
      breakdownFilter: { breakdown: "age", breakdown_type: "person" },
    });
    expect(results).toHaveLength(16);
    expect(of(results, "25")).toHaveLength(8);
    expect(of(results, "30")).toHaveLength(8);
    expect(counts(of(results, "25"))).toEqual(BOTH_ON_DAY_2);
    const age30 = ONE_ON_DAY_1.map((r) => [...r]);
    age30[4] = [1, 1, 1, 0, 0, 0, 0];
    expect(counts(of(results, "30"))).toEqual(age30);
  });

  agrees("test_retention_first_time_ever_with_event_breakdown", async () => {
    const sources = [{ source: "web" }, { source: "mobile" }, { source: "web" }];
    const projectId = await firstEverBreakdownData(() => undefined, sources).project();
    const results = await retention(projectId, {
      dateRange: JUNE_10_TO_17,
      retentionFilter: FIRST_EVER_SIGNUP,
      breakdownFilter: { breakdown: "source", breakdown_type: "event" },
    });
    expect(results).toHaveLength(16);
    expect(of(results, "web")).toHaveLength(8);
    expect(of(results, "mobile")).toHaveLength(8);
    expect(counts(of(results, "web"))).toEqual(BOTH_ON_DAY_2);
    expect(counts(of(results, "mobile"))).toEqual(ONE_ON_DAY_1);
  });

  // old_user first opened the app before the flag existed: only in the "" bucket on day 0, never in
  // "control" (the value on their later events); the buckets add up to the unbroken cohorts.
  agrees("test_retention_first_time_ever_breakdown_does_not_inflate_buckets", async () => {
    const flag = (value: string) => ({ "$feature/new_design": value });
    const projectId = await new Data()
      .person("old_user")
      .person("new_user")
      .events([["old_user", d(0)]], "app_opened")
      .events([["old_user", d(2), flag("control")]], "app_opened")
      .events([["old_user", d(3), flag("control")]], "insight_viewed")
      .events([["new_user", d(2), flag("variant_a")]], "app_opened")
      .events([["new_user", d(3), flag("variant_a")]], "insight_viewed")
      .project();
    const base = {
      dateRange: { date_from: d(0), date_to: d(4) },
      retentionFilter: {
        period: "Day",
        totalIntervals: 4,
        retentionType: "retention_first_ever_occurrence",
        targetEntity: { id: "app_opened", name: "app_opened", type: "events" },
        returningEntity: { id: "insight_viewed", name: "insight_viewed", type: "events" },
      },
    };
    const broken = { ...base, breakdownFilter: { breakdown: "$feature/new_design", breakdown_type: "event" } };
    const unbroken = await retention(projectId, base);
    const brokenDown = await retention(projectId, broken);
    const totals = new Map<string, number>();
    for (const row of brokenDown) totals.set(row.date, (totals.get(row.date) ?? 0) + row.values[0].count);
    for (const row of unbroken) expect(totals.get(row.date) ?? 0, row.date).toBe(row.values[0].count);
    const cohortCount = (value: string, day: number) =>
      brokenDown
        .filter((r) => r.breakdown_value === value && r.date === unbroken[day].date)
        .reduce((sum, r) => sum + r.values[0].count, 0);
    expect(cohortCount("", 0)).toBe(1);
    expect(cohortCount("variant_a", 2)).toBe(1);
    expect(cohortCount("control", 2)).toBe(0);
    expect(await persons(projectId, broken, 0, [""])).toEqual(["old_user"]);
    expect(await persons(projectId, broken, 2, ["variant_a"])).toEqual(["new_user"]);
    expect(await persons(projectId, broken, 2, ["control"])).toEqual([]);
  });

  notExpressible("test_retention_first_time_ever_with_cohort_breakdown", "cohort breakdowns");

  // Two pageviews a day needed to return.
  agrees("test_retention_first_time_ever_with_minimum_occurrences", async () => {
    const projectId = await new Data()
      .person("person1")
      .person("person2")
      .person("person3")
      .events([["person1", d(1)]], "$user_signed_up")
      .events([
        ["person1", d(2)],
        ["person1", d(2, 1)],
      ])
      .events([["person1", d(4)]])
      .events([["person2", d(2)]], "$user_signed_up")
      .events([
        ["person2", d(3)],
        ["person2", d(3, 1)],
        ["person2", d(3, 2)],
      ])
      .events([
        ["person2", d(5)],
        ["person2", d(5, 1)],
      ])
      .events([["person3", d(3)]], "$user_signed_up")
      .events([["person3", d(4)]])
      .project();
    const results = await retention(projectId, {
      dateRange: JUNE_10_TO_17,
      retentionFilter: { ...FIRST_EVER_SIGNUP, minimumOccurrences: 2 },
    });
    expect(results).toHaveLength(8);
    expect(results.map((r) => r.label)).toEqual(periods("Day", 8));
    expect(counts(results)).toEqual([
      [0, 0, 0, 0, 0, 0, 0],
      [1, 1, 0, 0, 0, 0, 0],
      [1, 1, 0, 1, 0, 0, 0],
      [1, 0, 0, 0, 0, 0, 0],
      ...zeros(4, 7),
    ]);
  });

  // Cohort 1 (the 11th): person1 (with alias1) and person2; cohort 3: person3 and person5. (The test's
  // second check reads the `appearances` column: not among edgehog's ActorsQuery columns.)
  agrees("test_retention_first_time_ever_actors_query", async () => {
    const projectId = await firstEverData().project();
    const query = { dateRange: JUNE_10_TO_17, retentionFilter: FIRST_EVER_SIGNUP };
    expect(await persons(projectId, query, 1)).toEqual(sorted(["alias1+person1", "person2"]));
    expect(await persons(projectId, query, 3)).toEqual(sorted(["person3", "person5"]));
  });

  // Weeks from the week of 10 June to that of 30 July: eight cohorts of five values.
  agrees("test_retention_first_time_ever_different_intervals", async () => {
    const projectId = await new Data()
      .person("person1")
      .person("person2")
      .person("person3")
      .events([["person1", d(1)]], "$user_signed_up")
      .events([
        ["person1", d(8)],
        ["person1", d(15)],
      ])
      .events([["person2", d(8)]])
      .events([["person2", d(14)]], "$user_signed_up")
      .events([["person2", d(20)]])
      .events([["person3", d(14)]], "$user_signed_up")
      .events([
        ["person3", d(20)],
        ["person3", d(20, 5, 1)],
      ])
      .project();
    const results = await retention(projectId, {
      dateRange: { date_from: d(0), date_to: d(20, 5, 1) },
      retentionFilter: { ...FIRST_EVER_SIGNUP, period: "Week", totalIntervals: 5 },
    });
    expect(results).toHaveLength(8);
    expect(results.map((r) => r.label)).toEqual(periods("Week", 8));
    expect(counts(results)).toEqual([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0], [2, 2, 0, 0, 0], ...zeros(5, 5)]);
  });

  // A global `source = organic` filter leaves out person2 (paid).
  agrees("test_retention_first_time_ever_with_properties", async () => {
    const sources = [{ source: "organic" }, { source: "paid" }, { source: "organic" }];
    const projectId = await firstEverBreakdownData(() => undefined, sources).project();
    const results = await retention(projectId, {
      dateRange: JUNE_10_TO_17,
      retentionFilter: FIRST_EVER_SIGNUP,
      properties: [{ key: "source", operator: "exact", value: ["organic"], type: "event" }],
    });
    expect(results).toHaveLength(8);
    expect(results.map((r) => r.label)).toEqual(periods("Day", 8));
    expect(counts(results)).toEqual(BOTH_ON_DAY_2);
  });

  notExpressible("test_retention_first_time_ever_events_query", "the runner's inner events query (HogQL internals)");

  // In UTC, then with the project moved to US/Pacific (the events were made in UTC).
  agrees("test_timezones", () => timezones(d(10, 6)));

  // `samplingFactor: 1` reads every event.
  agrees("test_day_interval_sampled", () => dayInterval({ samplingFactor: 1 }));

  /** Six day cohorts to 15 June (the breakdown tests). */
  const SIX_DAYS = { dateRange: { date_to: d(5, 0) } };

  agrees("test_retention_with_breakdown_with_person_properties", async () => {
    const countries: Record<string, string> = { person1: "US", person2: "UK", person3: "US", person4: "Germany" };
    const data = new Data();
    for (const [id, country] of Object.entries(countries)) data.person(id, { country });
    const projectId = await data
      .events([
        ["person1", d(0)],
        ["person1", d(1)],
        ["person1", d(3)],
        ["person3", d(0)],
        ["person3", d(2)],
        ["person2", d(0)],
        ["person2", d(1)],
        ["person2", d(4)],
        ["person4", d(0)],
        ["person4", d(5)],
      ])
      .project();
    const results = await retention(projectId, {
      ...SIX_DAYS,
      retentionFilter: { totalIntervals: 6, period: "Day" },
      breakdownFilter: { breakdowns: [{ property: "country", type: "person" }] },
    });
    expect(breakdownValues(results)).toEqual(["Germany", "UK", "US"]);
    expect(counts(of(results, "US"))).toEqual(
      pad([[2, 1, 1, 1, 0, 0], [1, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], ...zeros(2, 6)]),
    );
    expect(counts(of(results, "UK"))).toEqual(
      pad([[1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 0, 0], ...zeros(2, 6), [1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]),
    );
    expect(counts(of(results, "Germany"))).toEqual(pad([[1, 0, 0, 0, 0, 1], ...zeros(4, 6), [1, 0, 0, 0, 0, 0]]));
  });

  notExpressible(
    "test_retention_with_breakdown_with_data_warehouse_person_properties",
    "data warehouse person properties",
  );

  /** person1 (US) and person3 (US) and person2 (UK) with `rows`. */
  const countriesData = (rows: Row[]) =>
    new Data()
      .person("person1", { country: "US" })
      .person("person2", { country: "UK" })
      .person("person3", { country: "US" })
      .events(rows);
  const BY_COUNTRY = { breakdowns: [{ property: "country", type: "person" }] };

  agrees("test_retention_actor_query_with_breakdown", async () => {
    const projectId = await countriesData([
      ["person1", d(0)],
      ["person1", d(1)],
      ["person1", d(2)],
      ["person2", d(0)],
      ["person2", d(1)],
      ["person2", d(2)],
      ["person3", d(0)],
      ["person3", d(1)],
    ]).project();
    const query = {
      dateRange: { date_to: d(2, 0) },
      retentionFilter: { totalIntervals: 3, period: "Day" },
      breakdownFilter: BY_COUNTRY,
    };
    expect(await persons(projectId, query, 0, ["US"])).toEqual(["person1", "person3"]);
    expect(await persons(projectId, query, 1, ["UK"])).toContain("person2");
  });

  agrees("test_retention_actor_query_with_breakdown_and_minimum_occurrences", async () => {
    const twice = (id: string, day: number): Row[] => [
      [id, d(day)],
      [id, d(day)],
    ];
    const projectId = await countriesData([
      ["person1", d(0)],
      ...twice("person1", 1),
      ...twice("person1", 2),
      ["person1", d(3)],
      ["person2", d(0)],
      ...twice("person2", 1),
      ...twice("person2", 2),
      ["person2", d(3)],
      ["person3", d(0)],
      ...twice("person3", 1),
      ["person3", d(3)],
    ]).project();
    const query = {
      dateRange: { date_to: d(2, 0) },
      retentionFilter: { totalIntervals: 3, period: "Day", minimumOccurrences: 2 },
      breakdownFilter: BY_COUNTRY,
    };
    expect(await persons(projectId, query, 0, ["US"])).toEqual(["person1", "person3"]);
    expect(await persons(projectId, query, 1, ["UK"])).toContain("person2");
  });

  /** The browser breakdown tests' events: Chrome (person1, person3), Safari (person2), Firefox (person4). */
  const BROWSER_ROWS: Row[] = [
    ["person1", d(0), { browser: "Chrome" }],
    ["person1", d(1), { browser: "Chrome" }],
    ["person1", d(3), { browser: "Chrome" }],
    ["person3", d(0), { browser: "Chrome" }],
    ["person3", d(2), { browser: "Chrome" }],
    ["person2", d(0), { browser: "Safari" }],
    ["person2", d(1), { browser: "Safari" }],
    ["person2", d(4), { browser: "Safari" }],
    ["person4", d(0), { browser: "Firefox" }],
    ["person4", d(5), { browser: "Firefox" }],
  ];
  const fourPersons = () => new Data().person("person1").person("person2").person("person3").person("person4");
  const BY_BROWSER = { breakdowns: [{ property: "browser", type: "event" }] };

  agrees("test_retention_with_breakdown_event_properties", async () => {
    const projectId = await fourPersons().events(BROWSER_ROWS).project();
    const results = await retention(projectId, {
      ...SIX_DAYS,
      retentionFilter: { totalIntervals: 6, period: "Day" },
      breakdownFilter: BY_BROWSER,
    });
    expect(breakdownValues(results)).toEqual(["Chrome", "Firefox", "Safari"]);
    expect(counts(of(results, "Chrome"))).toEqual(
      pad([[2, 1, 1, 1, 0, 0], [1, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], ...zeros(2, 6)]),
    );
    expect(counts(of(results, "Safari"))).toEqual(
      pad([[1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 0, 0], ...zeros(2, 6), [1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]),
    );
    expect(counts(of(results, "Firefox"))).toEqual(pad([[1, 0, 0, 0, 0, 1], ...zeros(4, 6), [1, 0, 0, 0, 0, 0]]));
  });

  // Every event twice, then single events (cohorts, never returns) on other days.
  agrees("test_retention_with_breakdown_event_properties_and_minimum_occurrences", async () => {
    const projectId = await fourPersons()
      .events([...BROWSER_ROWS, ...BROWSER_ROWS])
      .events([
        ["person1", d(5), { browser: "Chrome" }],
        ["person2", d(2), { browser: "Safari" }],
        ["person3", d(3), { browser: "Chrome" }],
        ["person4", d(3), { browser: "Firefox" }],
      ])
      .project();
    const results = await retention(projectId, {
      ...SIX_DAYS,
      retentionFilter: { totalIntervals: 6, period: "Day", minimumOccurrences: 2 },
      breakdownFilter: BY_BROWSER,
    });
    expect(breakdownValues(results)).toEqual(["Chrome", "Firefox", "Safari"]);
    expect(counts(of(results, "Chrome"))).toEqual(
      pad([
        [2, 1, 1, 1, 0, 0],
        [1, 0, 1, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
      ]),
    );
    expect(counts(of(results, "Safari"))).toEqual(
      pad([
        [1, 1, 0, 0, 1, 0],
        [1, 0, 0, 1, 0, 0],
        [1, 0, 1, 0, 0, 0],
        [0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0],
      ]),
    );
    expect(counts(of(results, "Firefox"))).toEqual(
      pad([
        [1, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0],
        [1, 0, 1, 0, 0, 0],
        [0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
      ]),
    );
  });

  // Cumulative: Chrome's day-0 person back on days 1 and 3 counts on days 1, 2 and 3.
  agrees("test_retention_cumulative_with_breakdown_event_properties", async () => {
    const projectId = await new Data()
      .person("person1")
      .person("person2")
      .person("person3")
      .events([
        ["person1", d(0), { browser: "Chrome" }],
        ["person1", d(1), { browser: "Chrome" }],
        ["person1", d(3), { browser: "Chrome" }],
        ["person2", d(0), { browser: "Safari" }],
        ["person2", d(1), { browser: "Safari" }],
        ["person2", d(2), { browser: "Safari" }],
        ["person3", d(0), { browser: "Firefox" }],
        ["person3", d(2), { browser: "Firefox" }],
      ])
      .project();
    const results = await retention(projectId, {
      ...SIX_DAYS,
      retentionFilter: { totalIntervals: 6, period: "Day", cumulative: true },
      breakdownFilter: BY_BROWSER,
    });
    expect(breakdownValues(results)).toEqual(["Chrome", "Firefox", "Safari"]);
    expect(counts(of(results, "Chrome"))[0].slice(0, 4)).toEqual([1, 1, 1, 1]);
  });

  agrees("test_retention_actor_query_with_event_property_breakdown", async () => {
    const projectId = await new Data()
      .person("person1")
      .person("person2")
      .person("person3")
      .events([
        ["person1", d(0), { browser: "Chrome" }],
        ["person1", d(1), { browser: "Chrome" }],
        ["person1", d(2), { browser: "Chrome" }],
        ["person2", d(0), { browser: "Safari" }],
        ["person2", d(1), { browser: "Safari" }],
        ["person2", d(2), { browser: "Safari" }],
        ["person3", d(0), { browser: "Chrome" }],
        ["person3", d(1), { browser: "Chrome" }],
      ])
      .project();
    const query = {
      dateRange: { date_to: d(2, 0) },
      retentionFilter: { totalIntervals: 3, period: "Day" },
      breakdownFilter: BY_BROWSER,
    };
    expect(await persons(projectId, query, 0, ["Chrome"])).toEqual(["person1", "person3"]);
    expect(await persons(projectId, query, 0, ["Safari"])).toEqual(["person2"]);
  });

  /** `signup` (the target) with a category, then `purchase`s (returns) with their own. */
  const SIGNUP_PURCHASE = {
    targetEntity: { id: "signup", type: "events" },
    returningEntity: { id: "purchase", type: "events" },
  };
  const BY_CATEGORY = { breakdowns: [{ property: "category", type: "event" }] };

  // A return counts only with the start event's breakdown value (and not on the day of the start).
  agrees("test_retention_with_breakdown_different_entities", async () => {
    const category = (value: string | undefined, type: string) => ({
      ...(value ? { category: value } : {}),
      $event_type: type,
    });
    const projectId = await fourPersons()
      .events(
        [
          ["person1", d(0), category("clothing", "signup")],
          ["person2", d(0), category("clothing", "signup")],
          ["person3", d(0), category("electronics", "signup")],
          ["person4", d(1), category("electronics", "signup")],
        ],
        "signup",
      )
      .events(
        [
          ["person1", d(1), category("clothing", "purchase")],
          ["person1", d(3), category(undefined, "purchase")],
          ["person1", d(5), category("electronics", "purchase")],
          ["person2", d(2), category("clothing", "purchase")],
          ["person3", d(1), category("electronics", "purchase")],
          ["person3", d(4), category("electronics", "purchase")],
          ["person4", d(1), category("electronics", "purchase")],
          ["person4", d(2), category("electronics", "purchase")],
          ["person4", d(3), category("clothing", "purchase")],
        ],
        "purchase",
      )
      .project();
    const filter = { totalIntervals: 6, period: "Day", ...SIGNUP_PURCHASE };
    const results = await retention(projectId, { ...SIX_DAYS, retentionFilter: filter, breakdownFilter: BY_CATEGORY });
    expect(breakdownValues(results)).toEqual(["clothing", "electronics"]);
    expect(counts(of(results, "clothing"))).toEqual(pad([[2, 1, 1, 0, 0, 0], ...zeros(5, 6)]));
    expect(counts(of(results, "electronics"))).toEqual(pad([[1, 1, 0, 0, 1, 0], [1, 1, 0, 0, 0, 0], ...zeros(4, 6)]));
    const electronics = await persons(
      projectId,
      { ...SIX_DAYS, retentionFilter: filter, breakdownFilter: BY_CATEGORY },
      1,
      ["electronics"],
    );
    expect(electronics).toContain("person4");
    const clothing = await persons(
      projectId,
      { dateRange: { date_to: d(5, 10) }, retentionFilter: filter, breakdownFilter: BY_CATEGORY },
      0,
      ["clothing"],
    );
    expect(clothing).toEqual(expect.arrayContaining(["person1", "person2"]));
  });

  notExpressible("test_retention_with_breakdown_event_metadata", "event metadata breakdowns");

  // No purchase carries a category: no returns in any bucket.
  agrees("test_retention_with_breakdown_on_start_event", async () => {
    const purchase = { $event_type: "purchase" };
    const projectId = await new Data()
      .person("person1")
      .person("person2")
      .person("person3")
      .events(
        [
          ["person1", d(0), { category: "clothing", $event_type: "signup" }],
          ["person2", d(0), { category: "clothing", $event_type: "signup" }],
          ["person3", d(0), { category: "electronics", $event_type: "signup" }],
        ],
        "signup",
      )
      .events(
        [
          ["person1", d(1), purchase],
          ["person1", d(3), purchase],
          ["person1", d(5), purchase],
          ["person2", d(2), purchase],
          ["person3", d(1), purchase],
          ["person3", d(4), purchase],
          ["person4", d(1), purchase],
          ["person4", d(4), purchase],
        ],
        "purchase",
      )
      .project();
    const results = await retention(projectId, {
      ...SIX_DAYS,
      retentionFilter: { totalIntervals: 6, period: "Day", ...SIGNUP_PURCHASE },
      breakdownFilter: BY_CATEGORY,
    });
    expect(breakdownValues(results)).toEqual(["clothing", "electronics"]);
    expect(counts(of(results, "clothing"))).toEqual(pad([[2, 0, 0, 0, 0, 0], ...zeros(5, 6)]));
  });

  notExpressible("test_events_query", "the runner's inner events query (HogQL internals)");

  // The target needs `prop = correct`: first-time (matching the filters) starts on day 1; first-ever
  // occurrence looks at the first target_event (day 0, `wrong`) and finds no cohort.
  agrees("test_retention_first_time_vs_first_ever_occurrence", async () => {
    const projectId = await new Data()
      .person("person1")
      .events([["person1", d(0), { prop: "wrong" }]], "target_event")
      .events([["person1", d(1), { prop: "correct" }]], "target_event")
      .events(
        [
          ["person1", d(2)],
          ["person1", d(3)],
        ],
        "returning_event",
      )
      .project();
    const query = (retentionType: string) => ({
      dateRange: { date_from: d(0), date_to: d(5) },
      retentionFilter: {
        totalIntervals: 5,
        targetEntity: {
          id: "target_event",
          type: "events",
          properties: [{ key: "prop", value: "correct", type: "event" }],
        },
        returningEntity: { id: "returning_event", type: "events" },
        retentionType,
      },
    });
    const firstTime = await retention(projectId, query("retention_first_time"));
    const firstEver = await retention(projectId, query("retention_first_ever_occurrence"));
    expect(firstTime).not.toEqual(firstEver);
    expect(counts(firstTime)).toEqual([[0, 0, 0, 0, 0], [1, 1, 1, 0, 0], ...zeros(4, 5)]);
    expect(counts(firstEver)).toEqual(zeros(6, 5));
  });

  notExpressible("test_cohort_filter_optimization_with_property_filter", "HogQL internals (query modifiers)");
  notExpressible("test_cohort_filter_optimization_with_cohort_breakdown", "HogQL internals (query modifiers)");
  notExpressible("test_cohort_filter_optimization_with_nested_properties", "HogQL internals (query modifiers)");
  notExpressible("test_no_cohort_filter_keeps_auto_mode", "HogQL internals (query modifiers)");
  notExpressible("test_cohort_filter_optimization_with_dashboard_filters", "HogQL internals (query modifiers)");

  for (const name of [
    "test_retention_aggregation_sum",
    "test_retention_aggregation_avg",
    "test_retention_aggregation_multiple_events_same_day",
    "test_retention_aggregation_cohort_size_sum",
    "test_retention_aggregation_cohort_size_avg",
    "test_retention_aggregation_cohort_size_with_breakdown",
    "test_retention_aggregation_different_events_interval_0_includes_return_after_start",
    "test_retention_aggregation_different_events_interval_0_excludes_return_before_start",
    "test_retention_aggregation_same_events_interval_0_unchanged",
    "test_retention_aggregation_different_events_avg_interval_0",
    "test_retention_aggregation_person_property_sum",
    "test_retention_aggregation_person_property_avg",
  ])
    notExpressible(name, "aggregation properties (aggregationType)");
  notExpressible("test_retention_aggregation_person_property_no_self_join", "HogQL internals (the printed SQL)");
  notExpressible("test_retention_aggregation_event_property_default", "HogQL internals (the printed SQL)");

  // TestClickhouseRetentionGroupAggregation.
  notExpressible("test_groups_aggregating", "group aggregation");
  notExpressible("test_groups_in_period", "group aggregation");
  notExpressible("test_groups_aggregating_person_on_events", "group aggregation");
  notExpressible("test_limit_is_context_aware", "HogQL internals (execution settings)");

  // `breakdown_limit: 2`: Chrome (3 persons), Safari (2), and Firefox and Edge in the other bucket.
  agrees("test_retention_with_breakdown_limit", async () => {
    const data = new Data();
    for (const id of ["p_chrome_1", "p_chrome_2", "p_chrome_3", "p_safari_1", "p_safari_2", "p_firefox_1", "p_edge_1"])
      data.person(id);
    const browser = (b: string) => ({ browser: b });
    const projectId = await data
      .events([
        ["p_chrome_1", d(0), browser("Chrome")],
        ["p_chrome_1", d(1), browser("Chrome")],
        ["p_chrome_2", d(0), browser("Chrome")],
        ["p_chrome_2", d(2), browser("Chrome")],
        ["p_chrome_3", d(0), browser("Chrome")],
        ["p_safari_1", d(0), browser("Safari")],
        ["p_safari_1", d(1), browser("Safari")],
        ["p_safari_2", d(0), browser("Safari")],
        ["p_firefox_1", d(0), browser("Firefox")],
        ["p_firefox_1", d(3), browser("Firefox")],
        ["p_edge_1", d(0), browser("Edge")],
        ["p_edge_1", d(4), browser("Edge")],
      ])
      .project();
    const results = await retention(projectId, {
      ...SIX_DAYS,
      retentionFilter: { totalIntervals: 6, period: "Day" },
      breakdownFilter: { ...BY_BROWSER, breakdown_limit: 2 },
    });
    expect(breakdownValues(results)).toEqual(sorted(["Chrome", "Safari", OTHER_BREAKDOWN]));
    expect(counts(of(results, "Chrome"))).toEqual(
      pad([[3, 1, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], ...zeros(3, 6)]),
    );
    expect(counts(of(results, "Safari"))).toEqual(pad([[2, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], ...zeros(4, 6)]));
    expect(counts(of(results, OTHER_BREAKDOWN))).toEqual(
      pad([
        [2, 0, 0, 1, 1, 0],
        [0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0],
      ]),
    );
  });

  notExpressible("test_retention_with_virtual_person_property_breakdown", "virtual person properties ($virt_…)");
  notExpressible("test_retention_with_cohort_breakdown", "cohort breakdowns");
  notExpressible("test_retention_with_multiple_cohort_breakdowns", "cohort breakdowns");
  notExpressible("test_retention_with_all_users_cohort_breakdown", "cohort breakdowns");
  notExpressible("test_retention_with_all_users_cohort_breakdown_string_value", "cohort breakdowns");
  notExpressible("test_retention_actor_query_with_multiple_cohort_breakdowns", "cohort breakdowns");

  /** 11 day cohorts from 10 June, seven values each, by the person's `country`. */
  const BY_COUNTRY_FROM_JUNE_10 = (limit?: number) => ({
    dateRange: { date_from: d(0), date_to: d(10) },
    retentionFilter: { period: "Day", totalIntervals: 7 },
    breakdownFilter: { breakdown: "country", breakdown_type: "person", ...(limit ? { breakdown_limit: limit } : {}) },
  });

  // person_no_country gets its country (Taiwan) only after two of its events: the breakdown reads the
  // person's current properties, so Taiwan has both persons (among 20 other countries).
  agrees("test_retention_breakdown_person_property_is_stable", async () => {
    const data = new Data()
      .person("person_no_country")
      .person("person_with_country", { country: "Taiwan" })
      .events([
        ["person_no_country", d(0)],
        ["person_no_country", d(1)],
        ["person_with_country", d(0)],
        ["person_with_country", d(1)],
      ])
      .events([
        ["person_no_country", d(2), { $set: { country: "Taiwan" } }],
        ["person_with_country", d(2)],
      ]);
    for (let i = 0; i < 20; i++)
      data.person(`person_${i}`, { country: `Country_${i}` }).events([
        [`person_${i}`, d(0)],
        [`person_${i}`, d(1)],
      ]);
    const projectId = await data.project();
    const results = await retention(projectId, BY_COUNTRY_FROM_JUNE_10());
    expect(breakdownValues(results)).toContain("Taiwan");
    expect(labelled(of(results, "Taiwan"), "Day 0")?.values[0].count).toBe(2);
  });

  // person_changing: no country, then Canada, then USA (the latest): counted in USA only, which ranks in
  // the top 5; Canada does not appear.
  agrees("test_retention_breakdown_uses_most_recent_property_value", async () => {
    const data = new Data()
      .person("person_changing")
      .events([["person_changing", d(0)]])
      .events([["person_changing", d(1), { $set: { country: "Canada" } }]])
      .events([["person_changing", d(2), { $set: { country: "USA" } }]])
      .person("usa_baseline", { country: "USA" })
      .events([["usa_baseline", d(0)]]);
    for (let i = 0; i < 15; i++) data.person(`other_${i}`, { country: `Other_${i}` }).events([[`other_${i}`, d(0)]]);
    const projectId = await data.project();
    const results = await retention(projectId, BY_COUNTRY_FROM_JUNE_10(5));
    expect(breakdownValues(results)).toContain("USA");
    expect(breakdownValues(results)).not.toContain("Canada");
    expect(labelled(of(results, "USA"), "Day 0")?.values[0].count).toBe(2);
  });

  // `breakdown_limit: 3`: USA (5), Canada (3), Germany (2); France and Spain in the other bucket.
  agrees("test_retention_breakdown_other_grouping_logic", async () => {
    const data = new Data();
    const people: [string, string, number][] = [
      ["usa_user", "USA", 5],
      ["can_user", "Canada", 3],
      ["ger_user", "Germany", 2],
    ];
    for (const [prefix, country, n] of people)
      for (let i = 0; i < n; i++) data.person(`${prefix}_${i}`, { country }).events([[`${prefix}_${i}`, d(0)]]);
    data.person("fra_user", { country: "France" }).events([["fra_user", d(0)]]);
    data.person("spa_user", { country: "Spain" }).events([["spa_user", d(0)]]);
    const projectId = await data.project();
    const results = await retention(projectId, BY_COUNTRY_FROM_JUNE_10(3));
    const values = breakdownValues(results);
    for (const country of ["USA", "Canada", "Germany", OTHER_BREAKDOWN]) expect(values).toContain(country);
    expect(values).not.toContain("France");
    expect(values).not.toContain("Spain");
    expect(labelled(of(results, OTHER_BREAKDOWN), "Day 0")?.values[0].count).toBe(2);
    expect(labelled(of(results, "USA"), "Day 0")?.values[0].count).toBe(5);
    expect(labelled(of(results, "Canada"), "Day 0")?.values[0].count).toBe(3);
  });

  for (const name of [
    "test_retention_24h_window_calculation",
    "test_retention_24h_window_with_person_breakdown",
    "test_retention_24h_window_with_event_breakdown",
    "test_retention_24h_window_first_time_ever",
    "test_retention_24h_window_first_time_matching_filters",
    "test_retention_24h_window_with_minimum_occurrences",
    "test_retention_24h_window_with_week_interval",
    "test_retention_24h_window_with_properties_on_events",
    "test_retention_24h_window_with_cohort_breakdown",
    "test_retention_24h_window_rejects_cumulative",
  ])
    notExpressible(name, "24-hour windows (timeWindowMode)");

  for (const name of [
    "test_custom_brackets_day_period",
    "test_custom_brackets_day_period_single_day_bracket_label",
    "test_custom_brackets_with_person_breakdown",
    "test_custom_brackets_with_event_breakdown",
    "test_custom_brackets_with_cohort_breakdown",
    "test_custom_brackets_first_time_ever",
    "test_custom_brackets_first_time_matching_filters",
    "test_custom_brackets_with_minimum_occurrences",
    "test_custom_brackets_week_period",
    "test_custom_brackets_month_period",
    "test_custom_brackets_cumulative",
    "test_custom_brackets_with_properties_on_events",
    "test_custom_brackets_actors_query",
    "test_custom_brackets_empty_bracket_handling",
    "test_custom_brackets_different_start_cohorts",
  ])
    notExpressible(name, "custom brackets (retentionCustomBrackets)");

  for (const name of [
    "test_retention_24h_window_weekly_cohorts",
    "test_retention_24h_window_monthly_cohorts",
    "test_retention_24h_window_weekly_with_breakdown",
    "test_retention_24h_window_monthly_first_time_ever",
  ])
    notExpressible(name, "24-hour windows (timeWindowMode)");
});

// ---------------------------------------------------------------------------------------------------------

conformance({ name: "PostHog retention tests (test_retention.py)", version: "2852237505" }, () => {
  // posthog/queries/test/test_retention.py, `retention_test_factory` (the FOSS `Retention` engine): the
  // newest version the index stores (its file id is the version above; the index reports no commit for
  // it), the legacy engine's last generation (zoneinfo, person id overrides). Its expectations are the
  // RetentionQuery's numbers: its triangles are compared `pad()`-ed, as the query-native suite does. A
  // filter without `total_intervals` had the legacy default of 11: the query says `totalIntervals: 11`.
  // Its month cohorts began on `date_to`'s day of the month (the 10th); RetentionQuery's begin on the 1st
  // (test_retention_query_runner.py pins those): its month dates are not asserted.

  agrees("test_retention_default", retentionDefault);
  agrees("test_day_interval", () => dayInterval());

  agrees("test_month_interval", async () => {
    await monthInterval(d(0, 0, 5));
  });

  agrees("test_month_interval_with_person_on_events_v2", async () => {
    await monthsOneMergedPerson(d(0, 0, 5));
  });

  agrees("test_week_interval", weekInterval);
  agrees("test_hour_interval", () => hourInterval());
  agrees("test_interval_rounding", intervalRounding);

  // `actors_in_period` with `selected_interval`: the persons of that cohort.
  agrees("test_retention_people_basic", peopleBasic);

  // Both questions have the filter's 11 cohorts: the later one's first is the 14th.
  agrees("test_retention_people_first_time", () => peopleFirstTime(ELEVEN));

  // 150 persons in cohort 2, through `/api/person/retention` and its `next`: here the ActorsQuery's pages
  // (100 by default, then from offset 100).
  agrees("test_retention_people_paginated", async () => {
    const data = new Data();
    for (let i = 0; i < 150; i++)
      data.person(`person${i}`).events([
        [`person${i}`, d(0)],
        [`person${i}`, d(1)],
        [`person${i}`, d(2)],
        [`person${i}`, d(5)],
      ]);
    const projectId = await data.project();
    const source = {
      kind: "InsightActorsQuery",
      interval: 2,
      source: retentionQuery({ dateRange: { date_to: d(10, 6) }, retentionFilter: ELEVEN }),
    };
    const page = async (offset?: number) => {
      const res = await call(`/api/environments/${projectId}/query/`, {
        method: "POST",
        body: { query: { kind: "ActorsQuery", select: ["actor"], orderBy: [], source, ...(offset ? { offset } : {}) } },
      });
      expect(res.status, res.text).toBe(200);
      return res.json as { results: unknown[][]; hasMore: boolean };
    };
    const first = await page();
    expect(first.results).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    const second = await page(100);
    expect(second.results).toHaveLength(50);
    expect(new Set([...actorIdSetOf(first.results), ...actorIdSetOf(second.results)]).size).toBe(150);
  });

  notExpressible(
    "test_retention_invalid_properties",
    "the legacy /api/person/retention endpoint's query-string errors",
  );

  // Cohort 2: person2, then person1, by their appearances.
  agrees("test_retention_people_in_period", peopleInPeriod);

  agrees("test_retention_people_in_perieod_first_time", peopleInPeriodFirstTime);

  // The legacy filter names neither its entities nor the period (days, the default).
  agrees("test_retention_multiple_events", () =>
    multipleEvents(
      { targetEntity: { id: "$some_event", type: "events" }, returningEntity: { id: "$pageview", type: "events" } },
      MULTIPLE_EVENTS,
    ),
  );

  agrees("test_retention_any_event", () => multipleEvents(ANY_EVENT_ENTITIES, ANY_EVENT));

  notExpressible("test_retention_event_action", "actions");

  agrees("test_first_time_retention", () => firstTimeRetention(FIRST_TIME_IDS));

  // `properties: [{key: "$some_property", value: "value"}]` (an event property, exact).
  agrees("test_retention_with_properties", () => withSomeProperty([{ key: "$some_property", value: "value" }]));

  agrees("test_retention_with_user_properties", () =>
    withUserProperties([{ key: "email", value: "person1@test.com", type: "person" }]),
  );

  notExpressible("test_retention_with_user_properties_via_action", "actions");
  notExpressible("test_retention_action_start_point", "actions");

  agrees("test_filter_test_accounts", filterTestAccounts);

  notExpressible("test_retention_aggregate_by_distinct_id", "aggregating by distinct id (an instance setting)");

  agrees("test_timezones", () => timezones(d(10)));

  agrees("test_day_interval_sampled", () => dayInterval({ samplingFactor: 1 }));
});
