import { expect } from "vitest";
import { createProject } from "../helpers";
import {
  captureJourneys,
  distinctIdSetOf,
  distinctIdsOf,
  idRange,
  type Journeys,
  RECORDINGS_ROW,
  recordingsOf,
  sorted,
} from "./analysis-helpers";
import { agreesOnStep, funnelPersons, MAY_FUNNEL_FILTER, multipleDropoffsProject } from "./funnel-scenarios";
import { agrees, conformance, deliberate, notExpressible } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py, one case per test
 * method, against `/api/environments/:id/persons/funnel/`. PostHog's `get_actors(filters,
 * funnel_step, funnel_custom_steps, funnel_step_breakdown, offset)` is the filter plus the query
 * parameters of the same names; each case captures its data into a fresh project.
 */

/** `_create_sample_data_multiple_dropoffs`: user_0..4 do all three steps, user_5..14 two, user_15..34 one. */
const multipleDropoffs = () =>
  multipleDropoffsProject(
    [
      ["step one", "2021-05-01T00:00:00Z"],
      ["step two", "2021-05-03T00:00:00Z"],
      ["step three", "2021-05-05T00:00:00Z"],
    ],
    [
      ["step one", "2021-05-01T00:00:00Z"],
      ["step two", "2021-05-03T00:00:00Z"],
    ],
  );

/** `_create_browser_breakdown_events`: person1 ($country PL) converts on Chrome 95, person2 (EE) stops at step 2 on Safari 14. */
async function browserBreakdownEvents() {
  const project = await createProject();
  const chrome = { $browser: "Chrome", $browser_version: "95" };
  const safari = { $browser: "Safari", $browser_version: "14" };
  await captureJourneys(
    project.api_token,
    {
      person1: [
        { event: "sign up", timestamp: "2020-01-01T12:00:00Z", properties: chrome },
        { event: "play movie", timestamp: "2020-01-01T13:00:00Z", properties: chrome },
        { event: "buy", timestamp: "2020-01-01T15:00:00Z", properties: chrome },
      ],
      person2: [
        { event: "sign up", timestamp: "2020-01-02T14:00:00Z", properties: safari },
        { event: "play movie", timestamp: "2020-01-02T16:00:00Z", properties: safari },
      ],
    },
    { person1: { $country: "PL" }, person2: { $country: "EE" } },
  );
  return project.id;
}

const BREAKDOWN_FILTER = {
  insight: "FUNNELS",
  date_from: "2020-01-01",
  date_to: "2020-01-08",
  interval: "day",
  funnel_window_days: 7,
  events: [
    { id: "sign up", order: 0 },
    { id: "play movie", order: 1 },
    { id: "buy", order: 2 },
  ],
};

conformance({ name: "PostHog funnel persons tests (test_funnel_persons.py)", version: "2d1e0dc3c8" }, () => {
  agreesOnStep("test_first_step", multipleDropoffs, MAY_FUNNEL_FILTER, 1, sorted(idRange("user_", 0, 35)));

  agreesOnStep("test_last_step", multipleDropoffs, MAY_FUNNEL_FILTER, 3, sorted(idRange("user_", 0, 5)));

  agreesOnStep("test_second_step_dropoff", multipleDropoffs, MAY_FUNNEL_FILTER, -2, sorted(idRange("user_", 15, 35)));

  agreesOnStep("test_last_step_dropoff", multipleDropoffs, MAY_FUNNEL_FILTER, -3, sorted(idRange("user_", 5, 15)));

  agrees("test_basic_offset", async () => {
    // `_create_sample_data`: 110 persons who all do the three steps.
    const project = await createProject();
    const journeys: Journeys = {};
    for (const id of idRange("user_", 0, 110)) {
      journeys[id] = [
        { event: "step one", timestamp: "2021-05-01T00:00:00Z" },
        { event: "step two", timestamp: "2021-05-03T00:00:00Z" },
        { event: "step three", timestamp: "2021-05-05T00:00:00Z" },
      ];
    }
    await captureJourneys(project.api_token, journeys);
    // The first 100 people (the default page), then the 10 remaining.
    const first = await funnelPersons(project.id, { ...MAY_FUNNEL_FILTER, funnel_step: 1 });
    expect(distinctIdsOf(first)).toHaveLength(100);
    const rest = await funnelPersons(project.id, { ...MAY_FUNNEL_FILTER, funnel_step: 1, offset: 100 });
    expect(distinctIdsOf(rest)).toHaveLength(10);
    expect(sorted([...distinctIdsOf(first), ...distinctIdsOf(rest)])).toEqual(sorted(idRange("user_", 0, 110)));
  });

  agrees("test_steps_with_custom_steps_parameter_are_equivalent_to_funnel_step", async () => {
    const projectId = await multipleDropoffs();
    const cases: [number, number[], number][] = [
      [1, [1, 2, 3], 35],
      [2, [2, 3], 15],
      [3, [3], 5],
      [-2, [1], 20],
      [-3, [2], 10],
    ];
    for (const [step, custom, count] of cases) {
      const results = distinctIdsOf(await funnelPersons(projectId, { ...MAY_FUNNEL_FILTER, funnel_step: step }));
      const custom_results = distinctIdsOf(
        await funnelPersons(projectId, { ...MAY_FUNNEL_FILTER, funnel_step: step, funnel_custom_steps: custom }),
      );
      expect(custom_results, `funnel_step=${step} funnel_custom_steps=${JSON.stringify(custom)}`).toEqual(results);
      expect(results, `funnel_step=${step}`).toHaveLength(count);
    }
  });

  agrees("test_steps_with_custom_steps_parameter_where_funnel_step_equivalence_isnt_possible", async () => {
    const projectId = await multipleDropoffs();
    const cases: [number[], number][] = [
      [[1, 2], 30],
      [[1, 3], 25],
      [[3, 1], 25],
      [[1, 3, 3, 1], 25],
    ];
    for (const [custom, count] of cases) {
      const body = await funnelPersons(projectId, { ...MAY_FUNNEL_FILTER, funnel_custom_steps: custom });
      expect(distinctIdsOf(body), `funnel_custom_steps=${JSON.stringify(custom)}`).toHaveLength(count);
    }
  });

  agrees("test_steps_with_custom_steps_parameter_overrides_funnel_step", async () => {
    const projectId = await multipleDropoffs();
    // funnel_step=1 alone would mean custom steps [1, 2, 3]; the custom steps win.
    const body = await funnelPersons(projectId, { ...MAY_FUNNEL_FILTER, funnel_step: 1, funnel_custom_steps: [3] });
    expect(distinctIdSetOf(body)).toEqual(sorted(idRange("user_", 0, 5)));
  });

  agrees("test_first_step_breakdowns", async () => {
    const projectId = await browserBreakdownEvents();
    const filter = { ...BREAKDOWN_FILTER, breakdown_type: "event", breakdown: "$browser" };
    expect(distinctIdSetOf(await funnelPersons(projectId, { ...filter, funnel_step: 1 }))).toEqual([
      "person1",
      "person2",
    ]);
    expect(
      distinctIdSetOf(await funnelPersons(projectId, { ...filter, funnel_step: 1, funnel_step_breakdown: ["Chrome"] })),
    ).toEqual(["person1"]);
    expect(
      distinctIdSetOf(await funnelPersons(projectId, { ...filter, funnel_step: 1, funnel_step_breakdown: ["Safari"] })),
    ).toEqual(["person2"]);
  });

  agrees("test_first_step_breakdowns_with_multi_property_breakdown", async () => {
    const projectId = await browserBreakdownEvents();
    const filter = { ...BREAKDOWN_FILTER, breakdown_type: "event", breakdown: ["$browser", "$browser_version"] };
    expect(distinctIdSetOf(await funnelPersons(projectId, { ...filter, funnel_step: 1 }))).toEqual([
      "person1",
      "person2",
    ]);
    expect(
      distinctIdSetOf(
        await funnelPersons(projectId, { ...filter, funnel_step: 1, funnel_step_breakdown: ["Chrome", "95"] }),
      ),
    ).toEqual(["person1"]);
    expect(
      distinctIdSetOf(
        await funnelPersons(projectId, { ...filter, funnel_step: 1, funnel_step_breakdown: ["Safari", "14"] }),
      ),
    ).toEqual(["person2"]);
  });

  agrees("test_first_step_breakdown_person", async () => {
    const projectId = await browserBreakdownEvents();
    const filter = { ...BREAKDOWN_FILTER, breakdown_type: "person", breakdown: "$country" };
    expect(distinctIdSetOf(await funnelPersons(projectId, { ...filter, funnel_step: 1 }))).toEqual([
      "person1",
      "person2",
    ]);
    for (const [country, person] of [
      ["EE", "person2"],
      ["PL", "person1"],
    ]) {
      const results = distinctIdsOf(
        await funnelPersons(projectId, { ...filter, funnel_step: 1, funnel_step_breakdown: [country] }),
      );
      expect(results).toEqual([person]);
      // Custom steps give the same answer for breakdowns.
      const custom = await funnelPersons(projectId, {
        ...filter,
        funnel_step: 1,
        funnel_custom_steps: [1, 2, 3],
        funnel_step_breakdown: [country],
      });
      expect(distinctIdsOf(custom)).toEqual(results);
    }
  });

  notExpressible("test_funnel_cohort_breakdown_persons", "cohort breakdowns");

  deliberate("test_funnel_person_recordings", RECORDINGS_ROW, async () => {
    // Frozen at 2021-01-02T00:00:00Z. PostHog also records a replay of session s2 (which edgehog
    // cannot store) and answers it in matched_recordings for steps 2 and -3; edgehog answers `[]`.
    const project = await createProject();
    await captureJourneys(project.api_token, {
      user_1: [
        { event: "step one", timestamp: "2021-01-02T00:00:00Z", properties: { $session_id: "s1", $window_id: "w1" } },
        { event: "step two", timestamp: "2021-01-03T00:00:00Z", properties: { $session_id: "s2", $window_id: "w2" } },
      ],
    });
    const filter = {
      insight: "FUNNELS",
      date_from: "2021-01-01",
      date_to: "2021-01-08",
      interval: "day",
      funnel_window_days: 7,
      events: MAY_FUNNEL_FILTER.events,
    };
    for (const step of [1, 2, -3]) {
      const body = await funnelPersons(project.id, { ...filter, funnel_step: step, include_recordings: true });
      expect(distinctIdsOf(body), `funnel_step=${step}`).toEqual(["user_1"]);
      expect(recordingsOf(body), `funnel_step=${step}`).toEqual([[]]);
    }
  });

  agrees("test_parses_step_breakdown_correctly", async () => {
    // PostHog's journeys_for writes events with raw SQL, so the test's `"test''123"` is stored as
    // `test'123`: the case is a breakdown value with a single quote, matched by the same value.
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      {
        person1: [
          { event: "sign up", timestamp: "2020-01-01T12:00:00Z", properties: { $browser: "test'123" } },
          { event: "play movie", timestamp: "2020-01-01T13:00:00Z", properties: { $browser: "test'123" } },
        ],
      },
      { person1: { $country: "PL" } },
    );
    const filter = {
      ...BREAKDOWN_FILTER,
      events: [
        { id: "sign up", order: 0 },
        { id: "play movie", order: 1 },
      ],
      breakdown_type: "event",
      breakdown: "$browser",
    };
    const body = await funnelPersons(project.id, { ...filter, funnel_step: 1, funnel_step_breakdown: ["test'123"] });
    expect(distinctIdsOf(body)).toEqual(["person1"]);
  });

  notExpressible("test_first_time_math_basic", "first-time-for-user step math");

  notExpressible("test_first_time_math_multiple_ids", "first-time-for-user step math");
});
