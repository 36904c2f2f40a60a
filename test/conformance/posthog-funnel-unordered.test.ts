import { expect } from "vitest";
import { call, createProject } from "../helpers";
import { actorIdSetOf, insightActorsOk, sorted } from "./analysis-helpers";
import {
  actorsAt,
  exclusion,
  funnel,
  FunnelEvents,
  funnelRefused,
  funnelsQuery,
  type Query,
  series,
  type Step,
  step,
} from "./funnels-helpers";
import { agrees, conformance, deliberate } from "./ledger";

/**
 * PostHog's posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py, its own test methods
 * (those of `TestFunnelUnorderedSteps`; the breakdown factory, with the methods
 * `TestFunnelUnorderedStepsBreakdown` overrides for unordered funnels, is replayed in
 * posthog-funnel-breakdowns.test.ts, so each case is counted once), as FunnelsQuery
 * through `POST /api/environments/:project_id/query/`, one project per case. Unordered funnels name
 * their steps "Completed 1 step", "Completed 2 steps", ….
 *
 * The tests' filter dicts become the FunnelsQuery PostHog's `filter_to_query` makes of them: `events`
 * → `series` of EventsNode in `order` (with `name` and per-step `properties`; `math` is dropped for
 * funnels); `date_from`/`date_to` → `dateRange` (none when the filter has none: PostHog's default, the
 * last 7 days); `funnel_order_type`, `funnel_viz_type`, `funnel_window_interval(_unit)`,
 * `funnel_from_step`, `funnel_to_step`, `breakdown_attribution_type`/`_value` (a number, as pydantic
 * reads "0") → `funnelsFilter`; `exclusions` → EventsNode exclusions with `funnelFromStep`/`funnelToStep`;
 * `breakdown`/`breakdown_type` → `breakdownFilter`. `filter_to_query` does not read `funnel_window_days`,
 * so PostHog ran those filters with the default 14-day window, and the query here has no window either.
 *
 * `_get_actor_ids_at_step(filters, step, breakdown)` is a FunnelsActorsQuery with `funnelStep` (and
 * `funnelStepBreakdown`); PostHog compares person uuids, this file the persons' distinct ids (one each),
 * as sorted lists. A `ValidationError` from the runner is the API's 400.
 *
 * The funnel trends tests run the runner with `just_summarize=True`, whose rows (`timestamp`,
 * `reached_from_step_count`, `reached_to_step_count`, `conversion_rate`) the API does not answer: its
 * trends result is `{count, data, days, labels}`, `days` being the rows' timestamps and `data` their
 * conversion rates. So a period's `timestamp` is compared with `days`, its `conversion_rate` with
 * `data` (where PostHog asserts only the two counts, the rate PostHog's runner derives from them:
 * `round(to / from * 100, 2)`, 0 when `from` is 0), and its `reached_to_step_count` with the number of
 * persons of a FunnelsActorsQuery for that entrance period (`funnelTrendsEntrancePeriodStart`,
 * `funnelTrendsDropOff: false`: PostHog's persons with `success_bool = 1`, the same rows it counts).
 *
 * Data goes in through `POST /batch/`. PostHog's `_create_event` without a timestamp stamps the real
 * `now()`, each call a little after the last; here each such event is a second after the previous one,
 * from an hour ago (inside the default range).
 */

/** `datetime(2024, 3, 1, 10) + timedelta(days=…, hours=…)` from a UTC start, as ISO 8601. */
const plus = (start: string, days: number, hours = 0) =>
  new Date(Date.parse(start) + (days * 24 + hours) * 3_600_000).toISOString();

/** An event property filter as `clean_entity_properties` makes it (`operator` defaults to exact). */
const eventProperty = (key: string, value: unknown, operator = "exact") => ({ key, value, operator, type: "event" });

/** The persons of a funnel trends query's entrance period who converted (`reached_to_step_count`'s rows). */
async function convertedIn(projectId: number, query: Query, periodStart: string) {
  const source = {
    kind: "FunnelsActorsQuery",
    source: funnelsQuery(query),
    funnelTrendsDropOff: false,
    funnelTrendsEntrancePeriodStart: periodStart,
  };
  return actorIdSetOf(await insightActorsOk(projectId, source));
}

/** The summarized rows PostHog asserts for a funnel trends query, compared as the note at the top says. */
async function expectTrend(
  projectId: number,
  query: Query,
  expected: { days?: string[]; length?: number; conversionRates: number[]; reachedTo: number[] },
) {
  const [trend] = await funnel(projectId, query);
  if (expected.length !== undefined) {
    expect(trend.count, "periods").toBe(expected.length);
    expect(trend.days, "periods").toHaveLength(expected.length);
  }
  if (expected.days) expect(trend.days.slice(0, expected.days.length)).toEqual(expected.days);
  expect(trend.data.slice(0, expected.conversionRates.length), "conversion_rate").toEqual(expected.conversionRates);
  for (let i = 0; i < expected.reachedTo.length; i++) {
    const converted = await convertedIn(projectId, query, `${trend.days[i]} 00:00:00`);
    expect(converted, `reached_to_step_count of ${trend.days[i]}`).toHaveLength(expected.reachedTo[i]);
  }
}

const names = (results: Step[]) => results.map((s) => s.name);
const counts = (results: Step[]) => results.map((s) => s.count);

/** `test_basic_unordered_funnel`'s and `test_big_multi_step_unordered_funnel`'s persons (`_create_event` at "now"). */
function stoppedAfterEvents(big: boolean) {
  const events = new FunnelEvents().event("stopped_after_signup1", "user signed up");
  if (big) events.event("stopped_after_pageview1", "$pageview").event("stopped_after_pageview1", "crying");
  else events.event("stopped_after_pageview1", "$pageview").event("stopped_after_pageview1", "user signed up");
  events
    .event("stopped_after_insightview", "user signed up")
    .event("stopped_after_insightview", "$pageview")
    .event("stopped_after_insightview", "blaah blaa")
    .event("stopped_after_insightview", "insight viewed")
    .event("stopped_after_insightview2", "insight viewed")
    .event("stopped_after_insightview2", big ? "crying" : "$pageview")
    .event("stopped_after_insightview2", "user signed up")
    .event("stopped_after_insightview3", "$pageview")
    .event("stopped_after_insightview3", "user signed up")
    .event("stopped_after_insightview3", big ? "crying" : "blaah blaa")
    .event("stopped_after_insightview3", "insight viewed");
  return events
    .event("stopped_after_insightview4", "blaah blaa")
    .event("stopped_after_insightview4", "insight viewed")
    .event("stopped_after_insightview5", "$pageview")
    .event("stopped_after_insightview5", "blaah blaa")
    .event("stopped_after_insightview6", "insight viewed")
    .event("stopped_after_insightview6", "$pageview");
}

const EIGHT_PERSONS = sorted([
  "stopped_after_signup1",
  "stopped_after_pageview1",
  "stopped_after_insightview",
  "stopped_after_insightview2",
  "stopped_after_insightview3",
  "stopped_after_insightview4",
  "stopped_after_insightview5",
  "stopped_after_insightview6",
]);

const REACHED_TWO_STEPS = sorted([
  "stopped_after_pageview1",
  "stopped_after_insightview",
  "stopped_after_insightview2",
  "stopped_after_insightview3",
  "stopped_after_insightview6",
]);

const REACHED_THREE_STEPS = sorted([
  "stopped_after_insightview",
  "stopped_after_insightview2",
  "stopped_after_insightview3",
]);

conformance({ name: "PostHog unordered funnel tests (test_funnel_unordered.py)", version: "047c6377ea" }, () => {
  // TestFunnelUnorderedSteps.

  agrees("test_basic_unordered_funnel", async () => {
    const projectId = await stoppedAfterEvents(false).project();
    const query = {
      series: series("user signed up", "$pageview", "insight viewed"),
      funnelsFilter: { funnelOrderType: "unordered" },
    };
    const results = await funnel(projectId, query);
    expect(names(results)).toEqual(["Completed 1 step", "Completed 2 steps", "Completed 3 steps"]);
    expect(counts(results)).toEqual([8, 5, 3]);
    expect(await actorsAt(projectId, query, 1)).toEqual(EIGHT_PERSONS);
    expect(await actorsAt(projectId, query, 2)).toEqual(REACHED_TWO_STEPS);
    expect(await actorsAt(projectId, query, -2)).toEqual(
      sorted(["stopped_after_signup1", "stopped_after_insightview4", "stopped_after_insightview5"]),
    );
    expect(await actorsAt(projectId, query, 3)).toEqual(REACHED_THREE_STEPS);
    expect(await actorsAt(projectId, query, -3)).toEqual(
      sorted(["stopped_after_pageview1", "stopped_after_insightview6"]),
    );
  });

  agrees("test_big_multi_step_unordered_funnel", async () => {
    const projectId = await stoppedAfterEvents(true).project();
    const query = {
      series: series("user signed up", "$pageview", "insight viewed", "crying"),
      funnelsFilter: { funnelOrderType: "unordered" },
    };
    const results = await funnel(projectId, query);
    expect(names(results)).toEqual(["Completed 1 step", "Completed 2 steps", "Completed 3 steps", "Completed 4 steps"]);
    expect(counts(results)).toEqual([8, 5, 3, 1]);
    expect(await actorsAt(projectId, query, 1)).toEqual(EIGHT_PERSONS);
    expect(await actorsAt(projectId, query, 2)).toEqual(REACHED_TWO_STEPS);
    expect(await actorsAt(projectId, query, 3)).toEqual(REACHED_THREE_STEPS);
    expect(await actorsAt(projectId, query, 4)).toEqual(["stopped_after_insightview3"]);
  });

  agrees("test_basic_unordered_funnel_conversion_times", async () => {
    // stopped_after_insightview completes the funnel twice: in 2 + 2 hours, then in 3 + 3 hours.
    const projectId = await new FunnelEvents()
      .event("stopped_after_signup1", "user signed up", "2021-05-02 00:00:00")
      .event("stopped_after_pageview1", "$pageview", "2021-05-02 00:00:00")
      .event("stopped_after_pageview1", "user signed up", "2021-05-02 01:00:00")
      .event("stopped_after_insightview", "insight viewed", "2021-05-02 00:00:00")
      .event("stopped_after_insightview", "user signed up", "2021-05-02 02:00:00")
      .event("stopped_after_insightview", "$pageview", "2021-05-02 04:00:00")
      .event("stopped_after_insightview", "$pageview", "2021-05-03 00:00:00")
      .event("stopped_after_insightview", "insight viewed", "2021-05-03 03:00:00")
      .event("stopped_after_insightview", "user signed up", "2021-05-03 06:00:00")
      .project();
    const query = {
      series: series("user signed up", "$pageview", "insight viewed"),
      dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 23:59:59" },
      funnelsFilter: { funnelOrderType: "unordered", funnelWindowInterval: 1 },
    };
    const results = await funnel(projectId, query);
    expect(names(results)).toEqual(["Completed 1 step", "Completed 2 steps", "Completed 3 steps"]);
    expect(results[0].count).toBe(3);
    // The UDF funnels (PostHog's only ones now) take each person's first conversion, not the average of all.
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

  agrees("test_funnel_exclusions_invalid_params", async () => {
    const project = await createProject();
    const query = {
      series: series("user signed up", "paid", "blah"),
      funnelsFilter: { funnelOrderType: "unordered", exclusions: [exclusion("x", 1, 1)] },
    };
    await funnelRefused(project.id, query);
    // Partial windows are not allowed for unordered funnels.
    await funnelRefused(project.id, {
      ...query,
      funnelsFilter: { funnelOrderType: "unordered", exclusions: [exclusion("x", 0, 1)] },
    });
  });

  agrees("test_funnel_exclusions_full_window", async () => {
    const projectId = await new FunnelEvents()
      .event("person1", "user signed up", "2021-05-01 01:00:00")
      .event("person1", "paid", "2021-05-01 02:00:00")
      .event("person2", "user signed up", "2021-05-01 03:00:00")
      .event("person2", "x", "2021-05-01 03:30:00")
      .event("person2", "paid", "2021-05-01 04:00:00")
      .event("person3", "user signed up", "2021-05-01 05:00:00")
      .event("person3", "paid", "2021-05-01 06:00:00")
      .project();
    const query = {
      series: series("user signed up", "paid"),
      dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-14 00:00:00" },
      funnelsFilter: { funnelOrderType: "unordered", exclusions: [exclusion("x", 0, 1)] },
    };
    const results = await funnel(projectId, query);
    expect(results).toHaveLength(2);
    expect(results[0].name).toBe("Completed 1 step");
    expect(results[0].count).toBe(3);
    expect(await actorsAt(projectId, query, 1)).toEqual(["person1", "person2", "person3"]);
    expect(results[1].name).toBe("Completed 2 steps");
    expect(results[1].count).toBe(2);
    expect(await actorsAt(projectId, query, 2)).toEqual(["person1", "person3"]);
  });

  agrees("test_unordered_exclusion_after_completion", async () => {
    const projectId = await new FunnelEvents()
      .event("person1", "user signed up", "2021-05-01 01:00:00")
      .event("person1", "paid", "2021-05-01 02:00:00")
      .event("person1", "left", "2021-05-01 03:00:00")
      .event("person1", "x", "2021-05-01 04:00:00")
      .event("person1", "left", "2021-05-01 05:00:00")
      .project();
    const results = await funnel(projectId, {
      series: series("user signed up", "paid", "left"),
      dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-14 00:00:00" },
      funnelsFilter: { funnelOrderType: "unordered", exclusions: [exclusion("x", 0, 2)] },
    });
    // PostHog's `all(x["count"] == 1 for x in results)`.
    expect(results.every((s: Step) => s.count === 1)).toBe(true);
  });

  agrees("test_advanced_funnel_multiple_exclusions_between_steps", async () => {
    const projectId = await new FunnelEvents()
      .event("person1", "user signed up", "2021-05-01 01:00:00")
      .event("person1", "x", "2021-05-01 02:00:00")
      .event("person1", "$pageview", "2021-05-01 03:00:00")
      .event("person1", "insight viewed", "2021-05-01 04:00:00")
      .event("person1", "y", "2021-05-01 04:30:00")
      .event("person1", "invite teammate", "2021-05-01 05:00:00")
      .event("person1", "pageview2", "2021-05-01 06:00:00")
      .event("person2", "user signed up", "2021-05-01 01:00:00")
      .event("person2", "y", "2021-05-01 01:30:00")
      .event("person2", "$pageview", "2021-05-01 02:00:00")
      .event("person2", "insight viewed", "2021-05-01 04:00:00")
      .event("person2", "y", "2021-05-01 04:30:00")
      .event("person2", "invite teammate", "2021-05-01 05:00:00")
      .event("person2", "x", "2021-05-01 05:30:00")
      .event("person2", "pageview2", "2021-05-01 06:00:00")
      .event("person3", "user signed up", "2021-05-01 01:00:00")
      .event("person3", "x", "2021-05-01 01:30:00")
      .event("person3", "$pageview", "2021-05-01 02:00:00")
      .event("person3", "insight viewed", "2021-05-01 04:00:00")
      .event("person3", "invite teammate", "2021-05-01 05:00:00")
      .event("person3", "x", "2021-05-01 05:30:00")
      .event("person3", "pageview2", "2021-05-01 06:00:00")
      .event("person4", "user signed up", "2021-05-01 01:00:00")
      .event("person4", "$pageview", "2021-05-01 02:00:00")
      .event("person4", "insight viewed", "2021-05-01 04:00:00")
      .event("person4", "invite teammate", "2021-05-01 05:00:00")
      .event("person4", "pageview2", "2021-05-01 06:00:00")
      .event("person5", "user signed up", "2021-05-01 01:00:00")
      .event("person5", "x", "2021-05-01 01:30:00")
      .event("person5", "$pageview", "2021-05-01 02:00:00")
      .event("person5", "x", "2021-05-01 02:30:00")
      .event("person5", "insight viewed", "2021-05-01 04:00:00")
      .event("person5", "y", "2021-05-01 04:30:00")
      .event("person5", "invite teammate", "2021-05-01 05:00:00")
      .event("person5", "x", "2021-05-01 05:30:00")
      .event("person5", "pageview2", "2021-05-01 06:00:00")
      .project();
    const query = {
      series: series("user signed up", "$pageview", "insight viewed", "invite teammate", "pageview2"),
      dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-14 00:00:00" },
      funnelsFilter: { funnelOrderType: "unordered", exclusions: [exclusion("x", 0, 4), exclusion("y", 0, 4)] },
    };
    const results = await funnel(projectId, query);
    expect(results[0].name).toBe("Completed 1 step");
    expect(counts(results)).toEqual([5, 2, 1, 1, 1]);
    expect(await actorsAt(projectId, query, 1)).toEqual(["person1", "person2", "person3", "person4", "person5"]);
    expect(await actorsAt(projectId, query, 2)).toEqual(["person1", "person4"]);
    for (const funnelStep of [3, 4, 5]) expect(await actorsAt(projectId, query, funnelStep)).toEqual(["person4"]);
  });

  agrees("test_funnel_unordered_all_events_with_properties", async () => {
    // PostHog also records `is_saved` as a Boolean property definition, as capture does for a boolean value.
    const projectId = await new FunnelEvents()
      .event("user", "user signed up")
      .event("user", "added to card", undefined, { is_saved: true })
      .project();
    const results = await funnel(projectId, {
      series: [
        step("user signed up", { name: "user signed up" }),
        step(null, { name: "All events", properties: [eventProperty("is_saved", ["true"])] }),
      ],
      funnelsFilter: { funnelOrderType: "unordered" },
    });
    expect(results[0].count).toBe(1);
    expect(results[1].count).toBe(1);
  });

  agrees("test_funnel_unordered_entity_filters", async () => {
    const projectId = await new FunnelEvents()
      .event("user", "user signed up", undefined, { prop_a: "some value" })
      .event("user", "user signed up", undefined, { prop_b: "another value" })
      .project();
    const results = await funnel(projectId, {
      series: [
        step("user signed up", { name: "user signed up", properties: [eventProperty("prop_a", ["some value"])] }),
        step("user signed up", {
          name: "user signed up",
          properties: [eventProperty("prop_b", "another", "icontains")],
        }),
      ],
      funnelsFilter: { funnelOrderType: "unordered" },
    });
    expect(results[0].count).toBe(1);
    expect(results[1].count).toBe(1);
  });

  agrees("test_funnel_window_ignores_dst_transition", async () => {
    // The conversion (March 1st 15:10 to March 15th 14:27 UTC) is inside the 14-day window, in UTC
    // and in US/Pacific, whose PST → PDT change on March 10th does not shorten the window.
    const projectId = await new FunnelEvents()
      .event("user_1", "$pageview", "2024-03-01 15:10:00")
      .event("user_1", "user signed up", "2024-03-15 14:27:00")
      .project();
    const query = {
      series: series("$pageview", "user signed up"),
      dateRange: { date_from: "2024-02-17", date_to: "2024-03-18" },
      funnelsFilter: { funnelOrderType: "unordered" },
    };
    const expectConverted = (results: Step[]) => {
      expect(results[1].name).toBe("Completed 2 steps");
      expect(results[1].count).toBe(1);
      expect(results[1].average_conversion_time).toBe(1_207_020);
      expect(results[1].median_conversion_time).toBe(1_207_020);
    };
    expectConverted(await funnel(projectId, query));
    const res = await call(`/api/projects/${projectId}/`, { method: "PATCH", body: { timezone: "US/Pacific" } });
    expect(res.status, res.text).toBe(200);
    expectConverted(await funnel(projectId, query));
  });

  deliberate("test_unordered_trend_with_partial_steps_and_exclusion", "unordered funnel exclusions", async () => {
    // user_1: step 1 → step 2 → exclusion → step 3; user_2: step 1 → step 2 → step 3.
    const projectId = await new FunnelEvents()
      .event("user_1", "step 1", "2024-03-01 10:00:00")
      .event("user_1", "step 2", "2024-03-01 11:00:00")
      .event("user_1", "exclusion event", "2024-03-01 12:00:00")
      .event("user_1", "step 3", "2024-03-01 13:00:00")
      .event("user_2", "step 1", "2024-03-01 10:00:00")
      .event("user_2", "step 2", "2024-03-01 11:00:00")
      .event("user_2", "step 3", "2024-03-01 12:00:00")
      .project();
    const funnelsFilter = {
      funnelOrderType: "unordered",
      funnelWindowInterval: 6,
      funnelWindowIntervalUnit: "hour",
      exclusions: [exclusion("exclusion event", 0, 2)],
    };
    const query = {
      series: series("step 1", "step 2", "step 3"),
      dateRange: { date_from: "2024-03-01", date_to: "2024-03-01" },
      funnelsFilter,
    };
    // user_1 is excluded; only user_2 completes the funnel.
    expect(counts(await funnel(projectId, query))).toEqual([2, 1, 1]);
    // Funnel trends up to the second step (funnel_to_step 1).
    const trend = await funnel(projectId, {
      ...query,
      funnelsFilter: { ...funnelsFilter, funnelToStep: 1, funnelVizType: "trends" },
    });
    expect(trend).toHaveLength(1);
    expect(trend[0].count).toBe(1);
    // PostHog: [50] (user_1's attempt, complete before the exclusion, does not convert in trends).
    expect(trend[0].data).toEqual([100]);
  });

  agrees("test_unordered_trend", async () => {
    // "event 3": user_1 on all 8 days, user_2 on days 0, 2, 4, 6, user_3 on days 0 and 4, user_4 on
    // day 0, user_5 never; everyone does "event 1" and "event 2" on day 7.
    const start = "2024-03-01T10:00:00Z";
    const events = new FunnelEvents();
    for (let i = 0; i < 8; i++) events.event("user_1", "event 3", plus(start, i));
    for (let i = 0; i < 8; i += 2) events.event("user_2", "event 3", plus(start, i));
    for (let i = 0; i < 8; i += 4) events.event("user_3", "event 3", plus(start, i));
    events.event("user_4", "event 3", start);
    for (const id of ["user_1", "user_2", "user_3", "user_4", "user_5"]) {
      events.event(id, "event 1", plus(start, 7, 1)).event(id, "event 2", plus(start, 7, 2));
    }
    const projectId = await events.project();
    await expectTrend(
      projectId,
      {
        series: series("event 1", "event 2", "event 3"),
        dateRange: { date_from: "2024-03-01", date_to: "2024-03-08" },
        funnelsFilter: { funnelVizType: "trends", funnelOrderType: "unordered" },
      },
      {
        length: 8,
        days: [
          "2024-03-01",
          "2024-03-02",
          "2024-03-03",
          "2024-03-04",
          "2024-03-05",
          "2024-03-06",
          "2024-03-07",
          "2024-03-08",
        ],
        // reached_from_step_count [4, 1, 2, 1, 3, 1, 2, 5].
        conversionRates: [100, 100, 100, 100, 100, 100, 100, 20],
        reachedTo: [4, 1, 2, 1, 3, 1, 2, 1],
      },
    );
  });

  agrees("test_unordered_trend_second_step", async () => {
    // Both users do "event 3" on all 8 days and "event 1" on day 7; user_2 also "event 2" on day 7.
    const start = "2024-03-01T10:00:00Z";
    const events = new FunnelEvents();
    for (const id of ["user_1", "user_2"]) {
      for (let i = 0; i < 8; i++) events.event(id, "event 3", plus(start, i));
      events.event(id, "event 1", plus(start, 7, 1));
    }
    events.event("user_2", "event 2", plus(start, 7, 2));
    const projectId = await events.project();
    await expectTrend(
      projectId,
      {
        series: series("event 1", "event 2", "event 3"),
        dateRange: { date_from: "2024-03-01", date_to: "2024-03-08" },
        funnelsFilter: { funnelVizType: "trends", funnelOrderType: "unordered", funnelFromStep: 1, funnelToStep: 2 },
      },
      {
        length: 8,
        // reached_from_step_count 2 in every period.
        conversionRates: Array<number>(8).fill(50),
        reachedTo: Array<number>(8).fill(1),
      },
    );
  });

  agrees("test_unordered_trend_one_user", async () => {
    // user_1: "event 3" on 8 days, "event 2" on the first 4, "event 1" on the first 2.
    const start = "2024-12-01T10:00:00Z";
    const events = new FunnelEvents();
    for (let i = 0; i < 8; i++) events.event("user_1", "event 3", plus(start, i));
    for (let i = 0; i < 4; i++) events.event("user_1", "event 2", plus(start, i, 1));
    for (let i = 0; i < 2; i++) events.event("user_1", "event 1", plus(start, i, 2));
    const projectId = await events.project();
    await expectTrend(
      projectId,
      {
        series: series("event 1", "event 2", "event 3"),
        dateRange: { date_from: "2024-12-01", date_to: "2024-12-08" },
        funnelsFilter: { funnelVizType: "trends", funnelOrderType: "unordered", funnelFromStep: 1, funnelToStep: 2 },
      },
      {
        length: 8,
        // reached_from_step_count [1, 1, 1, 1, 0, 0, 0, 0], reached_to_step_count [1, 1, 0, 0, 0, 0, 0, 0].
        conversionRates: [100, 100, 0, 0, 0, 0, 0, 0],
        reachedTo: [1, 1, 0, 0, 0, 0, 0, 0],
      },
    );
  });

  agrees("test_unordered_trend_weekly_monthly", async () => {
    // "event 3": user_1 daily for 31 days, user_2 3 days a week, user_3 2 days a week, user_4 weekly,
    // user_5 every other week; everyone does "event 1" and "event 2" on day 30.
    const start = "2024-12-01T10:00:00Z";
    const events = new FunnelEvents();
    for (let i = 0; i < 31; i++) events.event("user_1", "event 3", plus(start, i));
    for (let i = 0; i < 31; i += 7)
      for (let j = 0; j < 7; j += 3) events.event("user_2", "event 3", plus(start, i + j));
    for (let i = 0; i < 31; i += 7)
      for (let j = 0; j < 7; j += 4) events.event("user_3", "event 3", plus(start, i + j));
    for (let i = 0; i < 31; i += 7) events.event("user_4", "event 3", plus(start, i));
    for (let i = 0; i < 31; i += 14) events.event("user_5", "event 3", plus(start, i));
    for (const id of ["user_1", "user_2", "user_3", "user_4", "user_5"]) {
      events.event(id, "event 1", plus(start, 30, 1)).event(id, "event 2", plus(start, 30, 2));
    }
    const projectId = await events.project();
    const query = {
      series: series("event 1", "event 2", "event 3"),
      dateRange: { date_from: "2024-12-01", date_to: "2024-12-31" },
      funnelsFilter: {
        funnelVizType: "trends",
        funnelOrderType: "unordered",
        funnelWindowInterval: 40,
        funnelWindowIntervalUnit: "day",
      },
    };
    // Monthly: the first period, 5 reached from, 5 reached to.
    await expectTrend(projectId, { ...query, interval: "month" }, { conversionRates: [100], reachedTo: [5] });
    // Weekly: 5 periods.
    await expectTrend(
      projectId,
      { ...query, interval: "week" },
      {
        length: 5,
        days: ["2024-12-01", "2024-12-08", "2024-12-15", "2024-12-22", "2024-12-29"],
        // reached_from_step_count = reached_to_step_count in every period.
        conversionRates: [100, 100, 100, 100, 100],
        reachedTo: [5, 4, 5, 4, 5],
      },
    );
  });
});
