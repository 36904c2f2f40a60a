import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { COMPILER_VERSION } from "../../src/hogql/compile";
import { call, createProject, envelope, onClickHouse } from "../helpers";
import { seed } from "./fixtures";

let project: number;
let other: number;
const base = () => `/api/environments/${project}/endpoints`;
const create = (
  name: string,
  query: string,
  extra: Record<string, unknown> = {},
  variables?: Record<string, unknown>,
) =>
  call(`${base()}/`, {
    method: "POST",
    body: { name, query: { kind: "HogQLQuery", query, ...(variables ? { variables } : {}) }, ...extra },
  });
const run = (name: string, body?: unknown, qs = "") =>
  call(`${base()}/${name}/run${qs}`, body === undefined ? {} : { method: "POST", body });

beforeAll(async () => {
  project = (await createProject("run tests", "Europe/Paris")).id;
  other = (await createProject()).id;
  const events = Array.from({ length: 150 }, (_, i) => ({
    event: i % 3 === 0 ? "signup" : "$pageview",
    distinctId: `user-${i % 10}`,
    timestamp: new Date(Date.UTC(2026, 0, 1 + (i % 5), 12, i % 60)).toISOString(),
    properties: { $browser: i % 2 ? "Chrome" : "Safari", country: i % 4 === 0 ? "FR" : "US" },
  }));
  await seed(project, { events });
  await seed(other, {
    events: [
      { event: "secret", distinctId: "x", timestamp: "2026-01-01T00:00:00.000Z", properties: { country: "FR" } },
    ],
  });
  const variables = {
    "0190b0c4-0000-0000-0000-000000000001": {
      variableId: "0190b0c4-0000-0000-0000-000000000001",
      code_name: "country",
      value: "US",
    },
  };
  await create(
    "by_country",
    "select toDate(timestamp) as day, count() as c from events where properties.country = {variables.country} group by day order by day",
    {},
    variables,
  );
  await create("all_events", "select event, distinct_id from events order by timestamp, distinct_id");
  await create("limited", "select event from events order by timestamp limit 5 offset 2");
});

describe("run", () => {
  it("answers PostHog's response shape with the project's timezone", async () => {
    const res = await run("by_country");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      columns: ["day", "c"],
      types: [
        ["day", "Date"],
        // ClickHouse names its own type, as PostHog reports it; D1's types are inferred from the values.
        ["c", onClickHouse ? "UInt64" : "Int64"],
      ],
      hasMore: false,
      limit: 100,
      offset: 0,
      is_cached: false,
      timezone: "Europe/Paris",
      endpoint_version: 1,
      query_status: null,
      error: null,
    });
    expect(res.json.results).toHaveLength(5);
    expect(res.json.last_refresh).toMatch(/Z$/);
    expect(res.json).not.toHaveProperty("sql");
    expect(res.json).not.toHaveProperty("timings");
  });

  it("binds variables: stored default, request value, explicit null; an injection stays a value", async () => {
    const us = (await run("by_country", { refresh: "force" })).json.results;
    const sum = (rows: [string, number][]) => rows.reduce((a, r) => a + r[1], 0);
    expect(sum(us)).toBe(112);
    expect(sum((await run("by_country", { variables: { country: "FR" } })).json.results)).toBe(38);
    expect((await run("by_country", { variables: { country: null } })).json.results).toEqual([]);
    const injected = await run("by_country", { variables: { country: "FR' OR 1=1 --" } });
    expect(injected.status).toBe(200);
    expect(injected.json.results).toEqual([]);
    const alsoInjected = await run("by_country", {
      variables: { country: "x') UNION SELECT name, 1 FROM sqlite_master --" },
    });
    expect(alsoInjected.json.results).toEqual([]);
  });

  it("binds List variables compared with IN as one JSON array", async () => {
    const variables = { l: { code_name: "countries", type: "List", value: ["FR"] } };
    await create(
      "by_countries",
      "select count() as c from events where properties.country in {variables.countries}",
      {},
      variables,
    );
    expect((await run("by_countries")).json.results).toEqual([[38]]);
    expect((await run("by_countries", { variables: { countries: ["FR", "US"] } })).json.results).toEqual([[150]]);
    expect((await run("by_countries", { variables: { countries: "US" } })).json.results).toEqual([[112]]);
    expect((await run("by_countries", { variables: { countries: [] } })).json.results).toEqual([[0]]);
    expect((await run("by_countries", { variables: { countries: ["') OR 1=1 --"] } })).json.results).toEqual([[0]]);
    expect((await run("by_countries", { variables: { countries: [{ a: 1 }] } })).status).toBe(400);
    expect((await run("by_country", { variables: { country: ["FR"] } })).status).toBe(400);
    const doc = (await call(`${base()}/by_countries/openapi.json`)).json;
    expect(doc.components.schemas.Variables.properties.countries).toMatchObject({
      type: "array",
      items: { type: "string" },
      example: ["FR"],
    });
  });

  it("refuses unknown variables, overrides and bad values", async () => {
    let res = await run("by_country", { variables: { zeta: 1, alpha: 2 } });
    expect(res.status).toBe(400);
    expect(envelope(res)).toMatchObject({ detail: "Unknown variable(s): alpha, zeta", attr: "variables" });
    res = await run("by_country", { query_override: { query: "select 1" } });
    expect(envelope(res)).toMatchObject({
      detail: "query_override is not allowed. Use variables instead.",
      attr: "query_override",
    });
    res = await run("by_country", { filters_override: { date_from: "-7d" } });
    expect(res.status).toBe(400);
    expect(envelope(res).attr).toBe("filters_override");
    res = await run("by_country", { variables: { country: { a: 1 } } });
    expect(res.status).toBe(400);
    res = await run("by_country", { refresh: "blocking" });
    expect(res.status).toBe(400);
    res = await run("by_country", { refresh: "direct" });
    expect(envelope(res).detail).toContain("'direct' refresh mode is only valid for materialized endpoints");
    res = await run("by_country", { nope: true });
    expect(res.status).toBe(400);
  });

  it("404s for unknown endpoints and versions; 400 for bad versions and limits", async () => {
    expect((await run("missing")).status).toBe(404);
    let res = await run("by_country", { version: 3 });
    expect(res.status).toBe(404);
    expect(envelope(res).detail).toBe("Version 3 not found for endpoint 'by_country'");
    res = await run("by_country", undefined, "?version=x");
    expect(envelope(res).detail).toBe("Invalid version parameter: x");
    for (const limit of [0, -1, "abc", 1.5, 50_001]) {
      res = await run("all_events", { limit });
      expect(res.status, String(limit)).toBe(400);
      expect(envelope(res).attr).toBe("limit");
    }
    expect((await run("all_events", undefined, "?limit=0")).status).toBe(400);
    expect((await call(`/api/environments/${other}/endpoints/by_country/run`)).status).toBe(404);
  });

  it("always applies a LIMIT (default 100) and reports hasMore", async () => {
    let res = await run("all_events");
    expect(res.json.results).toHaveLength(100);
    expect(res.json).toMatchObject({ hasMore: true, limit: 100 });
    res = await run("all_events", { limit: 149 });
    expect(res.json).toMatchObject({ hasMore: true, limit: 149 });
    res = await run("all_events", { limit: 150 });
    expect(res.json.results).toHaveLength(150);
    expect(res.json.hasMore).toBe(false);
    res = await run("all_events", undefined, "?limit=3");
    expect(res.json.results).toHaveLength(3);
    // a query's own LIMIT caps the requested one; its OFFSET applies
    res = await run("limited", { limit: 50 });
    expect(res.json).toMatchObject({ limit: 5, offset: 2, hasMore: true });
    expect(res.json.results).toHaveLength(5);
    res = await run("limited", { limit: 2 });
    expect(res.json).toMatchObject({ limit: 2, hasMore: true });
  });

  it("caches for cache_age_seconds; force recomputes; debug shows the compiled SQL", async () => {
    await create("cached", "select count() as c from events where event = 'late'", { cache_age_seconds: 600 });
    const first = await run("cached");
    expect(first.json).toMatchObject({ is_cached: false, results: [[0]] });
    await seed(project, { events: [{ event: "late", distinctId: "z", timestamp: "2026-01-09T00:00:00.000Z" }] });
    const second = await run("cached");
    expect(second.json).toMatchObject({ is_cached: true, results: [[0]], last_refresh: first.json.last_refresh });
    const forced = await run("cached", { refresh: "force" });
    expect(forced.json).toMatchObject({ is_cached: false, results: [[1]] });
    const debug = await run("cached", { debug: true });
    expect(debug.json.is_cached).toBe(true);
    expect(debug.json.sql).toContain(onClickHouse ? "e.team_id = {team_id:Int64}" : "project_id = ?1");
    expect(debug.json.hogql).toBe("select count() as c from events where event = 'late'");
    expect(debug.json.timings[0]).toHaveProperty("t");
    expect(debug.json.cache_key).toBeTypeOf("string");
  });

  it("never reads another project's rows or tables outside the catalog", async () => {
    for (const query of [
      `select count() from events where project_id = ${other}`,
      `select count() from events where team_id = ${other}`,
      "select name from sqlite_master",
      "select count() from person_distinct_ids",
      "select count() from events e join endpoint_versions v on 1 = 1",
      "PRAGMA table_list",
    ]) {
      const res = await create(`probe_${Math.random().toString(36).slice(2, 8)}`, query);
      expect(res.status, query).toBe(400);
      expect(envelope(res).attr).toBe("query");
    }
    const res = await create(
      "everything",
      "select event, count() as c from events where 1 = 1 or event = 'secret' group by event order by event",
    );
    expect(res.status).toBe(201);
    const events = (await run("everything")).json.results.map((r: unknown[]) => r[0]);
    expect(events).not.toContain("secret");
    expect(events).toEqual(["$pageview", "late", "signup"]);
  });

  it("recompiles, once, a plan saved by an older compiler", async () => {
    await create("old_plan", "select count() as c from events where event = 'signup'");
    await env.DB.prepare(
      "UPDATE endpoint_versions SET compiled = json_set(compiled, '$.compiler', 0, '$.sql', 'SELECT 42') WHERE endpoint_id = (SELECT id FROM endpoints WHERE name = 'old_plan')",
    ).run();
    const res = await run("old_plan");
    expect(res.json.results).toEqual([[50]]);
    const stored = await env.DB.prepare(
      "SELECT json_extract(compiled, '$.compiler') AS v FROM endpoint_versions WHERE endpoint_id = (SELECT id FROM endpoints WHERE name = 'old_plan')",
    ).first<{ v: number }>();
    expect(stored?.v).toBe(COMPILER_VERSION);
  });

  it("records last execution times (past 6 months)", async () => {
    const res = await call(`${base()}/last_execution_times`, {
      method: "POST",
      body: { names: ["by_country", "never-run", "all_events"] },
    });
    expect(res.status).toBe(200);
    expect(res.json.query_status).toMatchObject({ complete: true, error: false, team_id: project, query_async: true });
    expect(res.json.query_status.results.map((r: string[]) => r[0])).toEqual(["all_events", "by_country"]);
    expect(Date.parse(res.json.query_status.results[0][1])).toBeGreaterThan(Date.now() - 60_000);
    const empty = await call(`${base()}/last_execution_times/`, { method: "POST", body: { names: [] } });
    expect(empty.json.query_status.results).toBeNull();
    const bad = await call(`${base()}/last_execution_times`, { method: "POST", body: { names: ["bad name"] } });
    expect(envelope(bad).detail).toBe("Invalid endpoint name: bad name");
    expect((await call(`${base()}/by_country`)).json.last_executed_at).toMatch(/Z$/);
  });

  it("answers last_execution_times for the maximum of 100 names (one bound parameter for the list)", async () => {
    const names = ["all_events", "by_country", ...Array.from({ length: 98 }, (_, i) => `absent_${i}`)];
    const res = await call(`${base()}/last_execution_times`, { method: "POST", body: { names } });
    expect(res.status).toBe(200);
    expect(res.json.query_status.results.map((r: string[]) => r[0])).toEqual(["all_events", "by_country"]);
    const tooMany = await call(`${base()}/last_execution_times`, {
      method: "POST",
      body: { names: [...names, "one_more"] },
    });
    expect(tooMany.status).toBe(400);
  });
});
