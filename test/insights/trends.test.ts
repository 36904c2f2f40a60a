import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";
import { captureJourneys } from "../conformance/analysis-helpers";

let project: { id: number; api_token: string };

const trends = async (query: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const res = await call(`/api/environments/${project.id}/query/`, {
    method: "POST",
    body: { query: { kind: "TrendsQuery", ...query }, ...extra },
  });
  expect(res.status, res.text).toBe(200);
  return res.json;
};

const RANGE = { date_from: "2019-12-28", date_to: "2020-01-04" };

beforeAll(async () => {
  project = await createProject();
  await captureJourneys(project.api_token, {
    blabla: [
      { event: "sign up", timestamp: "2019-12-24T12:00:00Z", properties: { $browser: "Chrome" } },
      { event: "sign up", timestamp: "2020-01-01T12:00:00Z", properties: { $browser: "Chrome", $session_id: "s1" } },
      {
        event: "sign up",
        timestamp: "2020-01-01T12:00:00Z",
        properties: { $some_property: "value", $session_id: "s1" },
      },
      { event: "sign up", timestamp: "2020-01-01T12:00:00Z", properties: { $browser: "Safari", $session_id: "s2" } },
      { event: "sign up", timestamp: "2020-01-02T12:00:00Z", properties: { $some_property: "other_value", amount: 4 } },
      { event: "no events", timestamp: "2020-01-02T12:00:00Z", properties: { amount: "6" } },
    ],
    other: [{ event: "sign up", timestamp: "2020-01-02T13:00:00Z", properties: { amount: 10, $browser: "Chrome" } }],
  });
});

describe("TrendsQuery through POST /query/", () => {
  it("counts events per local day with PostHog's labels", async () => {
    const body = await trends({ series: [{ kind: "EventsNode", event: "sign up" }], dateRange: RANGE });
    const [series] = body.results;
    expect(series.labels).toEqual([
      "28-Dec-2019",
      "29-Dec-2019",
      "30-Dec-2019",
      "31-Dec-2019",
      "1-Jan-2020",
      "2-Jan-2020",
      "3-Jan-2020",
      "4-Jan-2020",
    ]);
    expect(series.days[0]).toBe("2019-12-28");
    expect(series.data).toEqual([0, 0, 0, 0, 3, 2, 0, 0]);
    expect(series.count).toBe(5);
    expect(series.label).toBe("sign up");
    expect(body.hasMore).toBe(false);
    expect(body.resolved_date_range).toEqual({
      date_from: "2019-12-28T00:00:00Z",
      date_to: "2020-01-04T23:59:59.999999Z",
    });
  });

  it("answers dau, sessions, property math, all events and total values", async () => {
    const series = (math: Record<string, unknown>) => [{ kind: "EventsNode", event: "sign up", ...math }];
    expect((await trends({ series: series({ math: "dau" }), dateRange: RANGE })).results[0].data).toEqual([
      0, 0, 0, 0, 1, 2, 0, 0,
    ]);
    expect((await trends({ series: series({ math: "unique_session" }), dateRange: RANGE })).results[0].data).toEqual([
      0, 0, 0, 0, 2, 1, 0, 0,
    ]);
    const sum = await trends({
      series: [{ kind: "EventsNode", event: null, math: "sum", math_property: "amount" }],
      dateRange: RANGE,
    });
    expect(sum.results[0].data).toEqual([0, 0, 0, 0, 0, 20, 0, 0]);
    expect(sum.results[0].label).toBe("All events");
    const median = await trends({
      series: [{ kind: "EventsNode", math: "median", math_property: "amount" }],
      dateRange: RANGE,
    });
    expect(median.results[0].data[5]).toBe(6);
    const bold = await trends({
      series: series({ math: "dau" }),
      dateRange: RANGE,
      trendsFilter: { display: "ActionsPie" },
    });
    expect(bold.results[0].aggregated_value).toBe(2);
    expect(bold.results[0].labels).toBeUndefined();
    const first = await trends({ series: series({ math: "first_time_for_user" }), dateRange: RANGE });
    // blabla's first sign up was on 2019-12-24, before the range; other's is on 2 Jan.
    expect(first.results[0].data).toEqual([0, 0, 0, 0, 0, 1, 0, 0]);
  });

  it("breaks down by a property, values past the limit summed as other", async () => {
    const body = await trends({
      series: [{ kind: "EventsNode", event: "sign up" }],
      dateRange: RANGE,
      breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 },
    });
    expect(body.results.map((r: any) => [r.breakdown_value, r.count])).toEqual([
      ["Chrome", 2],
      ["$$_posthog_breakdown_other_$$", 3],
    ]);
    expect(body.hasMore).toBe(true);
    const all = await trends({
      series: [{ kind: "EventsNode", event: "sign up" }],
      dateRange: RANGE,
      breakdownFilter: { breakdown: "$browser" },
    });
    expect(all.results.map((r: any) => [r.label, r.count])).toEqual([
      ["Chrome", 2],
      ["Safari", 1],
      ["$$_posthog_breakdown_null_$$", 2],
    ]);
  });

  it("applies formulas, cumulative display and compare", async () => {
    const formula = await trends({
      series: [
        { kind: "EventsNode", event: "sign up" },
        { kind: "EventsNode", event: "no events" },
      ],
      dateRange: RANGE,
      trendsFilter: { formula: "A / B" },
    });
    expect(formula.results).toHaveLength(1);
    expect(formula.results[0].label).toBe("Formula (A / B)");
    expect(formula.results[0].data).toEqual([0, 0, 0, 0, 0, 2, 0, 0]);
    const cumulative = await trends({
      series: [{ kind: "EventsNode", event: "sign up" }],
      dateRange: RANGE,
      trendsFilter: { display: "ActionsLineGraphCumulative" },
    });
    expect(cumulative.results[0].data).toEqual([0, 0, 0, 0, 3, 5, 5, 5]);
    expect(cumulative.results[0].count).toBe(5);
    const compare = await trends({
      series: [{ kind: "EventsNode", event: "sign up" }],
      dateRange: RANGE,
      compareFilter: { compare: true },
    });
    expect(compare.results.map((r: any) => [r.compare_label, r.count])).toEqual([
      ["current", 5],
      ["previous", 1],
    ]);
  });

  it("unwraps the toolkit's InsightVizNode and runs HogQL", async () => {
    const res = await call(`/api/environments/${project.id}/query/`, {
      method: "POST",
      body: {
        query: {
          kind: "InsightVizNode",
          source: {
            kind: "TrendsQuery",
            series: [{ kind: "EventsNode", event: "sign up", custom_name: "Sign ups" }],
            dateRange: RANGE,
          },
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.results[0].count).toBe(5);
    const hogql = await call(`/api/projects/${project.id}/query/`, {
      method: "POST",
      body: {
        query: {
          kind: "DataVisualizationNode",
          source: { kind: "HogQLQuery", query: "select event, count() from events group by event order by event" },
        },
      },
    });
    expect(hogql.status, hogql.text).toBe(200);
    expect(hogql.json.columns).toHaveLength(2);
    expect(hogql.json.results).toEqual([
      ["no events", 1],
      ["sign up", 6],
    ]);
    expect(hogql.json.hasMore).toBe(false);
  });

  it("never reads another project's events, and a key of another project is refused", async () => {
    const other = await createProject();
    const res = await call(`/api/environments/${other.id}/query/`, {
      method: "POST",
      body: { query: { kind: "TrendsQuery", series: [{ kind: "EventsNode" }], dateRange: RANGE } },
    });
    expect(res.json.results[0].count).toBe(0);
    const hogql = await call(`/api/environments/${other.id}/query/`, {
      method: "POST",
      body: { query: { kind: "HogQLQuery", query: "select count() from events" } },
    });
    expect(hogql.json.results).toEqual([[0]]);
    const names = await call(`/api/projects/${other.id}/event_definitions/`);
    expect(names.json.results).toEqual([]);
    const key = await createKey(["query:read", "event_definition:read"], [other.id]);
    for (const [path, method] of [
      [`/api/environments/${project.id}/query/`, "POST"],
      [`/api/projects/${project.id}/event_definitions/`, "GET"],
    ] as const) {
      const refused = await call(path, {
        method,
        key,
        body: method === "POST" ? { query: { kind: "HogQLQuery", query: "select 1" } } : undefined,
      });
      expect(refused.status, path).toBe(403);
    }
  });

  it("refuses what it does not compute, naming the field", async () => {
    const bad = async (query: Record<string, unknown>) => {
      const res = await call(`/api/environments/${project.id}/query/`, { method: "POST", body: { query } });
      expect(res.status, res.text).toBe(400);
      return envelope(res);
    };
    expect((await bad({ kind: "PathsQuery" })).attr).toBe("query__kind");
    expect((await bad({ kind: "TrendsQuery", series: [{ kind: "EventsNode", math: "hogql" }] })).attr).toBe(
      "query__series__0__math",
    );
    expect((await bad({ kind: "TrendsQuery", series: [{ kind: "ActionsNode", id: 1 }] })).detail).toMatch(/EventsNode/);
    expect((await bad({ kind: "TrendsQuery", series: [{ kind: "EventsNode" }], samplingFactor: 0.1 })).attr).toBe(
      "query__samplingFactor",
    );
    expect((await bad({ kind: "TrendsQuery", series: [{ kind: "EventsNode", math: "sum" }] })).attr).toBe(
      "query__series__0__math_property",
    );
  });
});
