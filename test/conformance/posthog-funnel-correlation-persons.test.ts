import { expect } from "vitest";
import { createProject } from "../helpers";
import { captureJourneys, distinctIdSetOf, distinctIdsOf, drillDownOk, idRange, type Journeys, RECORDINGS_ROW, recordingsOf, sorted } from "./analysis-helpers";
import { agrees, conformance, deliberate } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/test_funnel_correlations_persons.py, one case
 * per test method, against `/api/environments/:id/persons/funnel/correlation/`. PostHog's
 * `get_actors(filters, funnelCorrelationPersonConverted, funnelCorrelationPersonEntity=EventsNode(event))`
 * is the filter plus `funnel_correlation_person_converted` and `funnel_correlation_person_entity`
 * (`{"id": event, "type": "events"}`).
 */

const SIGNUP_PAID_FILTER = {
  events: [
    { id: "user signed up", type: "events", order: 0 },
    { id: "paid", type: "events", order: 1 },
  ],
  insight: "FUNNELS",
  date_from: "2020-01-01",
  date_to: "2020-01-14",
};

const entity = (event: string) => ({ id: event, type: "events" });

/**
 * `_setup_basic_test`: user_0..9 convert (the even ones do "positively_related" in between),
 * user_10..19 drop off (the even ones do "negatively_related"), user_fail does
 * "positively_related" and drops off, user_succ does "negatively_related" and converts.
 */
async function basicTest() {
  const project = await createProject();
  const journeys: Journeys = {};
  for (let i = 0; i < 10; i++) {
    journeys[`user_${i}`] = [{ event: "user signed up", timestamp: "2020-01-02T14:00:00Z" }];
    if (i % 2 === 0) journeys[`user_${i}`].push({ event: "positively_related", timestamp: "2020-01-03T14:00:00Z" });
    journeys[`user_${i}`].push({ event: "paid", timestamp: "2020-01-04T14:00:00Z" });
  }
  for (let i = 10; i < 20; i++) {
    journeys[`user_${i}`] = [{ event: "user signed up", timestamp: "2020-01-02T14:00:00Z" }];
    if (i % 2 === 0) journeys[`user_${i}`].push({ event: "negatively_related", timestamp: "2020-01-03T14:00:00Z" });
  }
  journeys.user_fail = [
    { event: "user signed up", timestamp: "2020-01-02T14:00:00Z" },
    { event: "positively_related", timestamp: "2020-01-03T14:00:00Z" },
  ];
  journeys.user_succ = [
    { event: "user signed up", timestamp: "2020-01-02T14:00:00Z" },
    { event: "negatively_related", timestamp: "2020-01-03T14:00:00Z" },
    { event: "paid", timestamp: "2020-01-04T14:00:00Z" },
  ];
  await captureJourneys(project.api_token, journeys);
  return {
    projectId: project.id,
    success: idRange("user_", 0, 10).filter((_, i) => i % 2 === 0),
    failure: idRange("user_", 10, 20).filter((_, i) => i % 2 === 0),
  };
}

const correlation = (projectId: number, params: Record<string, unknown>) => drillDownOk(projectId, "funnel/correlation", params);

conformance({ name: "PostHog funnel correlation persons tests (test_funnel_correlations_persons.py)", version: "fd01c9c2a2" }, () => {
  agrees("test_basic_funnel_correlation_with_events", async () => {
    const { projectId, success, failure } = await basicTest();
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
    expect(await ask(undefined, "positively_related"), "all positively_related").toEqual(sorted([...success, "user_fail"]));
    expect(await ask(undefined, "negatively_related"), "all negatively_related").toEqual(sorted([...failure, "user_succ"]));
  });

  agrees("test_people_arent_returned_multiple_times", async () => {
    const project = await createProject();
    await captureJourneys(project.api_token, {
      user_1: [
        { event: "user signed up", timestamp: "2020-01-02T14:00:00Z" },
        { event: "positively_related", timestamp: "2020-01-03T14:00:00Z" },
        // duplicate event
        { event: "positively_related", timestamp: "2020-01-03T14:00:00Z" },
        { event: "paid", timestamp: "2020-01-04T14:00:00Z" },
      ],
    });
    const body = await correlation(project.id, {
      ...SIGNUP_PAID_FILTER,
      funnel_correlation_type: "events",
      funnel_correlation_person_converted: true,
      funnel_correlation_person_entity: entity("positively_related"),
    });
    expect(distinctIdSetOf(body)).toEqual(["user_1"]);
  });

  deliberate("test_funnel_correlation_on_event_with_recordings", RECORDINGS_ROW, async () => {
    // Frozen at 2021-01-02T00:00:00Z. PostHog also records a replay of session s2 (which edgehog
    // cannot store) and answers it in matched_recordings; edgehog answers `[]`.
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      {
        user_1: [
          { event: "$pageview", timestamp: "2021-01-02T00:00:00Z", properties: { $session_id: "s2", $window_id: "w1" } },
          { event: "insight loaded", timestamp: "2021-01-02T00:02:00Z", properties: { $session_id: "s2", $window_id: "w2" } },
          { event: "insight analyzed", timestamp: "2021-01-02T00:03:00Z", properties: { $session_id: "s2", $window_id: "w2" } },
        ],
      },
      { user_1: { foo: "bar" } },
    );
    const range = { insight: "FUNNELS", date_from: "2021-01-01", date_to: "2021-01-08", include_recordings: true };
    // Success filter.
    const converted = await correlation(project.id, {
      ...range,
      events: [
        { id: "$pageview", order: 0 },
        { id: "insight analyzed", order: 1 },
      ],
      funnel_correlation_type: "events",
      funnel_correlation_person_converted: true,
      funnel_correlation_person_entity: entity("insight loaded"),
    });
    expect(distinctIdsOf(converted)).toEqual(["user_1"]);
    expect(recordingsOf(converted)).toEqual([[]]);
    // Drop off filter.
    const dropped = await correlation(project.id, {
      ...range,
      events: [
        { id: "$pageview", order: 0 },
        { id: "insight analyzed", order: 1 },
        { id: "insight updated", order: 2 },
      ],
      funnel_correlation_type: "events",
      funnel_correlation_person_converted: false,
      funnel_correlation_person_entity: entity("insight loaded"),
    });
    expect(distinctIdsOf(dropped)).toEqual(["user_1"]);
    expect(recordingsOf(dropped)).toEqual([[]]);
  });

  deliberate("test_funnel_correlation_on_properties_with_recordings", RECORDINGS_ROW, async () => {
    // Frozen at 2021-01-02T00:00:00Z. PostHog also records a replay of session s2 (which edgehog
    // cannot store) and answers it in matched_recordings; edgehog answers `[]`.
    const project = await createProject();
    await captureJourneys(
      project.api_token,
      {
        user_1: [
          { event: "$pageview", timestamp: "2021-01-02T00:00:00Z", properties: { $session_id: "s2", $window_id: "w1" } },
          { event: "insight analyzed", timestamp: "2021-01-02T00:03:00Z", properties: { $session_id: "s2", $window_id: "w2" } },
        ],
      },
      { user_1: { foo: "bar" } },
    );
    const body = await correlation(project.id, {
      insight: "FUNNELS",
      date_from: "2021-01-01",
      date_to: "2021-01-08",
      events: [
        { id: "$pageview", order: 0 },
        { id: "insight analyzed", order: 1 },
      ],
      include_recordings: true,
      funnel_correlation_type: "properties",
      funnel_correlation_person_converted: true,
      funnel_correlation_property_values: [{ key: "foo", value: "bar", operator: "exact", type: "person" }],
    });
    expect(distinctIdsOf(body)).toEqual(["user_1"]);
    expect(recordingsOf(body)).toEqual([[]]);
  });

  deliberate("test_strict_funnel_correlation_with_recordings", RECORDINGS_ROW, async () => {
    // Frozen at 2021-01-02T00:00:00Z. user_1 completes the strict funnel; user_2 has an interrupting
    // event between the steps, so drops off. PostHog also records replays of sessions s2 and s3
    // (which edgehog cannot store) and answers them in matched_recordings; edgehog answers `[]`.
    const project = await createProject();
    const w1 = (session: string) => ({ $session_id: session, $window_id: "w1" });
    const w2 = (session: string) => ({ $session_id: session, $window_id: "w2" });
    await captureJourneys(
      project.api_token,
      {
        user_1: [
          { event: "$pageview", timestamp: "2021-01-02T00:00:00Z", properties: w1("s2") },
          { event: "insight analyzed", timestamp: "2021-01-02T00:03:00Z", properties: w2("s2") },
          // A second step event, not part of the attempt.
          { event: "insight analyzed", timestamp: "2021-01-02T00:04:00Z", properties: w2("s2") },
        ],
        user_2: [
          { event: "$pageview", timestamp: "2021-01-02T00:00:00Z", properties: w1("s3") },
          { event: "insight loaded", timestamp: "2021-01-02T00:03:00Z", properties: w2("s3") },
          { event: "insight analyzed", timestamp: "2021-01-02T00:04:00Z", properties: w2("s3") },
        ],
      },
      { user_1: { foo: "bar" }, user_2: { foo: "bar" } },
    );
    const filter = {
      insight: "FUNNELS",
      date_from: "2021-01-01",
      date_to: "2021-01-08",
      funnel_order_type: "strict",
      events: [
        { id: "$pageview", order: 0 },
        { id: "insight analyzed", order: 1 },
      ],
      include_recordings: true,
      funnel_correlation_type: "properties",
      funnel_correlation_property_values: [{ key: "foo", value: "bar", operator: "exact", type: "person" }],
    };
    // Success filter.
    const converted = await correlation(project.id, { ...filter, funnel_correlation_person_converted: true });
    expect(distinctIdsOf(converted)).toEqual(["user_1"]);
    expect(recordingsOf(converted)).toEqual([[]]);
    // Drop off filter (PostHog asserts its first person).
    const dropped = await correlation(project.id, { ...filter, funnel_correlation_person_converted: false });
    expect(distinctIdsOf(dropped)[0]).toEqual("user_2");
    expect(recordingsOf(dropped)[0]).toEqual([]);
  });
});
