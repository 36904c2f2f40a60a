import { expect } from "vitest";
import { createProject } from "../helpers";
import { at, captureJourneys, distinctIdSetOf, idRange, type Journeys, sorted } from "./analysis-helpers";
import { funnelPersons } from "./funnel-scenarios";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/breakdown_cases.py, one case per test method
 * of its two factories (`funnel_breakdown_test_factory`, `funnel_breakdown_group_test_factory`),
 * against `/api/environments/:id/persons/funnel/`. PostHog mixes the factories into ordered, strict
 * and unordered test classes; this replays the ordered instantiation (test_funnel.py's
 * `TestFunnelBreakdown` and `TestFunnelGroupBreakdown`, `FunnelOrderType.ORDERED`).
 *
 * `_get_actor_ids_at_step(filters, step, breakdown_value)` is the drill-down with `funnel_step` and
 * `funnel_step_breakdown`. The insight's step counts per breakdown value
 * (`_assert_funnel_breakdown_result_is_correct`) are the number of persons the drill-down answers
 * for `funnel_step=k` (persons who reached step k or further) and that value. The insight's
 * conversion times and the order of its results have no drill-down and are not asserted.
 */

/** The factory's filter without steps or breakdown (`funnel_order_type` ordered). */
const FILTER = {
  insight: "FUNNELS",
  funnel_order_type: "ordered",
  date_from: "2020-01-01",
  date_to: "2020-01-08",
  funnel_window_days: 7,
};

const THREE_STEPS = [
  { id: "sign up", order: 0 },
  { id: "play movie", order: 1 },
  { id: "buy", order: 2 },
];

const TWO_STEPS = [
  { id: "sign up", order: 0 },
  { id: "buy", order: 1 },
];

/**
 * One breakdown value of PostHog's expectations: the insight's `counts` per step, and the persons
 * `_get_actor_ids_at_step` asserts at the steps it asks (`persons[step]`).
 */
interface BreakdownExpectation {
  value: string | string[];
  counts: number[];
  persons?: Record<number, string[]>;
}

/**
 * PostHog's breakdown value as the `funnel_step_breakdown` parameter: JSON text, so that `""` stays
 * a value (an empty parameter means "no breakdown value", as in the docs' "funnel breakdown value" row).
 */
const stepBreakdown = (value: string | string[]) => JSON.stringify(value);

async function expectBreakdowns(projectId: number, filter: Record<string, unknown>, expected: BreakdownExpectation[]) {
  for (const { value, counts, persons } of expected) {
    for (let step = 1; step <= counts.length; step++) {
      const body = await funnelPersons(projectId, {
        ...filter,
        funnel_step: step,
        funnel_step_breakdown: stepBreakdown(value),
      });
      const ids = distinctIdSetOf(body);
      const asked = `funnel_step=${step} funnel_step_breakdown=${stepBreakdown(value)}`;
      if (persons?.[step]) expect(ids, asked).toEqual(sorted(persons[step]));
      expect(ids, asked).toHaveLength(counts[step - 1]);
    }
  }
}

/**
 * The insight's breakdown values are exactly `values`: each holds persons at step 1, and together
 * they hold every person at step 1 once (each person of the funnel has one breakdown value).
 */
async function expectBreakdownValues(
  projectId: number,
  filter: Record<string, unknown>,
  values: (string | string[])[],
) {
  const everyone = distinctIdSetOf(await funnelPersons(projectId, { ...filter, funnel_step: 1 }));
  const held: string[] = [];
  for (const value of values) {
    const ids = distinctIdSetOf(
      await funnelPersons(projectId, { ...filter, funnel_step: 1, funnel_step_breakdown: stepBreakdown(value) }),
    );
    expect(ids.length, `funnel_step=1 funnel_step_breakdown=${stepBreakdown(value)}`).toBeGreaterThan(0);
    held.push(...ids);
  }
  expect(sorted(held)).toEqual(everyone);
}

/** A test method: its journeys (and `_create_person` properties) in a fresh project, then its expectations. */
function agreesOnBreakdowns(
  name: string,
  filter: Record<string, unknown>,
  journeys: Journeys,
  expected: BreakdownExpectation[],
  personProperties: Record<string, Record<string, unknown>> = {},
) {
  agrees(name, async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, journeys, personProperties);
    await expectBreakdowns(project.id, filter, expected);
  });
}

/**
 * The journeys of test_funnel_step_breakdown_event and its variants: person1 converts on Chrome,
 * person2 stops at step 2 on Safari, person3 at step 1 on Safari; `extra` on every event.
 */
const browserJourneys = (extra: Record<string, unknown>): Journeys => {
  const chrome = { ...extra, $browser: "Chrome" };
  const safari = { ...extra, $browser: "Safari" };
  return {
    person1: [
      at("sign up", "2020-01-01T12:00:00Z", chrome),
      at("play movie", "2020-01-01T13:00:00Z", chrome),
      at("buy", "2020-01-01T15:00:00Z", chrome),
    ],
    person2: [at("sign up", "2020-01-02T14:00:00Z", safari), at("play movie", "2020-01-02T16:00:00Z", safari)],
    person3: [at("sign up", "2020-01-02T14:00:00Z", safari)],
  };
};

const BROWSER_EXPECTATIONS = (chrome: string | string[], safari: string | string[]): BreakdownExpectation[] => [
  { value: chrome, counts: [1, 1, 1], persons: { 1: ["person1"], 2: ["person1"] } },
  { value: safari, counts: [2, 1, 0], persons: { 1: ["person2", "person3"], 2: ["person2"] } },
];

/**
 * The journeys of the attribution tests: a step event with the property and one without, a
 * number (0), a person without the property (person5); `person4Buy` is person4's "buy" `$browser`.
 */
const attributionJourneys = (person4Buy: string): Journeys => ({
  person1: [at("sign up", "2020-01-01T12:00:00Z", { $browser: "Chrome" }), at("buy", "2020-01-01T13:00:00Z")],
  person2: [at("sign up", "2020-01-01T13:00:00Z"), at("buy", "2020-01-02T13:00:00Z", { $browser: "Safari" })],
  person3: [at("sign up", "2020-01-02T14:00:00Z", { $browser: "Mac" }), at("buy", "2020-01-02T15:00:00Z")],
  person4: [
    at("sign up", "2020-01-02T15:00:00Z", { $browser: 0 }),
    at("buy", "2020-01-02T16:00:00Z", { $browser: person4Buy }),
  ],
  person5: [at("sign up", "2020-01-02T15:00:00Z"), at("buy", "2020-01-02T16:00:00Z")],
});

/**
 * The journeys of the multiple-property first-touch tests (`$browser`, `$version`); with
 * `incomplete`, person3 and person4 do not "buy".
 */
const multipleBreakdownJourneys = (incomplete: boolean): Journeys => ({
  person1: [
    at("sign up", "2020-01-01T12:00:00Z", { $browser: "Chrome", $version: "xyz" }),
    at("buy", "2020-01-01T13:00:00Z"),
  ],
  person2: [
    at("sign up", "2020-01-01T13:00:00Z"),
    at("buy", "2020-01-02T13:00:00Z", { $browser: "Safari", $version: "xyz" }),
  ],
  person3: [
    at("sign up", "2020-01-02T14:00:00Z", { $browser: "Mac" }),
    ...(incomplete ? [] : [at("buy", "2020-01-02T15:00:00Z", { $version: "no-mac" })]),
  ],
  person4: [
    at("sign up", "2020-01-02T15:00:00Z", { $browser: 0, $version: 0 }),
    ...(incomplete ? [] : [at("buy", "2020-01-02T16:00:00Z", { $browser: "alakazam" })]),
  ],
  person5: [at("sign up", "2020-01-02T15:00:00Z"), at("buy", "2020-01-02T16:00:00Z")],
});

const MULTIPLE_FIRST_TOUCH_FILTER = {
  ...FILTER,
  events: TWO_STEPS,
  breakdown_type: "event",
  breakdown: ["$browser", "$version"],
  breakdown_attribution_type: "first_touch",
};

/** Two steps broken down by `$browser` with this attribution (the attribution tests' filter). */
const browserAttribution = (attribution: string) => ({
  ...FILTER,
  events: TWO_STEPS,
  breakdown_type: "event",
  breakdown: ["$browser"],
  breakdown_attribution_type: attribution,
});

/**
 * `test_funnel_step_custom_breakdown_limit_with_nulls*`: person_{num}_{i} (i < num < 5) do the three
 * steps with `some_breakdown_val` = num; person_null does them without the property.
 */
function breakdownLimitJourneys(): Journeys {
  const journeys: Journeys = {};
  for (let num = 0; num < 5; num++) {
    for (const id of idRange(`person_${num}_`, 0, num)) {
      const properties = { some_breakdown_val: String(num) };
      journeys[id] = [
        at("sign up", "2020-01-01T12:00:00Z", properties),
        at("play movie", "2020-01-01T13:00:00Z", properties),
        at("buy", "2020-01-01T15:00:00Z", properties),
      ];
    }
  }
  journeys.person_null = [
    at("sign up", "2020-01-01T12:00:00Z"),
    at("play movie", "2020-01-01T13:00:00Z"),
    at("buy", "2020-01-01T15:00:00Z"),
  ];
  return journeys;
}

/** test_funnel_step_multi_property_breakdown_event's event properties (`$browser_version` a number). */
const CHROME_95 = { key: "val", $browser: "Chrome", $browser_version: 95 };
const SAFARI_15 = { key: "val", $browser: "Safari", $browser_version: 15 };

const STEP_ATTRIBUTION = "breakdown_attribution_type step";
const ALL_EVENTS_ATTRIBUTION = "breakdown_attribution_type all_events";
const OTHER_BUCKET = 'the "Other" bucket of breakdown_limit (skipped in PostHog: not in its actors queries)';

conformance({ name: "PostHog funnel breakdown tests (breakdown_cases.py)", version: "0eb8a6e532" }, () => {
  agreesOnBreakdowns(
    "test_funnel_step_multi_property_breakdown_event",
    { ...FILTER, events: THREE_STEPS, breakdown_type: "event", breakdown: ["$browser", "$browser_version"] },
    {
      person1: [
        at("sign up", "2020-01-01T12:00:00Z", CHROME_95),
        at("play movie", "2020-01-01T13:00:00Z", CHROME_95),
        at("buy", "2020-01-01T15:00:00Z", CHROME_95),
      ],
      person2: [at("sign up", "2020-01-02T14:00:00Z", SAFARI_15), at("play movie", "2020-01-02T16:00:00Z", SAFARI_15)],
      person3: [at("sign up", "2020-01-02T14:00:00Z", { key: "val", $browser: "Safari", $browser_version: 14 })],
    },
    [
      { value: ["Safari", "14"], counts: [1, 0, 0], persons: { 1: ["person3"], 2: [] } },
      { value: ["Safari", "15"], counts: [1, 1, 0], persons: { 1: ["person2"], 2: ["person2"] } },
      { value: ["Chrome", "95"], counts: [1, 1, 1], persons: { 1: ["person1"], 2: ["person1"] } },
    ],
  );

  agreesOnBreakdowns(
    "test_funnel_step_breakdown_event_with_string_only_breakdown",
    { ...FILTER, events: THREE_STEPS, breakdown_type: "event", breakdown: "$browser" },
    browserJourneys({ key: "val" }),
    // The insight's values are lists (["Chrome"]); PostHog's test asks the actors with plain strings.
    BROWSER_EXPECTATIONS("Chrome", "Safari"),
  );

  agreesOnBreakdowns(
    "test_funnel_step_breakdown_event",
    { ...FILTER, events: THREE_STEPS, breakdown_type: "event", breakdown: ["$browser"] },
    browserJourneys({ key: "val" }),
    BROWSER_EXPECTATIONS("Chrome", "Safari"),
  );

  notExpressible("test_funnel_step_breakdown_event_with_other", OTHER_BUCKET);

  agreesOnBreakdowns(
    "test_funnel_step_breakdown_event_no_type",
    // No breakdown_type: an event property.
    { ...FILTER, events: THREE_STEPS, breakdown: ["$browser"] },
    browserJourneys({}),
    BROWSER_EXPECTATIONS("Chrome", "Safari"),
  );

  agreesOnBreakdowns(
    "test_funnel_step_breakdown_person",
    { ...FILTER, events: THREE_STEPS, breakdown_type: "person", breakdown: ["$browser"] },
    {
      person1: [
        at("sign up", "2020-01-01T12:00:00Z"),
        at("play movie", "2020-01-01T13:00:00Z"),
        at("buy", "2020-01-01T15:00:00Z"),
      ],
      person2: [at("sign up", "2020-01-02T14:00:00Z"), at("play movie", "2020-01-02T16:00:00Z")],
    },
    [
      { value: "Chrome", counts: [1, 1, 1], persons: { 1: ["person1"], 2: ["person1"] } },
      { value: "Safari", counts: [1, 1, 0], persons: { 1: ["person2"], 3: [] } },
    ],
    { person1: { $browser: "Chrome" }, person2: { $browser: "Safari" } },
  );

  notExpressible(
    "test_funnel_step_breakdown_limit",
    'the insight\'s breakdown values under breakdown_limit (its "Other" bucket)',
  );

  notExpressible("test_funnel_step_custom_breakdown_limit_with_nulls", OTHER_BUCKET);

  agrees("test_funnel_step_custom_breakdown_limit_with_nulls_included", async () => {
    // breakdown_limit 6 folds nothing into "Other": five values, "" (person_null) among them.
    const project = await createProject();
    await captureJourneys(project.api_token, breakdownLimitJourneys());
    const filter = {
      ...FILTER,
      events: THREE_STEPS,
      breakdown_type: "event",
      breakdown_limit: 6,
      breakdown: ["some_breakdown_val"],
    };
    await expectBreakdownValues(project.id, filter, [[""], ["1"], ["2"], ["3"], ["4"]]);
    for (let i = 1; i < 5; i++) {
      const body = await funnelPersons(project.id, {
        ...filter,
        funnel_step: 3,
        funnel_step_breakdown: stepBreakdown(String(i)),
      });
      expect(distinctIdSetOf(body), `funnel_step=3 funnel_step_breakdown="${i}"`).toHaveLength(i);
    }
    for (const step of [1, 3]) {
      const body = await funnelPersons(project.id, {
        ...filter,
        funnel_step: step,
        funnel_step_breakdown: stepBreakdown(""),
      });
      expect(distinctIdSetOf(body), `funnel_step=${step} funnel_step_breakdown=""`).toEqual(["person_null"]);
    }
  });

  notExpressible("test_funnel_step_breakdown_event_single_person_multiple_breakdowns", STEP_ATTRIBUTION);

  notExpressible(
    "test_funnel_step_breakdown_event_single_person_events_with_multiple_properties",
    ALL_EVENTS_ATTRIBUTION,
  );

  notExpressible("test_funnel_cohort_breakdown", "cohort breakdowns");

  agrees("test_basic_funnel_default_funnel_days_breakdown_event", async () => {
    // Forty "user signed up" events on blog URLs at step 1's time, which step 1's filter leaves out:
    // the value is the docs URL. No funnel_window_days: the default window (14 days) holds "paid" 8 days later.
    const project = await createProject();
    const docs = { $current_url: "https://posthog.com/docs/x" };
    const blog = [...Array(20).keys()].flatMap((k) => {
      const letter = String.fromCharCode(97 + k);
      const event = at("user signed up", "2020-01-02T14:00:00Z", {
        $current_url: `https://posthog.com/blog/${letter}`,
      });
      return [event, event];
    });
    await captureJourneys(project.api_token, {
      user_1: [at("user signed up", "2020-01-02T14:00:00Z", docs), at("paid", "2020-01-10T14:00:00Z", docs), ...blog],
    });
    const filter = {
      insight: "FUNNELS",
      funnel_order_type: "ordered",
      events: [
        {
          id: "user signed up",
          type: "events",
          order: 0,
          properties: [
            { key: "$current_url", operator: "icontains", type: "event", value: "https://posthog.com/docs" },
          ],
        },
        { id: "paid", type: "events", order: 1 },
      ],
      date_from: "2020-01-01",
      date_to: "2020-01-14",
      breakdown: ["$current_url"],
      breakdown_type: "event",
    };
    await expectBreakdowns(project.id, filter, [{ value: ["https://posthog.com/docs/x"], counts: [1, 1] }]);
  });

  notExpressible("test_basic_funnel_default_funnel_days_breakdown_action", "actions");

  agreesOnBreakdowns(
    "test_funnel_step_breakdown_with_first_touch_attribution",
    browserAttribution("first_touch"),
    // First touch: person4's "alakazam" on "buy" is disregarded; person5 has no value ("").
    attributionJourneys("alakazam"),
    [
      { value: "", counts: [1, 1], persons: { 1: ["person5"] } },
      { value: "0", counts: [1, 1], persons: { 1: ["person4"] } },
      { value: "Chrome", counts: [1, 1], persons: { 1: ["person1"] } },
      { value: "Mac", counts: [1, 1], persons: { 1: ["person3"] } },
      { value: "Safari", counts: [1, 1], persons: { 1: ["person2"] } },
    ],
  );

  agreesOnBreakdowns(
    "test_funnel_step_breakdown_with_last_touch_attribution",
    browserAttribution("last_touch"),
    // Last touch: person4's 0 on "sign up" is disregarded; person5 has no value ("").
    attributionJourneys("Alakazam"),
    [
      { value: "", counts: [1, 1], persons: { 1: ["person5"] } },
      { value: "Alakazam", counts: [1, 1], persons: { 1: ["person4"] } },
      { value: "Chrome", counts: [1, 1], persons: { 1: ["person1"] } },
      { value: "Mac", counts: [1, 1], persons: { 1: ["person3"] } },
      { value: "Safari", counts: [1, 1], persons: { 1: ["person2"] } },
    ],
  );

  notExpressible("test_funnel_step_breakdown_with_step_attribution", STEP_ATTRIBUTION);

  notExpressible("test_funnel_step_breakdown_with_step_one_attribution", STEP_ATTRIBUTION);

  agreesOnBreakdowns(
    "test_funnel_step_multiple_breakdown_with_first_touch_attribution",
    MULTIPLE_FIRST_TOUCH_FILTER,
    multipleBreakdownJourneys(false),
    [
      { value: ["", ""], counts: [1, 1], persons: { 1: ["person5"] } },
      { value: ["0", "0"], counts: [1, 1], persons: { 1: ["person4"] } },
      { value: ["Chrome", "xyz"], counts: [1, 1], persons: { 1: ["person1"] } },
      { value: ["Mac", ""], counts: [1, 1], persons: { 1: ["person3"] } },
      { value: ["Safari", "xyz"], counts: [1, 1], persons: { 1: ["person2"] } },
    ],
  );

  agreesOnBreakdowns(
    "test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel",
    MULTIPLE_FIRST_TOUCH_FILTER,
    multipleBreakdownJourneys(true),
    [
      { value: ["", ""], counts: [1, 1], persons: { 1: ["person5"] } },
      { value: ["0", "0"], counts: [1, 0], persons: { 1: ["person4"] } },
      { value: ["Chrome", "xyz"], counts: [1, 1], persons: { 1: ["person1"] } },
      { value: ["Mac", ""], counts: [1, 0], persons: { 1: ["person3"], 2: [] } },
      { value: ["Safari", "xyz"], counts: [1, 1], persons: { 1: ["person2"] } },
    ],
  );

  notExpressible("test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel", STEP_ATTRIBUTION);

  notExpressible("test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel", STEP_ATTRIBUTION);

  agrees("test_funnel_step_multiple_breakdown_snapshot", async () => {
    // PostHog asserts five breakdown values; they are named as in
    // test_funnel_step_multiple_breakdown_with_first_touch_attribution, which has the same data.
    const project = await createProject();
    await captureJourneys(project.api_token, multipleBreakdownJourneys(false));
    await expectBreakdownValues(project.id, MULTIPLE_FIRST_TOUCH_FILTER, [
      ["", ""],
      ["0", "0"],
      ["Chrome", "xyz"],
      ["Mac", ""],
      ["Safari", "xyz"],
    ]);
  });

  agrees("test_funnel_breakdown_correct_breakdown_props_are_chosen", async () => {
    // "buy" counts only with $version "xyz": person1's and person5's do not, yet both keep their
    // step-1 value (Chrome, ""); person2's value comes from its "buy" (first touch of a value).
    const project = await createProject();
    await captureJourneys(project.api_token, {
      person1: [
        at("sign up", "2020-01-01T12:00:00Z", { $browser: "Chrome", $version: "xyz" }),
        at("buy", "2020-01-01T13:00:00Z", { $browser: "Chrome" }),
      ],
      person2: [
        at("sign up", "2020-01-01T13:00:00Z"),
        at("buy", "2020-01-02T13:00:00Z", { $browser: "Safari", $version: "xyz" }),
      ],
      person3: [
        at("sign up", "2020-01-02T14:00:00Z", { $browser: "Mac" }),
        at("buy", "2020-01-02T15:00:00Z", { $version: "xyz", $browser: "Mac" }),
      ],
      person5: [at("sign up", "2020-01-02T15:00:00Z"), at("buy", "2020-01-02T16:00:00Z")],
    });
    const filter = {
      ...FILTER,
      events: [
        { id: "sign up", order: 0 },
        { id: "buy", properties: [{ type: "event", key: "$version", value: "xyz" }], order: 1 },
      ],
      breakdown_type: "event",
      breakdown: "$browser",
      breakdown_attribution_type: "first_touch",
    };
    await expectBreakdownValues(project.id, filter, [["Mac"], ["Chrome"], ["Safari"], [""]]);
  });

  notExpressible("test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step", STEP_ATTRIBUTION);

  // Also all_events attribution: both are refused.
  notExpressible("test_funnel_step_breakdown_with_first_time_for_user_math", "first-time-for-user step math");

  notExpressible("test_funnel_breakdown_group", "group breakdowns");

  notExpressible("test_funnel_aggregate_by_groups_breakdown_group", "group aggregation");

  notExpressible("test_funnel_aggregate_by_groups_breakdown_group_person_on_events", "group aggregation");
});
