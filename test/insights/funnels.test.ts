import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";
import { at, captureJourneys } from "../conformance/analysis-helpers";

/**
 * FunnelsQuery through POST /query/, worked by hand: five persons through sign up → view → buy on
 * 2021-05-01 (hours after midnight UTC), with browsers on their events.
 * - p1: sign up 0h (Chrome), view 1h, buy 3h: converts in 1 h + 2 h;
 * - p2: sign up 0h (Safari), view 3h, buy 4h: converts in 3 h + 1 h;
 * - p3: sign up 0h (Chrome), view 2h: stops at view (2 h);
 * - p4: sign up 0h (Chrome), a `cancel` at 1h, view 5h: stops at view, or is excluded by cancel;
 * - p5: sign up only (no browser).
 */
let project: { id: number; api_token: string };

const t = (hours: number) => new Date(Date.UTC(2021, 4, 1, hours)).toISOString();
const STEPS = [
  { kind: "EventsNode", event: "sign up" },
  { kind: "EventsNode", event: "view" },
  { kind: "EventsNode", event: "buy", custom_name: "Purchase" },
];
const RANGE = { date_from: "2021-05-01", date_to: "2021-05-07" };

const ask = async (query: Record<string, unknown>) => {
  const res = await call(`/api/environments/${project.id}/query/`, { method: "POST", body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const refused = async (query: Record<string, unknown>) => {
  const res = await call(`/api/environments/${project.id}/query/`, { method: "POST", body: { query } });
  expect(res.status, res.text).toBe(400);
  return res.json;
};
const funnel = (extra: Record<string, unknown> = {}, filter: Record<string, unknown> = {}) =>
  ask({ kind: "FunnelsQuery", series: STEPS, dateRange: RANGE, funnelsFilter: filter, ...extra });
const persons = async (funnelStep: number, extra: Record<string, unknown> = {}) => {
  const body = await ask({
    kind: "ActorsQuery",
    select: ["actor"],
    orderBy: [],
    source: {
      kind: "FunnelsActorsQuery",
      funnelStep,
      source: { kind: "FunnelsQuery", series: STEPS, dateRange: RANGE, ...extra },
    },
  });
  return body.results.map((row: any) => row[0].distinct_ids[0]).sort();
};

beforeAll(async () => {
  project = await createProject();
  const chrome = { $browser: "Chrome" };
  await captureJourneys(project.api_token, {
    p1: [at("sign up", t(0), chrome), at("view", t(1)), at("buy", t(3))],
    p2: [at("sign up", t(0), { $browser: "Safari" }), at("view", t(3)), at("buy", t(4))],
    p3: [at("sign up", t(0), chrome), at("view", t(2))],
    p4: [at("sign up", t(0), chrome), at("cancel", t(1)), at("view", t(5))],
    p5: [at("sign up", t(0))],
  });
});

describe("FunnelsQuery steps", () => {
  it("counts persons at each step with conversion times, in PostHog's step objects", async () => {
    const body = await funnel();
    expect(body.results.map((s: any) => s.count)).toEqual([5, 4, 2]);
    expect(body.results[0]).toEqual({
      action_id: "sign up",
      name: "sign up",
      custom_name: null,
      order: 0,
      people: [],
      count: 5,
      type: "events",
      average_conversion_time: null,
      median_conversion_time: null,
    });
    // view: 1 h, 3 h, 2 h, 5 h after sign up; buy: 2 h and 1 h after view.
    expect(body.results[1]).toMatchObject({ average_conversion_time: 2.75 * 3600, median_conversion_time: 2.5 * 3600 });
    expect(body.results[2]).toMatchObject({
      custom_name: "Purchase",
      average_conversion_time: 1.5 * 3600,
      median_conversion_time: 1.5 * 3600,
    });
  });

  it("gives each step's persons and drop-offs, the same persons as the counts", async () => {
    expect(await persons(1)).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    expect(await persons(2)).toEqual(["p1", "p2", "p3", "p4"]);
    expect(await persons(3)).toEqual(["p1", "p2"]);
    expect(await persons(-2)).toEqual(["p5"]);
    expect(await persons(-3)).toEqual(["p3", "p4"]);
  });

  it("drops a person whose attempt an exclusion caught, from every step", async () => {
    const exclusions = [{ kind: "EventsNode", event: "cancel", funnelFromStep: 0, funnelToStep: 1 }];
    const body = await funnel({}, { exclusions });
    expect(body.results.map((s: any) => s.count)).toEqual([4, 3, 2]);
    expect(await persons(1, { funnelsFilter: { exclusions } })).toEqual(["p1", "p2", "p3", "p5"]);
  });

  it("cuts the attempt at the conversion window", async () => {
    const body = await funnel({}, { funnelWindowInterval: 2, funnelWindowIntervalUnit: "hour" });
    // Within 2 h of sign up: p1 views at 1h (buys at 3h, too late), p3 views at 2h.
    expect(body.results.map((s: any) => s.count)).toEqual([5, 2, 0]);
  });

  it("breaks down by first touch (values as lists, as PostHog), names each value's steps, and folds values past the limit into Other", async () => {
    const body = await funnel({ breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } });
    const byValue = body.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)]);
    // Ranked by persons who finished at the last step (1 each), then at the one before (Chrome 2, Safari 0).
    expect(byValue).toEqual([
      [["Chrome"], [3, 3, 1]],
      [["Safari"], [1, 1, 1]],
      [[""], [1, 0, 0]],
    ]);
    expect(body.results[0][0].breakdown).toEqual(["Chrome"]);
    const limited = await funnel({ breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 } });
    expect(limited.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)])).toEqual([
      [["Chrome"], [3, 3, 1]],
      [["Other"], [2, 1, 1]],
    ]);
  });

  it("names unordered steps by how many were completed", async () => {
    const body = await funnel({}, { funnelOrderType: "unordered" });
    expect(body.results.map((s: any) => [s.name, s.action_id, s.count])).toEqual([
      ["Completed 1 step", null, 5],
      ["Completed 2 steps", null, 4],
      ["Completed 3 steps", null, 2],
    ]);
  });

  it("answers time to convert as PostHog's bins", async () => {
    const body = await funnel({}, { funnelVizType: "time_to_convert", binCount: 3 });
    // p1 3 h, p2 4 h: bins of 1200 s from 10800 s.
    expect(body.results).toEqual({
      average_conversion_time: 3.5 * 3600,
      median_conversion_time: 3.5 * 3600,
      bins: [
        [10_800, 1],
        [12_000, 0],
        [13_200, 0],
        [14_400, 1],
      ],
    });
  });

  it("answers no steps for a funnel nobody entered", async () => {
    const body = await funnel({ dateRange: { date_from: "2020-01-01", date_to: "2020-01-02" } });
    expect(body.results).toEqual([]);
  });

  it("refuses what it cannot compute, naming the field", async () => {
    const pastTheEnd = await refused({
      kind: "FunnelsQuery",
      series: STEPS,
      funnelsFilter: { funnelVizType: "time_to_convert", funnelToStep: 3 },
    });
    expect(pastTheEnd.detail).toBe("Filter parameter funnel_to_step can only be one of 1, 2 for time to convert!");
    expect(pastTheEnd.attr).toBe("query__funnelsFilter__funnelToStep");
    const backwards = await refused({
      kind: "FunnelsQuery",
      series: STEPS,
      funnelsFilter: { exclusions: [{ kind: "EventsNode", event: "x", funnelFromStep: 1, funnelToStep: 1 }] },
    });
    expect(backwards.detail).toBe("Exclusion event range is invalid. End of range should be greater than start.");
    expect(backwards.attr).toBe("query__funnelsFilter__exclusions__0");
    const unorderedStep = await refused({
      kind: "FunnelsQuery",
      series: STEPS,
      breakdownFilter: { breakdown: "$browser" },
      funnelsFilter: { funnelOrderType: "unordered", breakdownAttributionType: "step", breakdownAttributionValue: 1 },
    });
    expect(unorderedStep.detail).toBe("Only the first step can be used for breakdown attribution in unordered funnels");
  });

  it("breaks down by every event's own value (all_events) and by the value on a step's event (step)", async () => {
    const values = (body: any) =>
      body.results.map((steps: any[]) => [steps[0].breakdown_value, steps.map((s) => s.count)]);
    const allEvents = await funnel(
      { breakdownFilter: { breakdown: "$browser" } },
      { breakdownAttributionType: "all_events" },
    );
    // Only sign up carries a browser: each value's funnel stops there; "" has p5's sign up (the
    // others' view and buy have no sign up of their own value).
    expect(values(allEvents)).toEqual([
      [["Chrome"], [3, 0, 0]],
      [[""], [1, 0, 0]],
      [["Safari"], [1, 0, 0]],
    ]);
    const onView = await funnel(
      { breakdownFilter: { breakdown: "$browser" } },
      { breakdownAttributionType: "step", breakdownAttributionValue: 1 },
    );
    // The views carry no browser: everyone who viewed is under "", p5 (no view) is out.
    expect(values(onView)).toEqual([[[""], [4, 4, 2]]]);
  });

  it("answers funnel trends: the conversion rate per entrance period, and its persons", async () => {
    const body = await funnel(
      { dateRange: { date_from: "2021-05-01", date_to: "2021-05-03" } },
      { funnelVizType: "trends" },
    );
    expect(body.results).toEqual([
      {
        count: 3,
        data: [40, 0, 0],
        days: ["2021-05-01", "2021-05-02", "2021-05-03"],
        labels: ["1-May-2021", "2-May-2021", "3-May-2021"],
      },
    ]);
    const converted = await ask({
      kind: "ActorsQuery",
      select: ["actor"],
      orderBy: [],
      source: {
        kind: "FunnelsActorsQuery",
        funnelTrendsDropOff: false,
        funnelTrendsEntrancePeriodStart: "2021-05-01",
        source: {
          kind: "FunnelsQuery",
          series: STEPS,
          dateRange: { date_from: "2021-05-01", date_to: "2021-05-03" },
          funnelsFilter: { funnelVizType: "trends" },
        },
      },
    });
    expect(converted.results.map((row: any) => row[0].distinct_ids[0]).sort()).toEqual(["p1", "p2"]);
  });
});

describe("FunnelsActorsQuery refusals and scopes", () => {
  const actors = (pick: Record<string, unknown>, filter: Record<string, unknown> = {}, key?: string) =>
    call(`/api/environments/${project.id}/query/`, {
      method: "POST",
      key,
      body: {
        query: {
          kind: "ActorsQuery",
          select: ["actor"],
          orderBy: [],
          source: {
            kind: "FunnelsActorsQuery",
            ...pick,
            source: { kind: "FunnelsQuery", series: STEPS, dateRange: RANGE, funnelsFilter: filter },
          },
        },
      },
    });

  it("refuses a pick that names no bucket with PostHog's message, on the pick's field", async () => {
    const zero = await actors({ funnelStep: 0 });
    expect(zero.status).toBe(400);
    expect(envelope(zero)).toMatchObject({
      type: "validation_error",
      detail: "Funnel steps are 1-indexed, so step 0 doesn't exist",
      attr: "query__source__funnelStep",
    });
    const trends = await actors({ funnelTrendsEntrancePeriodStart: "2021-05-01" }, { funnelVizType: "trends" });
    expect(trends.status).toBe(400);
    expect(envelope(trends).attr).toBe("query__source__funnelTrendsDropOff");
  });

  it("names a field of the funnel itself under its source", async () => {
    const res = await actors(
      { funnelStep: 1 },
      { exclusions: [{ kind: "EventsNode", event: "x", funnelFromStep: 2, funnelToStep: 1 }] },
    );
    expect(res.status).toBe(400);
    expect(envelope(res).attr).toBe("query__source__source__funnelsFilter__exclusions__0");
  });

  it("needs query:read on the project", async () => {
    const key = await createKey(["person:read"], [project.id]);
    const res = await actors({ funnelStep: 1 }, {}, key);
    expect(res.status).toBe(403);
    expect(envelope(res).detail).toMatch(/query:read/);
  });
});

describe("FunnelsQuery step filters", () => {
  it("keeps an event that a filter of another step cannot read (a missing property is no match, not a lost event)", async () => {
    const own = await createProject();
    await captureJourneys(own.api_token, {
      user: [at("signed up", t(0), { prop_a: "some value" }), at("signed up", t(1), { prop_b: "another value" })],
    });
    const steps = [
      { kind: "EventsNode", event: "signed up", properties: [{ key: "prop_a", value: ["some value"], type: "event" }] },
      {
        kind: "EventsNode",
        event: "signed up",
        properties: [{ key: "prop_b", value: "another", operator: "icontains", type: "event" }],
      },
    ];
    for (const funnelOrderType of ["ordered", "strict", "unordered"]) {
      const res = await call(`/api/environments/${own.id}/query/`, {
        method: "POST",
        body: { query: { kind: "FunnelsQuery", series: steps, dateRange: RANGE, funnelsFilter: { funnelOrderType } } },
      });
      expect(res.status, res.text).toBe(200);
      expect(
        res.json.results.map((s: any) => s.count),
        funnelOrderType,
      ).toEqual([1, 1]);
    }
  });
});
