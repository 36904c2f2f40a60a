import { expect } from "vitest";
import { createProject } from "../helpers";
import { at, captureJourneys, distinctIdSetOf, idRange, type Journeys, sorted } from "./analysis-helpers";

/**
 * The data and filters PostHog's funnel correlation tests share
 * (test_funnel_correlations_persons.py, test_funnel_correlation_actors.py and
 * test_funnel_correlation.py repeat the same setups): each builder captures one setup into a fresh
 * project through `/batch/`. The questions and their assertions stay in each suite, but for the two
 * test methods test_funnel_correlations_persons.py and test_funnel_correlation_actors.py hold alike,
 * which are at the end, for each suite to run with its own way of asking.
 */

/** The "user signed up" → "paid" funnel of January 2020. */
export const SIGNUP_PAID_FILTER = {
  events: [
    { id: "user signed up", type: "events", order: 0 },
    { id: "paid", type: "events", order: 1 },
  ],
  insight: "FUNNELS",
  date_from: "2020-01-01",
  date_to: "2020-01-14",
};
export const SIGNUP = "2020-01-02T14:00:00Z";
export const BETWEEN = "2020-01-03T14:00:00Z";
export const PAID = "2020-01-04T14:00:00Z";

/** `EventsNode(event=…, properties=…)` as the route's `funnel_correlation_person_entity`. */
export const entity = (event: string, properties?: Record<string, unknown>[]) => ({
  id: event,
  type: "events",
  ...(properties ? { properties } : {}),
});

/** `PersonPropertyFilter(key=…, value=…, operator=PropertyOperator.EXACT)`. */
export const personExact = (key: string, value: string) => ({ key, value, operator: "exact", type: "person" });

/**
 * `_setup_basic_test`: user_0..9 convert (the even ones do "positively_related" in between),
 * user_10..19 drop off (the even ones do "negatively_related"); with `outliers`, also user_fail
 * ("positively_related", drops off) and user_succ ("negatively_related", converts).
 */
export async function basicCorrelationProject(outliers = true) {
  const project = await createProject();
  const journeys: Journeys = {};
  for (let i = 0; i < 10; i++) {
    journeys[`user_${i}`] = [at("user signed up", SIGNUP)];
    if (i % 2 === 0) journeys[`user_${i}`].push(at("positively_related", BETWEEN));
    journeys[`user_${i}`].push(at("paid", PAID));
  }
  for (let i = 10; i < 20; i++) {
    journeys[`user_${i}`] = [at("user signed up", SIGNUP)];
    if (i % 2 === 0) journeys[`user_${i}`].push(at("negatively_related", BETWEEN));
  }
  if (outliers) {
    journeys.user_fail = [at("user signed up", SIGNUP), at("positively_related", BETWEEN)];
    journeys.user_succ = [at("user signed up", SIGNUP), at("negatively_related", BETWEEN), at("paid", PAID)];
  }
  await captureJourneys(project.api_token, journeys);
  return {
    projectId: project.id,
    success: idRange("user_", 0, 10).filter((_, i) => i % 2 === 0),
    failure: idRange("user_", 10, 20).filter((_, i) => i % 2 === 0),
  };
}

/** `test_people_arent_returned_multiple_times`: user_1 converts with "positively_related" twice at one instant. */
export async function duplicateEventProject() {
  const project = await createProject();
  await captureJourneys(project.api_token, {
    user_1: [
      at("user signed up", SIGNUP),
      at("positively_related", BETWEEN),
      at("positively_related", BETWEEN),
      at("paid", PAID),
    ],
  });
  return project.id;
}

// The recordings tests: frozen at 2021-01-02T00:00:00Z, persons with `foo: bar`, events in
// sessions PostHog also records replays of (edgehog stores none).

export const RECORDED_RANGE = { insight: "FUNNELS", date_from: "2021-01-01", date_to: "2021-01-08" };
export const PAGEVIEW_ANALYZED = [
  { id: "$pageview", order: 0 },
  { id: "insight analyzed", order: 1 },
];
export const PAGEVIEW_ANALYZED_UPDATED = [...PAGEVIEW_ANALYZED, { id: "insight updated", order: 2 }];

const inWindow = (session: string, window: string) => ({ $session_id: session, $window_id: window });

/** user_1: `$pageview`, then (with `loaded`) "insight loaded", then "insight analyzed", in session s2. */
export async function recordedSessionProject(loaded: boolean) {
  const project = await createProject();
  const events = [
    at("$pageview", "2021-01-02T00:00:00Z", inWindow("s2", "w1")),
    ...(loaded ? [at("insight loaded", "2021-01-02T00:02:00Z", inWindow("s2", "w2"))] : []),
    at("insight analyzed", "2021-01-02T00:03:00Z", inWindow("s2", "w2")),
  ];
  await captureJourneys(project.api_token, { user_1: events }, { user_1: { foo: "bar" } });
  return project.id;
}

/**
 * `test_strict_funnel_correlation_with_recordings`: user_1 completes the strict funnel (a second
 * step event follows, not part of the attempt); user_2 has an interrupting event between the
 * steps, so drops off.
 */
export async function strictRecordedProject() {
  const project = await createProject();
  await captureJourneys(
    project.api_token,
    {
      user_1: [
        at("$pageview", "2021-01-02T00:00:00Z", inWindow("s2", "w1")),
        at("insight analyzed", "2021-01-02T00:03:00Z", inWindow("s2", "w2")),
        at("insight analyzed", "2021-01-02T00:04:00Z", inWindow("s2", "w2")),
      ],
      user_2: [
        at("$pageview", "2021-01-02T00:00:00Z", inWindow("s3", "w1")),
        at("insight loaded", "2021-01-02T00:03:00Z", inWindow("s3", "w2")),
        at("insight analyzed", "2021-01-02T00:04:00Z", inWindow("s3", "w2")),
      ],
    },
    { user_1: { foo: "bar" }, user_2: { foo: "bar" } },
  );
  return project.id;
}

/** The strict funnel of `strictRecordedProject`, asking for persons with `foo: bar`. */
export const STRICT_RECORDED_FILTER = {
  ...RECORDED_RANGE,
  funnel_order_type: "strict",
  events: PAGEVIEW_ANALYZED,
  funnel_correlation_type: "properties",
  funnel_correlation_property_values: [personExact("foo", "bar")],
};

/** How a suite asks for correlation actors: `get_actors` with that file's defaults. */
export type AskCorrelation = (projectId: number, params: Record<string, unknown>) => Promise<unknown>;

/** test_basic_funnel_correlation_with_events. */
export async function basicFunnelCorrelationWithEvents(correlation: AskCorrelation) {
  const { projectId, success, failure } = await basicCorrelationProject();
  const ask = async (converted: boolean | undefined, event: string) =>
    distinctIdSetOf(
      await correlation(projectId, {
        ...SIGNUP_PAID_FILTER,
        funnel_correlation_type: "events",
        funnel_correlation_person_converted: converted,
        funnel_correlation_person_entity: entity(event),
      }),
    );
  expect(await ask(true, "positively_related"), "positively_related successes").toEqual(sorted(success));
  expect(await ask(false, "negatively_related"), "negatively_related failures").toEqual(sorted(failure));
  expect(await ask(false, "positively_related"), "positively_related failures").toEqual(["user_fail"]);
  expect(await ask(true, "negatively_related"), "negatively_related successes").toEqual(["user_succ"]);
  expect(await ask(undefined, "positively_related"), "all positively_related").toEqual(
    sorted([...success, "user_fail"]),
  );
  expect(await ask(undefined, "negatively_related"), "all negatively_related").toEqual(
    sorted([...failure, "user_succ"]),
  );
}

/** test_people_arent_returned_multiple_times. */
export async function peopleArentReturnedMultipleTimes(correlation: AskCorrelation) {
  const projectId = await duplicateEventProject();
  const body = await correlation(projectId, {
    ...SIGNUP_PAID_FILTER,
    funnel_correlation_type: "events",
    funnel_correlation_person_converted: true,
    funnel_correlation_person_entity: entity("positively_related"),
  });
  expect(distinctIdSetOf(body)).toEqual(["user_1"]);
}
