import { expect } from "vitest";
import { createProject } from "../helpers";
import { at, captureJourneys, type Journeys } from "./analysis-helpers";
import { funnel, funnelActors, type Step, step } from "./funnels-helpers";
import { agrees, conformance } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/conversion_time_cases.py, the
 * `funnel_conversion_time_test_factory` mixed into PostHog's funnel test classes, as FunnelsQuery through
 * `POST /api/environments/:project_id/query/`, one project per case. PostHog instantiates it for two
 * order types: ordered (test_funnel.py's `TestFunnelConversionTime`, and test_funnel_strict.py's
 * `TestFunnelStrictStepsConversionTime`, which passes `FunnelOrderType.ORDERED` too) and unordered
 * (test_funnel_unordered.py's `TestFunnelUnorderedStepsConversionTime`); each is a conformance block
 * here, built from one case per method taking the order type. The expectations are the same for both.
 *
 * The factory's filter dicts become the FunnelsQuery PostHog's `filter_to_query` makes of them: `events`
 * → `series` of EventsNode in `order`, `date_from`/`date_to` → `dateRange`, `funnel_order_type`,
 * `funnel_window_interval(_unit)` → `funnelsFilter`. `filter_to_query` does not read
 * `funnel_window_days`, so PostHog ran that filter with the default 14-day window, and the query here
 * has no window either. `_get_actor_ids_at_step(filters, step)` is a FunnelsActorsQuery with
 * `funnelStep`; PostHog compares person uuids, this file the persons' distinct ids (one each), as
 * sorted lists. `journeys_for` data goes in through `POST /batch/` (naive datetimes are UTC).
 */

type OrderType = "ordered" | "unordered";

/** `journeys_for(…)` in a fresh project; its id. */
async function journeysProject(journeys: Journeys) {
  const project = await createProject();
  await captureJourneys(project.api_token, journeys);
  return project.id;
}

/** `[{"id": e, "order": i}, …]` as a FunnelsQuery's series. */
const series = (...events: string[]) => events.map((e) => step(e));

const conversionTimes = (results: Step[]) => ({
  average: results.map((s) => s.average_conversion_time),
  median: results.map((s) => s.median_conversion_time),
});

function testFunnelWithMultipleIncompleteTries(funnelOrderType: OrderType) {
  return async () => {
    const projectId = await journeysProject({
      person1: [
        // person1 completes the funnel on 2021-05-01 …
        at("user signed up", "2021-05-01T01:00:00Z"),
        at("$pageview", "2021-05-01T02:00:00Z"),
        at("something else", "2021-05-01T03:00:00Z"),
        // … completes part of it on 2021-05-03, taking 1 hour to convert …
        at("user signed up", "2021-05-03T04:00:00Z"),
        at("$pageview", "2021-05-03T05:00:00Z"),
        // … and on 2021-05-04, taking 3 hours.
        at("user signed up", "2021-05-04T07:00:00Z"),
        at("$pageview", "2021-05-04T10:00:00Z"),
      ],
    });
    const query = {
      series: series("user signed up", "$pageview", "something else"),
      dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-14 00:00:00" },
      funnelsFilter: { funnelOrderType, funnelWindowInterval: 1 },
    };
    const results = await funnel(projectId, query);
    expect(results[0].count).toBe(1);
    // One hour to convert, the incomplete tries disregarded.
    expect(results[1].average_conversion_time).toBe(3600);
    expect(results[1].median_conversion_time).toBe(3600);
    expect(await funnelActors(projectId, query, { funnelStep: 1 })).toEqual(["person1"]);
  };
}

function testFunnelStepConversionTimes(funnelOrderType: OrderType) {
  return async () => {
    const projectId = await journeysProject({
      person1: [
        at("sign up", "2020-01-01T12:00:00Z"),
        at("play movie", "2020-01-01T13:00:00Z"),
        at("buy", "2020-01-01T15:00:00Z"),
      ],
      person2: [at("sign up", "2020-01-02T14:00:00Z"), at("play movie", "2020-01-02T16:00:00Z")],
      person3: [
        at("sign up", "2020-01-02T14:00:00Z"),
        at("play movie", "2020-01-02T16:00:00Z"),
        at("buy", "2020-01-02T17:00:00Z"),
      ],
    });
    const results = await funnel(projectId, {
      series: series("sign up", "play movie", "buy"),
      dateRange: { date_from: "2020-01-01", date_to: "2020-01-08" },
      funnelsFilter: { funnelOrderType },
    });
    expect(conversionTimes(results)).toEqual({ average: [null, 6000, 5400], median: [null, 7200, 5400] });
  };
}

function testFunnelTimesWithDifferentConversionWindows(funnelOrderType: OrderType) {
  return async () => {
    const projectId = await journeysProject({
      stopped_after_signup1: [at("user signed up", "2020-01-02T14:00:00Z"), at("pageview", "2020-01-02T14:05:00Z")],
      stopped_after_signup2: [at("user signed up", "2020-01-02T14:03:00Z")],
      stopped_after_signup3: [at("user signed up", "2020-01-02T12:00:00Z"), at("pageview", "2020-01-02T12:15:00Z")],
    });
    const everyone = ["stopped_after_signup1", "stopped_after_signup2", "stopped_after_signup3"];
    const query = {
      series: series("user signed up", "pageview"),
      dateRange: { date_from: "2020-01-01", date_to: "2020-01-14" },
      funnelsFilter: { funnelOrderType, funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" },
    };
    const results = await funnel(projectId, query);
    expect(results[0].count).toBe(3);
    expect(results[1].count).toBe(2);
    expect(results[1].average_conversion_time).toBe(600);
    expect(await funnelActors(projectId, query, { funnelStep: 1 })).toEqual(everyone);
    expect(await funnelActors(projectId, query, { funnelStep: 2 })).toEqual([
      "stopped_after_signup1",
      "stopped_after_signup3",
    ]);

    const fiveMinutes = {
      ...query,
      funnelsFilter: { funnelOrderType, funnelWindowInterval: 5, funnelWindowIntervalUnit: "minute" },
    };
    const results4 = await funnel(projectId, fiveMinutes);
    expect(results4).not.toEqual(results);
    expect(results4[0].count).toBe(3);
    expect(results4[1].count).toBe(1);
    expect(results4[1].average_conversion_time).toBe(300);
    expect(await funnelActors(projectId, fiveMinutes, { funnelStep: 1 })).toEqual(everyone);
    expect(await funnelActors(projectId, fiveMinutes, { funnelStep: 2 })).toEqual(["stopped_after_signup1"]);
  };
}

/** The factory's three methods, for one order type. */
function conversionTimeCases(funnelOrderType: OrderType) {
  agrees("test_funnel_with_multiple_incomplete_tries", testFunnelWithMultipleIncompleteTries(funnelOrderType));
  agrees("test_funnel_step_conversion_times", testFunnelStepConversionTimes(funnelOrderType));
  agrees(
    "test_funnel_times_with_different_conversion_windows",
    testFunnelTimesWithDifferentConversionWindows(funnelOrderType),
  );
}

conformance(
  { name: "PostHog funnel conversion time tests (conversion_time_cases.py, ordered)", version: "19b05ffa51" },
  () => conversionTimeCases("ordered"),
);

conformance(
  { name: "PostHog funnel conversion time tests (conversion_time_cases.py, unordered)", version: "19b05ffa51" },
  () => conversionTimeCases("unordered"),
);
