import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { EndpointMaterializer } from "../../src/endpoints/materializer";
import { call, createProject, envelope } from "../helpers";
import { seed } from "./fixtures";

/** Insight endpoints: a TrendsQuery saved as an endpoint, run with overrides and variables, materialized. */
let project: number;
const base = () => `/api/environments/${project}/endpoints`;
const ns = env.ENDPOINT_MATERIALIZER as unknown as DurableObjectNamespace<EndpointMaterializer>;
const stubOf = (endpointId: string) => ns.get(ns.idFromName(endpointId));

const BROWSERS = ["Chrome", "Firefox", "Safari"];
const TRENDS = {
  kind: "TrendsQuery",
  series: [{ kind: "EventsNode", event: "$pageview" }],
  dateRange: { date_from: "2026-02-01", date_to: "2026-02-04" },
  breakdownFilter: { breakdown: "$browser", breakdown_type: "event" },
};

async function create(name: string, body: Record<string, unknown>) {
  const res = await call(`${base()}/`, { method: "POST", body: { name, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; query: unknown; materialization: Record<string, unknown> };
}
const run = async (name: string, body: Record<string, unknown> = {}) => {
  const res = await call(`${base()}/${name}/run`, { method: "POST", body });
  expect(res.status, res.text).toBe(200);
  return res.json;
};
/** The rows of the same question asked in HogQL through the Query API. */
async function hogqlRows(query: string): Promise<unknown[][]> {
  const res = await call(`/api/environments/${project}/query/`, {
    method: "POST",
    body: { query: { kind: "HogQLQuery", query } },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.results;
}
const byValue = (results: any[]) => Object.fromEntries(results.map((r) => [r.breakdown_value, r.data]));

async function settle(endpointId: string) {
  await runDurableObjectAlarm(stubOf(endpointId));
  for (let i = 0; i < 100; i++) {
    const s = await stubOf(endpointId).status(1);
    if (s?.status !== "Running") return s;
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  project = (await createProject()).id;
  // Day d (1..4) of February: 3 × d pageviews, browsers in turn; one signup a day.
  const events = [];
  for (let d = 1; d <= 4; d++) {
    for (let i = 0; i < 3 * d; i++)
      events.push({
        event: "$pageview",
        distinctId: `u${i}`,
        timestamp: new Date(Date.UTC(2026, 1, d, 8, i)).toISOString(),
        properties: { $browser: BROWSERS[(i + d) % 3], plan: i % 2 ? "pro" : "free" },
      });
    events.push({ event: "signup", distinctId: `u${d}`, timestamp: new Date(Date.UTC(2026, 1, d, 9)).toISOString() });
  }
  // u<i> is a person from the day of their first pageview (day ⌊i/3⌋ + 1).
  const persons = Array.from({ length: 12 }, (_, i) => ({
    distinctIds: [`u${i}`],
    createdAt: new Date(Date.UTC(2026, 1, Math.floor(i / 3) + 1)).toISOString(),
  }));
  await seed(project, { persons, events });
});

describe("insight endpoints", () => {
  it("saves a TrendsQuery, runs it, and gives the numbers HogQL gives", async () => {
    const created = await create("browsers", { query: TRENDS });
    expect(created.query).toMatchObject({ kind: "TrendsQuery", breakdownFilter: { breakdown: "$browser" } });
    const body = await run("browsers");
    expect(body.endpoint_version).toBe(1);
    const hogql = await hogqlRows(
      "select properties.$browser as b, toDate(timestamp) as d, count() from events where event = '$pageview' group by b, d order by b, d",
    );
    const expected: Record<string, number[]> = {};
    for (const [b, d, n] of hogql as [string, string, number][]) {
      expected[b] ??= [0, 0, 0, 0];
      expected[b][Number(String(d).slice(8, 10)) - 1] = n;
    }
    expect(byValue(body.results)).toEqual(expected);
    // GET runs too, and a second run is the cached result.
    const get = await call(`${base()}/browsers/run`);
    expect(get.status).toBe(200);
    expect(get.json.is_cached).toBe(true);
    expect(byValue(get.json.results)).toEqual(expected);
  });

  it("applies filters_override, the date variables and the breakdown variable", async () => {
    await create("browsers-vars", { query: TRENDS });
    const all = byValue((await run("browsers-vars")).results);
    const chrome = await run("browsers-vars", { variables: { $browser: "Chrome" } });
    expect(chrome.results.map((r: any) => r.breakdown_value)).toEqual(["Chrome"]);
    expect(chrome.results[0].data).toEqual(all.Chrome);
    const dated = await run("browsers-vars", { variables: { date_from: "2026-02-03", date_to: "2026-02-04" } });
    expect(dated.results[0].days).toEqual(["2026-02-03", "2026-02-04"]);
    const pro = await run("browsers-vars", {
      filters_override: { properties: [{ key: "plan", value: "pro", type: "event" }], date_from: "2026-02-04" },
    });
    // The same question in HogQL.
    const hogql = await hogqlRows(
      "select properties.$browser as b, count() from events where event = '$pageview' and properties.plan = 'pro' and timestamp >= '2026-02-04' and timestamp < '2026-02-05' group by b order by b",
    );
    expect(
      pro.results.map((r: any) => [r.breakdown_value, r.count]).sort((a: any[], b: any[]) => (a[0] < b[0] ? -1 : 1)),
    ).toEqual(hogql);
    expect(pro.results.reduce((n: number, r: any) => n + r.count, 0)).toBe(6); // 12 pageviews on 4 Feb, half "pro"
    const unknown = await call(`${base()}/browsers-vars/run`, {
      method: "POST",
      body: { variables: { country: "x" } },
    });
    expect(unknown.status).toBe(400);
    expect(envelope(unknown).detail).toBe("Unknown variable(s): country");
    const limit = await call(`${base()}/browsers-vars/run`, { method: "POST", body: { limit: 5 } });
    expect(limit.status).toBe(400);
    expect(envelope(limit).detail).toBe("Limit parameter is only supported for HogQLQuery, not TrendsQuery");
  });

  it("materializes the result and answers runs and breakdown values from it", async () => {
    const created = await create("browsers-mat", { query: TRENDS, is_materialized: true, sync_frequency: "1hour" });
    expect(created.materialization).toMatchObject({ can_materialize: true });
    const status = await settle(created.id);
    expect(status).toMatchObject({ status: "Completed", error: "" });
    const inline = await run("browsers-mat", { refresh: "direct" });
    const stored = await run("browsers-mat");
    expect(stored.endpoint_materialized).toBe(true);
    expect(inline).not.toHaveProperty("endpoint_materialized");
    expect(byValue(stored.results)).toEqual(byValue(inline.results));
    for (const browser of [...BROWSERS, "Opera"]) {
      const fromStore = await run("browsers-mat", { variables: { $browser: browser } });
      const computed = await run("browsers-mat", { variables: { $browser: browser }, refresh: "direct" });
      expect(fromStore.endpoint_materialized, browser).toBe(true);
      expect(fromStore.results.map((r: any) => [r.breakdown_value, r.data])).toEqual(
        computed.results.map((r: any) => [r.breakdown_value, r.data]),
      );
    }
    // A breakdowns list reports each value as a list: the variable still finds its series.
    const listed = await create("browsers-mat-list", {
      query: { ...TRENDS, breakdownFilter: { breakdowns: [{ property: "$browser", type: "event" }] } },
      is_materialized: true,
    });
    await settle(listed.id);
    const firefox = await run("browsers-mat-list", { variables: { $browser: "Firefox" } });
    expect(firefox.endpoint_materialized).toBe(true);
    expect(firefox.results.map((r: any) => r.breakdown_value)).toEqual([["Firefox"]]);
    expect(firefox.results[0].data).toEqual(byValue(inline.results).Firefox);
    // A date variable asks another question: computed, not read.
    const dated = await run("browsers-mat", { variables: { date_from: "2026-02-02" } });
    expect(dated).not.toHaveProperty("endpoint_materialized");
  });

  it("makes a version per changed query and records its executions", async () => {
    await create("browsers-versions", { query: TRENDS });
    const patched = await call(`${base()}/browsers-versions/`, {
      method: "PATCH",
      body: { query: { ...TRENDS, series: [{ kind: "EventsNode", event: "signup" }] } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.current_version).toBe(2);
    const v2 = await run("browsers-versions");
    expect(v2.endpoint_version).toBe(2);
    expect(v2.results.reduce((n: number, r: any) => n + r.count, 0)).toBe(4);
    const v1 = await run("browsers-versions", { version: 1 });
    expect(v1.results.reduce((n: number, r: any) => n + r.count, 0)).toBe(30);
    const times = await call(`${base()}/last_execution_times`, {
      method: "POST",
      body: { names: ["browsers-versions"] },
    });
    expect(times.json.query_status.results[0][0]).toBe("browsers-versions");
  });

  it("describes its variables in openapi.json and refuses to materialize compare", async () => {
    await create("browsers-doc", { query: TRENDS });
    const doc = (await call(`${base()}/browsers-doc/openapi.json`)).json;
    const variables = doc.components.schemas.Variables;
    expect(Object.keys(variables.properties).sort()).toEqual(["$browser", "date_from", "date_to"]);
    expect(variables.additionalProperties).toBe(false);
    expect(doc.components.schemas.EndpointRunRequest.properties).not.toHaveProperty("limit");
    // A list of series (or steps), or a funnel time-to-convert object.
    expect(doc.components.schemas.EndpointRunResponse.properties.results.anyOf).toHaveLength(2);
    const compare = await call(`${base()}/`, {
      method: "POST",
      body: { name: "compare-mat", query: { ...TRENDS, compareFilter: { compare: true } }, is_materialized: true },
    });
    expect(compare.status).toBe(400);
    expect(envelope(compare).detail).toMatch(/Compare mode is not supported for materialized endpoints/);
    const bad = await call(`${base()}/`, {
      method: "POST",
      body: { name: "bad-insight", query: { ...TRENDS, series: [{ kind: "EventsNode", math: "hogql" }] } },
    });
    expect(bad.status).toBe(400);
    expect(envelope(bad).attr).toBe("query__series__0__math");
  });

  it("saves FunnelsQuery, LifecycleQuery, StickinessQuery and RetentionQuery insights: runs, materialized reads and /query/ agree", async () => {
    const range = { date_from: "2026-02-01", date_to: "2026-02-04" };
    const lifecycle = {
      kind: "LifecycleQuery",
      series: [{ kind: "EventsNode", event: "$pageview" }],
      dateRange: range,
    };
    const stickiness = {
      kind: "StickinessQuery",
      series: [
        { kind: "EventsNode", event: "$pageview" },
        { kind: "EventsNode", event: "signup" },
      ],
      dateRange: range,
    };
    const retention = {
      kind: "RetentionQuery",
      dateRange: range,
      retentionFilter: { period: "Day", totalIntervals: 4, targetEntity: { id: "$pageview", type: "events" } },
    };
    const funnel = {
      kind: "FunnelsQuery",
      series: [
        { kind: "EventsNode", event: "$pageview" },
        { kind: "EventsNode", event: "signup" },
      ],
      dateRange: range,
    };
    for (const [name, query] of [
      ["funnel-mat", funnel],
      ["lifecycle-mat", lifecycle],
      ["stickiness-mat", stickiness],
      ["retention-mat", retention],
    ] as const) {
      const created = await create(name, { query, is_materialized: true });
      expect(created.materialization, name).toMatchObject({ can_materialize: true });
      expect(await settle(created.id)).toMatchObject({ status: "Completed", error: "" });
      const stored = await run(name);
      expect(stored.endpoint_materialized, name).toBe(true);
      const direct = await call(`/api/environments/${project}/query/`, { method: "POST", body: { query } });
      expect(direct.status, direct.text).toBe(200);
      expect(stored.results, name).toEqual(direct.json.results);
      if (query.kind === "RetentionQuery" || query.kind === "FunnelsQuery") continue;
      // A dashboard breakdown does not apply to lifecycle and stickiness (PostHog ignores it too).
      const overridden = await run(name, {
        filters_override: { breakdown_filter: { breakdown: "$browser" } },
        refresh: "direct",
      });
      expect(overridden.results, name).toEqual(direct.json.results);
    }
    // A dashboard breakdown applies to a funnel: a list of steps per value.
    const byBrowser = await run("funnel-mat", {
      filters_override: { breakdown_filter: { breakdown: "$browser" } },
      refresh: "direct",
    });
    const perValue = await call(`/api/environments/${project}/query/`, {
      method: "POST",
      body: { query: { ...funnel, breakdownFilter: { breakdown: "$browser" } } },
    });
    expect(byBrowser.results).toEqual(perValue.json.results);
    expect(Array.isArray(byBrowser.results[0])).toBe(true);
    // u0..u2 view on all four days, u9..u11 on the last only; u1..u4 sign up once each.
    const sticky = await run("stickiness-mat");
    expect(sticky.results.map((r: any) => [r.label, r.data])).toEqual([
      ["$pageview", [3, 3, 3, 3]],
      ["signup", [4, 0, 0, 0]],
    ]);
    const statuses = await run("lifecycle-mat");
    expect(statuses.results.map((r: any) => [r.status, r.data])).toEqual([
      ["new", [3, 3, 3, 3]],
      ["returning", [0, 3, 6, 9]],
      ["resurrecting", [0, 0, 0, 0]],
      ["dormant", [0, 0, 0, 0]],
    ]);
    // Each day's viewers (recurring cohorts) view again on every later day of the range.
    const cohorts = await run("retention-mat");
    expect(cohorts.results.map((r: any) => r.values.map((v: any) => v.count))).toEqual([
      [3, 3, 3, 3],
      [6, 6, 6, 0],
      [9, 9, 0, 0],
      [12, 0, 0, 0],
    ]);
  });
});
