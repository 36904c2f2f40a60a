import { expect } from "vitest";
import { createProject } from "../helpers";
import { at, captureJourneys, idRange, type Journeys, sorted } from "./analysis-helpers";
import { actorsAt, funnel, funnelRefused, type Query, type Step, step } from "./funnels-helpers";
import { agrees, conformance, deliberate, notExpressible } from "./ledger";

/**
 * PostHog's funnel breakdown factories (posthog/hogql_queries/insights/funnels/test/breakdown_cases.py:
 * `funnel_breakdown_test_factory` and `funnel_breakdown_group_test_factory`), replayed as FunnelsQuery through
 * `POST /api/environments/:project_id/query/`, once per order type PostHog instantiates them for:
 *  - ordered: test_funnel.py (`TestFunnelBreakdown`, `TestFunnelGroupBreakdown`; test_funnel_udf.py runs the same
 *    classes with the UDF flag on), no overrides;
 *  - strict: test_funnel_strict.py @ 1b56c1bb97 (`BaseTestFunnelStrictStepsBreakdown`, run by it and by
 *    test_funnel_strict_udf.py), which empties the two default-funnel-days tests ("fail only for strict funnels").
 *    Its own `test_strict_breakdown_events_with_multiple_properties` is no factory method: it is replayed with
 *    test_funnel_strict.py (posthog-funnel-strict.test.ts);
 *  - unordered: test_funnel_unordered.py @ 75bea9911c (`BaseTestFunnelUnorderedStepsBreakdown`, run by it and by
 *    test_funnel_unordered_udf.py), which overrides six tests. Where an override branches on the engine
 *    (`isinstance(runner.funnel_class, FunnelUDF)`), this replays the UDF branch (a ValidationError: "only the
 *    first step can be used for breakdown attribution in unordered funnels"): PostHog's current runner always
 *    uses the UDF. The query is refused before any event is read, so those cases capture no data.
 * Each test method is one case-builder function below, called by every block (an override replaces it there).
 *
 * The tests' filter dicts become the FunnelsQuery `filter_to_query` makes of them: `events` → `series` of
 * EventsNode (a step's `properties` as event property filters with the `exact` operator, its `math`),
 * `date_from`/`date_to` → `dateRange`, `funnel_order_type` → `funnelOrderType`, `breakdown_attribution_type`/
 * `_value` → `breakdownAttributionType`/`breakdownAttributionValue` (the integer the schema makes of "0"/"1"),
 * `breakdown`, `breakdown_type` and `breakdown_limit` → `breakdownFilter`. `filter_to_query` does not read
 * `funnel_window_days`, so PostHog ran these funnels with the default 14-day window, and the queries here give
 * no window either. `journeys_for` (naive datetimes, UTC) and `_create_person` go in through `POST /batch/`,
 * person properties `$set` on the person's first event; each case has its own project.
 *
 * `_assert_funnel_breakdown_result_is_correct` compares a breakdown value's steps to objects with exactly the
 * keys `action_id`, `name`, `custom_name`, `order`, `people`, `count`, `type`, `average_conversion_time`,
 * `median_conversion_time`, `breakdown`, `breakdown_value` (unordered: `action_id` null, `name` "Completed N
 * steps"); so does this file, ignoring `converted_people_url`/`dropped_people_url` as `assert_funnel_results_equal`
 * does. The results are taken in the engine's order where the test indexes them, sorted by their first step's
 * `breakdown` (as Python sorts lists) where the test sorts them. `_get_actor_ids_at_step(filters, step, value)`
 * is an ActorsQuery over a FunnelsActorsQuery with `funnelStep` and `funnelStepBreakdown` = the value as the test
 * passes it; persons are compared by distinct id, as sets (`assertCountEqual`). The `_materialized` and
 * person-on-events variants PostHog's decorators generate repeat a method's expectations over other storage of
 * the same data and are not separate cases here.
 */

type OrderType = "ordered" | "strict" | "unordered";
/** Registers one test method's case for an order type. */
type CaseBuilder = (name: string, order: OrderType) => void;

/** A step of `FunnelStepResult`: its event, its count and, after the first step, its conversion time (average = median). */
type StepSpec = [name: string, count: number, conversion?: number];

/** One breakdown value of a result: its steps, and the persons `_get_actor_ids_at_step` gives for `value`. */
interface Bucket {
  breakdown: unknown;
  steps: StepSpec[];
  actors?: { value: unknown; at: Record<number, string[]> };
}

/** `datetime(2020, 1, day, hour, minute)` (UTC). */
/** The docs/compatibility.md row of the breakdown-order cases. */
const FUNNEL_BREAKDOWN_ORDER = "funnel breakdown order";

const t = (day: number, hour: number, minute = 0) =>
  `2020-01-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`;

const events = (...names: string[]) => names.map((name) => step(name));
const THREE_STEPS = events("sign up", "play movie", "buy");
const TWO_STEPS = events("sign up", "buy");

/** The factory's filter: its steps from 2020-01-01 to 2020-01-08, the order type, a breakdown (default window). */
function factoryQuery(order: OrderType, series: Query[], breakdownFilter: Query, funnelsFilter: Query = {}): Query {
  return {
    series,
    dateRange: { date_from: "2020-01-01", date_to: "2020-01-08" },
    funnelsFilter: { funnelOrderType: order, ...funnelsFilter },
    breakdownFilter,
  };
}

const eventBreakdown = (breakdown: unknown, extra: Query = {}): Query => ({
  breakdown,
  breakdown_type: "event",
  ...extra,
});
const attribution = (type: string, value?: number): Query => ({
  breakdownAttributionType: type,
  ...(value === undefined ? {} : { breakdownAttributionValue: value }),
});

async function projectWith(journeys: Journeys, personProperties: Record<string, Record<string, unknown>> = {}) {
  const project = await createProject();
  await captureJourneys(project.api_token, journeys, personProperties);
  return project.id;
}

/** The step objects `_assert_funnel_breakdown_result_is_correct` expects. */
function expectedSteps(order: OrderType, breakdown: unknown, specs: StepSpec[]) {
  return specs.map(([name, count, conversion], i) => ({
    action_id: order === "unordered" ? null : name,
    name: order === "unordered" ? `Completed ${i + 1} step${i > 0 ? "s" : ""}` : name,
    custom_name: null,
    order: i,
    people: [],
    count,
    type: "events",
    average_conversion_time: conversion ?? null,
    median_conversion_time: conversion ?? null,
    breakdown,
    breakdown_value: breakdown,
  }));
}

/** A step as `assert_funnel_results_equal` compares it: without the people URLs it blanks on both sides. */
function compared(s: Step): Step {
  const { converted_people_url: _converted, dropped_people_url: _dropped, ...rest } = s;
  return rest;
}

/** `results[i]` is `buckets[i]` for every bucket given, and each bucket's persons are the ones asked. */
async function expectBuckets(order: OrderType, projectId: number, query: Query, results: Step[][], buckets: Bucket[]) {
  for (const [i, bucket] of buckets.entries()) {
    expect(results[i]?.map(compared), `results[${i}]`).toEqual(expectedSteps(order, bucket.breakdown, bucket.steps));
    if (!bucket.actors) continue;
    const { value, at: persons } = bucket.actors;
    for (const [funnelStep, ids] of Object.entries(persons)) {
      const asked = `funnelStep=${funnelStep} funnelStepBreakdown=${JSON.stringify(value)}`;
      expect(await actorsAt(projectId, query, Number(funnelStep), value), asked).toEqual(sorted(ids));
    }
  }
}

/** Python's ordering of breakdown values (strings, or lists of them compared item by item). */
function pythonCompare(a: unknown, b: unknown): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = pythonCompare(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `sorted(results, key=lambda res: res[0]["breakdown"])`. */
const sortedByBreakdown = (results: Step[][]): Step[][] =>
  [...results].sort((x, y) => pythonCompare(x[0]?.breakdown, y[0]?.breakdown));

/** `sorted([res[0]["breakdown"] for res in results])`. */
const breakdownValuesOf = (results: Step[][]): unknown[] => results.map((r) => r[0]?.breakdown).sort(pythonCompare);

/** A builder for a method edgehog cannot be asked. */
const notExpressibleBecause =
  (reason: string): CaseBuilder =>
  (name) =>
    notExpressible(name, reason);

// ---- the factories' data ----

/**
 * test_funnel_step_breakdown_event's journeys (and its variants'): person1 converts on Chrome, person2 stops at
 * "play movie" on Safari, person3 at "sign up" on Safari; `extra` on every event.
 */
function browserJourneys(extra: Record<string, unknown>): Journeys {
  const chrome = { ...extra, $browser: "Chrome" };
  const safari = { ...extra, $browser: "Safari" };
  return {
    person1: [at("sign up", t(1, 12), chrome), at("play movie", t(1, 13), chrome), at("buy", t(1, 15), chrome)],
    person2: [at("sign up", t(2, 14), safari), at("play movie", t(2, 16), safari)],
    person3: [at("sign up", t(2, 14), safari)],
  };
}

/** What the browser tests assert: Chrome converts (person1), Safari holds person2 and person3. */
const browserBuckets = (chrome: unknown, safari: unknown): Bucket[] => [
  {
    breakdown: ["Chrome"],
    steps: [
      ["sign up", 1],
      ["play movie", 1, 3600],
      ["buy", 1, 7200],
    ],
    actors: { value: chrome, at: { 1: ["person1"], 2: ["person1"] } },
  },
  {
    breakdown: ["Safari"],
    steps: [
      ["sign up", 2],
      ["play movie", 1, 7200],
      ["buy", 0],
    ],
    actors: { value: safari, at: { 1: ["person2", "person3"], 2: ["person2"] } },
  },
];

/**
 * The attribution tests' journeys ("sign up" then "buy"): person1 Chrome on "sign up", person2 Safari on "buy",
 * person3 Mac on "sign up", person4 `0` on "sign up" and `person4Buy` on "buy", person5 (when given) no value.
 * `incomplete`: person2 and person3 never "buy".
 */
function attributionJourneys(person4Buy: string, options: { person5?: boolean; incomplete?: boolean } = {}): Journeys {
  const journeys: Journeys = {
    person1: [at("sign up", t(1, 12), { $browser: "Chrome" }), at("buy", t(1, 13))],
    person2: [at("sign up", t(1, 13)), ...(options.incomplete ? [] : [at("buy", t(2, 13), { $browser: "Safari" })])],
    person3: [at("sign up", t(2, 14), { $browser: "Mac" }), ...(options.incomplete ? [] : [at("buy", t(2, 15))])],
    person4: [at("sign up", t(2, 15), { $browser: 0 }), at("buy", t(2, 16), { $browser: person4Buy })],
  };
  if (options.person5) journeys.person5 = [at("sign up", t(2, 15)), at("buy", t(2, 16))];
  return journeys;
}

/** The multiple-property first-touch journeys (`$browser`, `$version`); `incomplete`: person3 and person4 never "buy". */
function multipleBreakdownJourneys(incomplete: boolean): Journeys {
  return {
    person1: [at("sign up", t(1, 12), { $browser: "Chrome", $version: "xyz" }), at("buy", t(1, 13))],
    person2: [at("sign up", t(1, 13)), at("buy", t(2, 13), { $browser: "Safari", $version: "xyz" })],
    person3: [
      at("sign up", t(2, 14), { $browser: "Mac" }),
      ...(incomplete ? [] : [at("buy", t(2, 15), { $version: "no-mac" })]),
    ],
    person4: [
      at("sign up", t(2, 15), { $browser: 0, $version: 0 }),
      ...(incomplete ? [] : [at("buy", t(2, 16), { $browser: "alakazam" })]),
    ],
    person5: [at("sign up", t(2, 15)), at("buy", t(2, 16))],
  };
}

/** The journeys of the two "correct breakdown props are chosen" tests ("buy" counts only with `$version` "xyz"). */
const CORRECT_PROPS_JOURNEYS: Journeys = {
  person1: [
    at("sign up", t(1, 12), { $browser: "Chrome", $version: "xyz" }),
    at("buy", t(1, 13), { $browser: "Chrome" }),
  ],
  person2: [at("sign up", t(1, 13)), at("buy", t(2, 13), { $browser: "Safari", $version: "xyz" })],
  person3: [at("sign up", t(2, 14), { $browser: "Mac" }), at("buy", t(2, 15), { $version: "xyz", $browser: "Mac" })],
  person5: [at("sign up", t(2, 15)), at("buy", t(2, 16))],
};

const CORRECT_PROPS_SERIES = [
  step("sign up"),
  step("buy", { properties: [{ key: "$version", value: "xyz", operator: "exact", type: "event" }] }),
];

/** person_{num}_{i} (i < num, num < `upTo`) do the three steps with `some_breakdown_val` = num; person_null (when asked) without it. */
function breakdownLimitJourneys(upTo: number, withNull: boolean): Journeys {
  const journeys: Journeys = {};
  for (let num = 0; num < upTo; num++) {
    const properties = { some_breakdown_val: String(num) };
    for (const id of idRange(`person_${num}_`, 0, num)) {
      journeys[id] = [
        at("sign up", t(1, 12), properties),
        at("play movie", t(1, 13), properties),
        at("buy", t(1, 15), properties),
      ];
    }
  }
  if (withNull) journeys.person_null = [at("sign up", t(1, 12)), at("play movie", t(1, 13)), at("buy", t(1, 15))];
  return journeys;
}

// ---- funnel_breakdown_test_factory ----

// PostHog's test expects Chrome, Safari 14, Safari 15 (the order one ClickHouse version's final GROUP BY
// happened to give); edgehog ranks by persons at the last step, then the one before, and so on.
const multiPropertyBreakdownEvent: CaseBuilder = (name, order) =>
  deliberate(name, FUNNEL_BREAKDOWN_ORDER, async () => {
    const chrome = { key: "val", $browser: "Chrome", $browser_version: 95 };
    const safari = { key: "val", $browser: "Safari", $browser_version: 15 };
    const projectId = await projectWith({
      person1: [at("sign up", t(1, 12), chrome), at("play movie", t(1, 13), chrome), at("buy", t(1, 15), chrome)],
      person2: [at("sign up", t(2, 14), safari), at("play movie", t(2, 16), safari)],
      person3: [at("sign up", t(2, 14), { key: "val", $browser: "Safari", $browser_version: 14 })],
    });
    const query = factoryQuery(order, THREE_STEPS, eventBreakdown(["$browser", "$browser_version"]));
    const results = await funnel(projectId, query);
    await expectBuckets(order, projectId, query, results, [
      {
        breakdown: ["Chrome", "95"],
        steps: [
          ["sign up", 1],
          ["play movie", 1, 3600],
          ["buy", 1, 7200],
        ],
        actors: { value: ["Chrome", "95"], at: { 1: ["person1"], 2: ["person1"] } },
      },
      {
        breakdown: ["Safari", "15"],
        steps: [
          ["sign up", 1],
          ["play movie", 1, 7200],
          ["buy", 0],
        ],
        actors: { value: ["Safari", "15"], at: { 1: ["person2"], 2: ["person2"] } },
      },
      {
        breakdown: ["Safari", "14"],
        steps: [
          ["sign up", 1],
          ["play movie", 0],
          ["buy", 0],
        ],
        actors: { value: ["Safari", "14"], at: { 1: ["person3"], 2: [] } },
      },
    ]);
  });

/** The browser tests: `breakdown` as given, `extra` on every event. */
const browserBreakdown =
  (breakdownFilter: Query, extra: Record<string, unknown>): CaseBuilder =>
  (name, order) =>
    agrees(name, async () => {
      const projectId = await projectWith(browserJourneys(extra));
      const query = factoryQuery(order, THREE_STEPS, breakdownFilter);
      const results = await funnel(projectId, query);
      // The results' values are lists (["Chrome"]); the test asks the persons with plain strings.
      await expectBuckets(order, projectId, query, results, browserBuckets("Chrome", "Safari"));
    });

const breakdownEventWithStringOnlyBreakdown = browserBreakdown(eventBreakdown("$browser"), { key: "val" });
const breakdownEvent = browserBreakdown(eventBreakdown(["$browser"]), { key: "val" });
// No breakdown_type: filter_to_query would add "event", the schema's default.
const breakdownEventNoType = browserBreakdown({ breakdown: ["$browser"] }, {});

const OTHER_SKIPPED =
  'skipped in PostHog (@skip: "Other" as a breakdown not yet implemented in HogQL actors queries), so its "Other" persons are no PostHog answer';

const breakdownPerson: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    const projectId = await projectWith(
      {
        person1: [at("sign up", t(1, 12)), at("play movie", t(1, 13)), at("buy", t(1, 15))],
        person2: [at("sign up", t(2, 14)), at("play movie", t(2, 16))],
      },
      { person1: { $browser: "Chrome" }, person2: { $browser: "Safari" } },
    );
    const query = factoryQuery(order, THREE_STEPS, { breakdown: ["$browser"], breakdown_type: "person" });
    const results = await funnel(projectId, query);
    await expectBuckets(order, projectId, query, results, [
      {
        breakdown: ["Chrome"],
        steps: [
          ["sign up", 1],
          ["play movie", 1, 3600],
          ["buy", 1, 7200],
        ],
        actors: { value: "Chrome", at: { 1: ["person1"], 2: ["person1"] } },
      },
      {
        breakdown: ["Safari"],
        steps: [
          ["sign up", 1],
          ["play movie", 1, 7200],
          ["buy", 0],
        ],
        actors: { value: "Safari", at: { 1: ["person2"], 3: [] } },
      },
    ]);
  });

const breakdownLimit: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    // Values "1".."9" held by 1..9 persons; breakdown_limit 5 keeps the five most converted, the rest is "Other".
    const projectId = await projectWith(breakdownLimitJourneys(10, false));
    const query = factoryQuery(order, THREE_STEPS, eventBreakdown(["some_breakdown_val"], { breakdown_limit: 5 }));
    const results = await funnel(projectId, query);
    expect(breakdownValuesOf(results)).toEqual([["5"], ["6"], ["7"], ["8"], ["9"], ["Other"]]);
  });

const customBreakdownLimitWithNullsIncluded: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    // breakdown_limit 6 folds nothing into "Other": "1".."4" and "" (person_null).
    const projectId = await projectWith(breakdownLimitJourneys(5, true));
    const query = factoryQuery(order, THREE_STEPS, eventBreakdown(["some_breakdown_val"], { breakdown_limit: 6 }));
    const results = await funnel(projectId, query);
    expect(breakdownValuesOf(results)).toEqual([[""], ["1"], ["2"], ["3"], ["4"]]);
    for (let i = 1; i < 5; i++)
      expect(await actorsAt(projectId, query, 3, String(i)), `funnelStep=3 funnelStepBreakdown="${i}"`).toHaveLength(i);
    expect(await actorsAt(projectId, query, 1, ""), 'funnelStep=1 funnelStepBreakdown=""').toEqual(["person_null"]);
    expect(await actorsAt(projectId, query, 3, ""), 'funnelStep=3 funnelStepBreakdown=""').toEqual(["person_null"]);
  });

const singlePersonMultipleBreakdowns: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    // One person, four "sign up"s with four values (one a number); step attribution on step 0.
    const projectId = await projectWith({
      person1: [
        at("sign up", t(1, 12), { $browser: "Chrome" }),
        at("sign up", t(1, 13), { $browser: "Safari" }),
        at("sign up", t(2, 14), { $browser: "Mac" }),
        at("sign up", t(2, 15), { $browser: 0 }),
      ],
    });
    const query = factoryQuery(
      order,
      events("sign up", "other event"),
      eventBreakdown(["$browser"]),
      attribution("step", 0),
    );
    const results = sortedByBreakdown(await funnel(projectId, query));
    const bucket = (value: string): Bucket => ({
      breakdown: [value],
      steps: [
        ["sign up", 1],
        ["other event", 0],
      ],
      actors: { value, at: { 1: ["person1"] } },
    });
    await expectBuckets(order, projectId, query, results, [
      bucket("0"),
      bucket("Chrome"),
      bucket("Mac"),
      bucket("Safari"),
    ]);
  });

// PostHog's test expects Chrome (no conversion) before Safari (converted): the order of its final GROUP BY;
// edgehog ranks by persons at the last step first.
const singlePersonEventsWithMultipleProperties: CaseBuilder = (name, order) =>
  deliberate(name, FUNNEL_BREAKDOWN_ORDER, async () => {
    // all_events: the Chrome "sign up" never converts; the Safari one does, an hour later.
    const projectId = await projectWith({
      person1: [
        at("sign up", t(1, 12), { $browser: "Chrome" }),
        at("play movie", t(2, 12, 30), { $browser: "Safari" }),
        at("sign up", t(2, 13), { $browser: "Safari" }),
        at("play movie", t(2, 14), { $browser: "Safari" }),
      ],
    });
    const query = factoryQuery(
      order,
      events("sign up", "play movie"),
      eventBreakdown(["$browser"]),
      attribution("all_events"),
    );
    const results = await funnel(projectId, query);
    expect(results).toHaveLength(2);
    await expectBuckets(order, projectId, query, results, [
      {
        breakdown: ["Safari"],
        steps: [
          ["sign up", 1],
          ["play movie", 1, 3600],
        ],
        actors: { value: "Safari", at: { 1: ["person1"], 2: ["person1"] } },
      },
      {
        breakdown: ["Chrome"],
        steps: [
          ["sign up", 1],
          ["play movie", 0],
        ],
        actors: { value: "Chrome", at: { 1: ["person1"], 2: [] } },
      },
    ]);
  });

const defaultFunnelDaysBreakdownEvent: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    // Forty "user signed up" on blog URLs (which step 1's filter leaves out) beside the docs one; no window
    // given, so the default 14 days holds "paid" 8 days later.
    const docs = { $current_url: "https://posthog.com/docs/x" };
    const blog = [...Array(20).keys()].flatMap((k) => {
      const event = at("user signed up", t(2, 14), {
        $current_url: `https://posthog.com/blog/${String.fromCharCode(97 + k)}`,
      });
      return [event, event];
    });
    const projectId = await projectWith({
      user_1: [at("user signed up", t(2, 14), docs), at("paid", t(10, 14), docs), ...blog],
    });
    const query: Query = {
      series: [
        step("user signed up", {
          properties: [
            { key: "$current_url", operator: "icontains", type: "event", value: "https://posthog.com/docs" },
          ],
        }),
        step("paid"),
      ],
      dateRange: { date_from: "2020-01-01", date_to: "2020-01-14" },
      funnelsFilter: { funnelOrderType: order },
      breakdownFilter: eventBreakdown(["$current_url"]),
    };
    const results = await funnel(projectId, query);
    await expectBuckets(order, projectId, query, results, [
      {
        breakdown: ["https://posthog.com/docs/x"],
        steps: [
          ["user signed up", 1],
          ["paid", 1, 691200],
        ],
      },
    ]);
  });

/** Two steps broken down by `$browser` (a list) with this attribution, over `journeys`; the sorted results are `buckets`. */
const attributionCase =
  (journeys: Journeys, funnelsFilter: Query, breakdown: unknown, buckets: Bucket[]): CaseBuilder =>
  (name, order) =>
    agrees(name, async () => {
      const projectId = await projectWith(journeys);
      const query = factoryQuery(order, TWO_STEPS, eventBreakdown(breakdown), funnelsFilter);
      const results = sortedByBreakdown(await funnel(projectId, query));
      expect(results).toHaveLength(buckets.length);
      await expectBuckets(order, projectId, query, results, buckets);
    });

/**
 * A two-step bucket: `value` (the result's breakdown is `[value]` for a string), the step counts, the conversion
 * time of "buy", and the persons the test asks for `value` (at step 1, or per step).
 */
function twoSteps(
  value: string | string[],
  counts: [number, number],
  conversion: number | undefined,
  persons: string[] | Record<number, string[]>,
): Bucket {
  const buy: StepSpec = counts[1] ? ["buy", counts[1], conversion] : ["buy", 0];
  return {
    breakdown: Array.isArray(value) ? value : [value],
    steps: [["sign up", counts[0]], buy],
    actors: { value, at: Array.isArray(persons) ? { 1: persons } : persons },
  };
}

const firstTouchAttribution = attributionCase(
  attributionJourneys("alakazam", { person5: true }),
  attribution("first_touch"),
  ["$browser"],
  // First touch: person4's "alakazam" on "buy" is disregarded; person5 has no value ("").
  [
    twoSteps("", [1, 1], 3600, ["person5"]),
    twoSteps("0", [1, 1], 3600, ["person4"]),
    twoSteps("Chrome", [1, 1], 3600, ["person1"]),
    twoSteps("Mac", [1, 1], 3600, ["person3"]),
    twoSteps("Safari", [1, 1], 86400, ["person2"]),
  ],
);

const lastTouchAttribution = attributionCase(
  attributionJourneys("Alakazam", { person5: true }),
  attribution("last_touch"),
  ["$browser"],
  // Last touch: person4's 0 on "sign up" is disregarded.
  [
    twoSteps("", [1, 1], 3600, ["person5"]),
    twoSteps("Alakazam", [1, 1], 3600, ["person4"]),
    twoSteps("Chrome", [1, 1], 3600, ["person1"]),
    twoSteps("Mac", [1, 1], 3600, ["person3"]),
    twoSteps("Safari", [1, 1], 86400, ["person2"]),
  ],
);

const stepAttribution = attributionCase(
  attributionJourneys("alakazam"),
  attribution("step", 0),
  ["$browser"],
  [
    twoSteps("", [1, 1], 86400, ["person2"]),
    twoSteps("0", [1, 1], 3600, ["person4"]),
    twoSteps("Chrome", [1, 1], 3600, ["person1"]),
    twoSteps("Mac", [1, 1], 3600, ["person3"]),
  ],
);

const stepOneAttribution = attributionCase(
  attributionJourneys("alakazam"),
  attribution("step", 1),
  ["$browser"],
  // The values on "buy": Chrome and Mac go away (person1 and person3 have none there), Safari comes back.
  [
    {
      breakdown: [""],
      steps: [
        ["sign up", 2],
        ["buy", 2, 3600],
      ],
      actors: { value: "", at: { 1: ["person1", "person3"] } },
    },
    twoSteps("Safari", [1, 1], 86400, ["person2"]),
    twoSteps("alakazam", [1, 1], 3600, ["person4"]),
  ],
);

const multipleBreakdownFirstTouch = attributionCase(
  multipleBreakdownJourneys(false),
  attribution("first_touch"),
  ["$browser", "$version"],
  [
    twoSteps(["", ""], [1, 1], 3600, ["person5"]),
    twoSteps(["0", "0"], [1, 1], 3600, ["person4"]),
    twoSteps(["Chrome", "xyz"], [1, 1], 3600, ["person1"]),
    twoSteps(["Mac", ""], [1, 1], 3600, ["person3"]),
    twoSteps(["Safari", "xyz"], [1, 1], 86400, ["person2"]),
  ],
);

const multipleBreakdownFirstTouchIncomplete = attributionCase(
  multipleBreakdownJourneys(true),
  attribution("first_touch"),
  ["$browser", "$version"],
  [
    twoSteps(["", ""], [1, 1], 3600, ["person5"]),
    twoSteps(["0", "0"], [1, 0], undefined, ["person4"]),
    twoSteps(["Chrome", "xyz"], [1, 1], 3600, ["person1"]),
    twoSteps(["Mac", ""], [1, 0], undefined, { 1: ["person3"], 2: [] }),
    twoSteps(["Safari", "xyz"], [1, 1], 86400, ["person2"]),
  ],
);

/** Step-one attribution over journeys where person2 and person3 never "buy": they are dropped with their values. */
const stepOneAttributionIncomplete = (breakdown: unknown) =>
  attributionCase(attributionJourneys("alakazam", { incomplete: true }), attribution("step", 1), breakdown, [
    twoSteps("", [1, 1], 3600, ["person1"]),
    twoSteps("alakazam", [1, 1], 3600, ["person4"]),
  ]);

const multipleBreakdownSnapshot: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    const projectId = await projectWith(multipleBreakdownJourneys(false));
    const query = factoryQuery(order, TWO_STEPS, eventBreakdown(["$browser", "$version"]), attribution("first_touch"));
    expect(await funnel(projectId, query)).toHaveLength(5);
  });

/** The two "correct breakdown props are chosen" tests: the set of values (first step's `breakdown`). */
const correctBreakdownProps =
  (funnelsFilter: Query, values: string[][]): CaseBuilder =>
  (name, order) =>
    agrees(name, async () => {
      const projectId = await projectWith(CORRECT_PROPS_JOURNEYS);
      const query = factoryQuery(order, CORRECT_PROPS_SERIES, eventBreakdown("$browser"), funnelsFilter);
      const results = await funnel(projectId, query);
      expect(results).toHaveLength(values.length);
      expect(breakdownValuesOf(results)).toEqual([...values].sort(pythonCompare));
    });

// First touch: person1 and person5 keep their step-1 value (Chrome, "") though their "buy" does not count.
const correctBreakdownPropsAreChosen = correctBreakdownProps(attribution("first_touch"), [
  ["Mac"],
  ["Chrome"],
  ["Safari"],
  [""],
]);
// Step 1: only the persons whose "buy" counts, with its value.
const correctBreakdownPropsAreChosenForStep = correctBreakdownProps(attribution("step", 1), [["Mac"], ["Safari"]]);

const firstTimeForUserMath: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    // The Chrome "sign up" is not person1's first, so only the Safari one starts the funnel.
    const projectId = await projectWith({
      person1: [
        at("sign up", t(1, 12), { $browser: "Safari" }),
        at("play movie", t(2, 12, 30), { $browser: "Safari" }),
        at("sign up", t(2, 13), { $browser: "Chrome" }),
        at("play movie", t(2, 14), { $browser: "Safari" }),
      ],
    });
    const query = factoryQuery(
      order,
      [step("sign up", { math: "first_time_for_user" }), step("play movie")],
      eventBreakdown(["$browser"]),
      attribution("all_events"),
    );
    const results = await funnel(projectId, query);
    expect(results).toHaveLength(1);
    await expectBuckets(order, projectId, query, results, [
      {
        breakdown: ["Safari"],
        steps: [
          ["sign up", 1],
          ["play movie", 1, 88200],
        ],
        actors: { value: "Safari", at: { 1: ["person1"], 2: ["person1"] } },
      },
    ]);
  });

/** Both factories' methods, in breakdown_cases.py's order. */
const FACTORY = {
  test_funnel_step_multi_property_breakdown_event: multiPropertyBreakdownEvent,
  test_funnel_step_breakdown_event_with_string_only_breakdown: breakdownEventWithStringOnlyBreakdown,
  test_funnel_step_breakdown_event: breakdownEvent,
  test_funnel_step_breakdown_event_with_other: notExpressibleBecause(OTHER_SKIPPED),
  test_funnel_step_breakdown_event_no_type: breakdownEventNoType,
  test_funnel_step_breakdown_person: breakdownPerson,
  test_funnel_step_breakdown_limit: breakdownLimit,
  test_funnel_step_custom_breakdown_limit_with_nulls: notExpressibleBecause(OTHER_SKIPPED),
  test_funnel_step_custom_breakdown_limit_with_nulls_included: customBreakdownLimitWithNullsIncluded,
  test_funnel_step_breakdown_event_single_person_multiple_breakdowns: singlePersonMultipleBreakdowns,
  test_funnel_step_breakdown_event_single_person_events_with_multiple_properties:
    singlePersonEventsWithMultipleProperties,
  test_funnel_cohort_breakdown: notExpressibleBecause("cohort breakdowns (breakdown_type cohort, the 'all' cohort)"),
  test_basic_funnel_default_funnel_days_breakdown_event: defaultFunnelDaysBreakdownEvent,
  test_basic_funnel_default_funnel_days_breakdown_action: notExpressibleBecause("actions (an ActionsNode step)"),
  test_funnel_step_breakdown_with_first_touch_attribution: firstTouchAttribution,
  test_funnel_step_breakdown_with_last_touch_attribution: lastTouchAttribution,
  test_funnel_step_breakdown_with_step_attribution: stepAttribution,
  test_funnel_step_breakdown_with_step_one_attribution: stepOneAttribution,
  test_funnel_step_multiple_breakdown_with_first_touch_attribution: multipleBreakdownFirstTouch,
  test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel:
    multipleBreakdownFirstTouchIncomplete,
  test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel: stepOneAttributionIncomplete(["$browser"]),
  test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel:
    stepOneAttributionIncomplete("$browser"),
  test_funnel_step_multiple_breakdown_snapshot: multipleBreakdownSnapshot,
  test_funnel_breakdown_correct_breakdown_props_are_chosen: correctBreakdownPropsAreChosen,
  test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step: correctBreakdownPropsAreChosenForStep,
  test_funnel_step_breakdown_with_first_time_for_user_math: firstTimeForUserMath,
  // funnel_breakdown_group_test_factory
  test_funnel_breakdown_group: notExpressibleBecause("group breakdowns (breakdown_type group, industry of $group_0)"),
  test_funnel_aggregate_by_groups_breakdown_group: notExpressibleBecause(
    "group aggregation (aggregation_group_type_index 0) with a group breakdown",
  ),
  test_funnel_aggregate_by_groups_breakdown_group_person_on_events: notExpressibleBecause(
    "group aggregation (aggregation_group_type_index 0) with a group breakdown, person-on-events mode",
  ),
} satisfies Record<string, CaseBuilder>;

type FactoryMethod = keyof typeof FACTORY;

/** Registers the factories' cases for `order`, `overrides` replacing methods in place. */
function replayFactory(order: OrderType, overrides: Partial<Record<FactoryMethod, CaseBuilder>> = {}) {
  for (const [name, build] of Object.entries({ ...FACTORY, ...overrides })) build(name, order);
}

// ---- test_funnel_strict.py ----

const EMPTIED_FOR_STRICT = notExpressibleBecause(
  'overridden with an empty body in test_funnel_strict.py ("fails only for strict funnels"): PostHog asserts nothing',
);

// ---- test_funnel_unordered.py's overrides ----

const unorderedSinglePersonEventsWithMultipleProperties: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    const projectId = await projectWith({
      person1: [
        at("sign up", t(1, 12), { key: "val", $browser: "Chrome" }),
        at("sign up", t(2, 13), { key: "val", $browser: "Safari" }),
        at("play movie", t(2, 14), { key: "val", $browser: "Safari" }),
      ],
    });
    const query = factoryQuery(
      order,
      events("sign up", "play movie"),
      eventBreakdown("$browser"),
      attribution("all_events"),
    );
    const results = await funnel(projectId, query);
    await expectBuckets(order, projectId, query, results, [
      {
        breakdown: ["Safari"],
        steps: [
          ["sign up", 1],
          ["play movie", 1, 3600],
        ],
        actors: { value: ["Safari"], at: { 1: ["person1"], 2: ["person1"] } },
      },
      {
        breakdown: ["Chrome"],
        steps: [
          ["sign up", 1],
          ["play movie", 0],
        ],
        actors: { value: ["Chrome"], at: { 1: ["person1"], 2: [] } },
      },
    ]);
  });

const unorderedStepAttribution: CaseBuilder = (name, order) =>
  agrees(name, async () => {
    // Unordered, any step's event can be step 0: six values (Chrome, Safari, Mac, 0, alakazam, "").
    const projectId = await projectWith(attributionJourneys("alakazam"));
    const query = factoryQuery(order, TWO_STEPS, eventBreakdown(["$browser"]), attribution("step", 0));
    expect(await funnel(projectId, query)).toHaveLength(6);
    expect(await actorsAt(projectId, query, 1, "Mac")).toEqual(["person3"]);
  });

/** An override whose UDF branch asserts the query is refused (step attribution past step 0 in an unordered funnel). */
const refusedWhenUnordered =
  (breakdown: unknown, series: Query[] = TWO_STEPS): CaseBuilder =>
  (name, order) =>
    agrees(name, async () => {
      const project = await createProject();
      await funnelRefused(project.id, factoryQuery(order, series, eventBreakdown(breakdown), attribution("step", 1)));
    });

conformance({ name: "PostHog funnel tests (breakdown_cases.py, ordered funnels)", version: "0eb8a6e532" }, () =>
  replayFactory("ordered"),
);

conformance(
  {
    name: "PostHog funnel tests (breakdown_cases.py, strict funnels)",
    version: "0eb8a6e532, test_funnel_strict.py 1b56c1bb97",
  },
  () =>
    replayFactory("strict", {
      test_basic_funnel_default_funnel_days_breakdown_event: EMPTIED_FOR_STRICT,
      test_basic_funnel_default_funnel_days_breakdown_action: EMPTIED_FOR_STRICT,
    }),
);

conformance(
  {
    name: "PostHog funnel tests (breakdown_cases.py, unordered funnels)",
    version: "0eb8a6e532, test_funnel_unordered.py 75bea9911c",
  },
  () =>
    replayFactory("unordered", {
      test_funnel_step_breakdown_event_single_person_events_with_multiple_properties:
        unorderedSinglePersonEventsWithMultipleProperties,
      test_funnel_step_breakdown_with_step_attribution: unorderedStepAttribution,
      test_funnel_step_breakdown_with_step_one_attribution: refusedWhenUnordered(["$browser"]),
      test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel: refusedWhenUnordered(["$browser"]),
      test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel:
        refusedWhenUnordered("$browser"),
      test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step: refusedWhenUnordered(
        "$browser",
        CORRECT_PROPS_SERIES,
      ),
    }),
);
