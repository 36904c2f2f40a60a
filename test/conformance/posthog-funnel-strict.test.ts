import { expect } from "vitest";
import { sorted } from "./analysis-helpers";
import { actorsAt, funnel, FunnelEvents, type Query, series, type Step } from "./funnels-helpers";
import { agrees, conformance, notExpressible } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/test_funnel_strict.py, its own test methods
 * (the breakdown and conversion-time factories it mixes in are replayed elsewhere), as FunnelsQuery
 * through `POST /api/environments/:project_id/query/`, one project per case.
 *
 * The tests' filter dicts become the FunnelsQuery PostHog's `filter_to_query` makes of them: `events`
 * → `series` of EventsNode in `order`; `date_from`/`date_to` → `dateRange` (none when the filter has
 * none: PostHog's default, the last 7 days); `funnel_order_type` → `funnelsFilter.funnelOrderType`;
 * `breakdown`/`breakdown_type` → `breakdownFilter`. `filter_to_query` does not read
 * `funnel_window_days`, so PostHog ran those filters with the default 14-day window, and the query
 * here has no window either. `_get_actor_ids_at_step(filters, step, breakdown)` is a FunnelsActorsQuery
 * with `funnelStep` (and `funnelStepBreakdown`); PostHog compares person uuids, this file the persons'
 * distinct ids (one each), as sorted lists.
 *
 * Data goes in through `POST /batch/`, person properties `$set` on a person's first event. PostHog's
 * `_create_event` without a timestamp stamps the real `now()`, each call a little after the last;
 * here each such event is a second after the previous one, from an hour ago (inside the default range).
 *
 * `TestFunnelStrictStepsBreakdown` also overrides three factory methods with `pass`
 * (test_basic_funnel_default_funnel_days_breakdown_event, …_breakdown_action, …_breakdown_action_materialized):
 * PostHog disables them for strict funnels; they assert nothing and are not cases here.
 */

/** `assert_funnel_results_equal`: the steps equal, leaving out the people URLs (PostHog nulls them on both sides). */
function expectSteps(actual: Step[], expected: Step[]) {
  const withoutUrls = (steps: Step[]) =>
    steps.map((s) => {
      const copy = { ...s };
      delete copy.converted_people_url;
      delete copy.dropped_people_url;
      return copy;
    });
  expect(withoutUrls(actual)).toEqual(expected);
}

/** A step object of a funnel with a breakdown, as PostHog's expectations write it. */
const breakdownStep = (
  order: number,
  name: string,
  count: number,
  conversionTime: number | null,
  breakdown: string[],
): Step => ({
  action_id: name,
  name,
  custom_name: null,
  order,
  people: [],
  count,
  type: "events",
  average_conversion_time: conversionTime,
  median_conversion_time: conversionTime,
  breakdown,
  breakdown_value: breakdown,
});

conformance({ name: "PostHog strict funnel tests (test_funnel_strict.py)", version: "047c6377ea" }, () => {
  agrees("test_strict_breakdown_events_with_multiple_properties", async () => {
    // person1's "blah" between its two steps breaks the strict funnel.
    const projectId = await new FunnelEvents()
      .event("person1", "sign up", "2020-01-01 12:00:00", { $browser: "Chrome" })
      .event("person1", "blah", "2020-01-01 13:00:00", { $browser: "Chrome" })
      .event("person1", "play movie", "2020-01-01 14:00:00", { $browser: "Chrome" })
      .event("person2", "sign up", "2020-01-02 13:00:00", { $browser: "Safari" })
      .event("person2", "play movie", "2020-01-02 14:00:00", { $browser: "Safari" })
      .project();
    const query = {
      series: series("sign up", "play movie"),
      dateRange: { date_from: "2020-01-01", date_to: "2020-01-08" },
      funnelsFilter: { funnelOrderType: "strict" },
      breakdownFilter: { breakdown_type: "event", breakdown: "$browser" },
    };
    const results = await funnel(projectId, query);
    expectSteps(results[0], [
      breakdownStep(0, "sign up", 1, null, ["Safari"]),
      breakdownStep(1, "play movie", 1, 3600, ["Safari"]),
    ]);
    expect(await actorsAt(projectId, query, 1, ["Safari"])).toEqual(["person2"]);
    expect(await actorsAt(projectId, query, 2, ["Safari"])).toEqual(["person2"]);
    expectSteps(results[1], [
      breakdownStep(0, "sign up", 1, null, ["Chrome"]),
      breakdownStep(1, "play movie", 0, null, ["Chrome"]),
    ]);
    expect(await actorsAt(projectId, query, 1, ["Chrome"])).toEqual(["person1"]);
    expect(await actorsAt(projectId, query, 2, ["Chrome"])).toEqual([]);
  });

  agrees("test_basic_strict_funnel", async () => {
    // PostHog then runs the query again with the AGGREGATE_BY_DISTINCT_IDS_TEAMS instance setting
    // (same expectations); edgehog has no such setting, so only the first run is replayed.
    const projectId = await new FunnelEvents()
      .person("stopped_after_signup1", { test: "okay" })
      .event("stopped_after_signup1", "user signed up")
      .event("stopped_after_pageview1", "$pageview")
      .event("stopped_after_pageview1", "user signed up")
      .event("stopped_after_insightview", "user signed up")
      .event("stopped_after_insightview", "$pageview")
      .event("stopped_after_insightview", "blaah blaa")
      .event("stopped_after_insightview", "insight viewed")
      .event("stopped_after_insightview2", "insight viewed")
      .event("stopped_after_insightview2", "blaah blaa")
      .event("stopped_after_insightview2", "$pageview")
      .event("stopped_after_insightview2", "user signed up")
      .event("stopped_after_insightview3", "$pageview")
      .event("stopped_after_insightview3", "user signed up")
      .event("stopped_after_insightview3", "blaah blaa")
      .event("stopped_after_insightview3", "$pageview")
      .event("stopped_after_insightview3", "insight viewed")
      .event("person6", "blaah blaa")
      .event("person6", "user signed up")
      .event("person6", "blaah blaa")
      .event("person6", "$pageview")
      .event("person7", "blaah blaa")
      .event("person7", "user signed up")
      .event("person7", "$pageview")
      .event("person7", "insight viewed")
      .event("person7", "blaah blaa")
      .event("stopped_after_insightview6", "insight viewed")
      .event("stopped_after_insightview6", "$pageview")
      .project();
    const query = {
      series: series("user signed up", "$pageview", "insight viewed"),
      funnelsFilter: { funnelOrderType: "strict" },
    };
    const results = await funnel(projectId, query);
    expect(results.map((s: Step) => s.name)).toEqual(["user signed up", "$pageview", "insight viewed"]);
    expect(results[0].count).toBe(7);
    expect(await actorsAt(projectId, query, 1)).toEqual(
      sorted([
        "stopped_after_signup1",
        "stopped_after_pageview1",
        "stopped_after_insightview",
        "stopped_after_insightview2",
        "stopped_after_insightview3",
        "person6",
        "person7",
      ]),
    );
    expect(await actorsAt(projectId, query, 2)).toEqual(sorted(["stopped_after_insightview", "person7"]));
    expect(await actorsAt(projectId, query, 3)).toEqual(["person7"]);
  });

  notExpressible("test_advanced_strict_funnel", "actions");

  agrees("test_basic_strict_funnel_conversion_times", async () => {
    const projectId = await new FunnelEvents()
      .event("stopped_after_signup1", "user signed up", "2021-05-02 00:00:00")
      .event("stopped_after_pageview1", "user signed up", "2021-05-02 00:00:00")
      .event("stopped_after_pageview1", "$pageview", "2021-05-02 01:00:00")
      .event("stopped_after_insightview", "user signed up", "2021-05-02 00:00:00")
      .event("stopped_after_insightview", "$pageview", "2021-05-02 02:00:00")
      .event("stopped_after_insightview", "insight viewed", "2021-05-02 04:00:00")
      .project();
    const query = {
      series: series("user signed up", "$pageview", "insight viewed"),
      dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 23:59:59" },
      funnelsFilter: { funnelOrderType: "strict" },
    };
    const results = await funnel(projectId, query);
    expect(results.map((s: Step) => s.name)).toEqual(["user signed up", "$pageview", "insight viewed"]);
    expect(results[0].count).toBe(3);
    // 1 hour for stopped_after_pageview1, 2 hours for stopped_after_insightview: 1.5 hours.
    expect(results[1].average_conversion_time).toBe(5400);
    expect(results[2].average_conversion_time).toBe(7200);
    expect(await actorsAt(projectId, query, 1)).toEqual(
      sorted(["stopped_after_signup1", "stopped_after_pageview1", "stopped_after_insightview"]),
    );
    expect(await actorsAt(projectId, query, 2)).toEqual(
      sorted(["stopped_after_pageview1", "stopped_after_insightview"]),
    );
    expect(await actorsAt(projectId, query, 3)).toEqual(["stopped_after_insightview"]);
  });

  notExpressible(
    "test_redundant_event_filtering_strict_funnel",
    "the funnel runner's inner aggregation query and its UDF event array (HogQL internals)",
  );

  agrees("test_different_prop_val_in_strict_filter", async () => {
    const projectId = await new FunnelEvents()
      .person("many_other_events", { test: "okay" })
      .event("many_other_events", "first", undefined, { bd: "one" })
      .event("many_other_events", "first", undefined, { bd: "two" })
      .event("many_other_events", "unmatched", undefined, { bd: "one" })
      .event("many_other_events", "unmatched", undefined, { bd: "two" })
      .event("many_other_events", "second", undefined, { bd: "one" })
      .event("many_other_events", "second", undefined, { bd: "two" })
      .project();
    const query: Query = {
      series: series("first", "second"),
      breakdownFilter: { breakdown: "bd" },
      funnelsFilter: { funnelOrderType: "strict" },
    };
    // First touch (just "one").
    let results = await funnel(projectId, query);
    expect(results[0]).toHaveLength(2);
    expect(results[0].at(-1).count).toBe(0);
    for (const s of results[0]) expect(s.breakdown).toEqual(["one"]);
    // All events attribution.
    results = await funnel(projectId, {
      ...query,
      funnelsFilter: { funnelOrderType: "strict", breakdownAttributionType: "all_events" },
    });
    expect(results).toHaveLength(2);
    const of = (value: string) =>
      results.find((r: Step[]) => JSON.stringify(r[0].breakdown) === JSON.stringify([value]));
    expect(of("one"), "breakdown one").toBeDefined();
    expect(of("one").at(-1).count).toBe(0);
    expect(of("two"), "breakdown two").toBeDefined();
    expect(of("two").at(-1).count).toBe(0);
  });

  agrees("test_multiple_events_same_timestamp_doesnt_blow_up", async () => {
    // Frozen at 2024-01-10T12:01:00: every event has that timestamp. The filter has no
    // funnel_order_type, so this funnel is ordered.
    const events = new FunnelEvents();
    for (let i = 0; i < 30; i++) events.event("test", "step one", "2024-01-10 12:01:00");
    events.event("test", "step two", "2024-01-10 12:01:00").event("test", "step three", "2024-01-10 12:01:00");
    const projectId = await events.project();
    const results = await funnel(projectId, {
      series: series("step one", "step two", "step three"),
      dateRange: { date_from: "2024-01-10 00:00:00", date_to: "2024-01-12 00:00:00" },
      funnelsFilter: { funnelVizType: "steps" },
    });
    expect(results.at(-1).count).toBe(1);
  });
});
