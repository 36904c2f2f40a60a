import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";

let project: number;
const base = () => `/api/environments/${project}/endpoints`;
const hogql = (query: string, variables?: Record<string, unknown>) => ({
  kind: "HogQLQuery",
  query,
  ...(variables ? { variables } : {}),
});

beforeAll(async () => {
  project = (await createProject()).id;
});

describe("endpoints: create, retrieve, list, delete", () => {
  it("creates with 201 and the PostHog record", async () => {
    const res = await call(`${base()}/`, {
      method: "POST",
      body: { name: "daily_signups", query: hogql("select count() from events"), description: "signups" },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: "daily_signups",
      description: "signups",
      query: { kind: "HogQLQuery", query: "select count() from events" },
      is_active: true,
      cache_age_seconds: null,
      endpoint_path: `/api/environments/${project}/endpoints/daily_signups/run`,
      is_materialized: false,
      current_version: 1,
      versions_count: 1,
      derived_from_insight: null,
      materialization: { can_materialize: true, reason: null },
    });
    expect(res.json.url).toBe(`http://edgehog.test/api/environments/${project}/endpoints/daily_signups/run`);
    const got = await call(`${base()}/daily_signups`);
    expect(got.status).toBe(200);
    expect(got.json.id).toBe(res.json.id);
    // the /api/projects alias serves the same operations
    expect((await call(`/api/projects/${project}/endpoints/daily_signups/`)).json.id).toBe(res.json.id);
  });

  it("validates in PostHog's order", async () => {
    const cases: [unknown, string, string][] = [
      [{ name: "x" }, "query", "Must specify query"],
      [{ query: hogql("select 1") }, "name", "Endpoint must have a name."],
      [{ name: "1abc", query: hogql("select 1") }, "name", "Endpoint name must start with a letter"],
      [{ name: "a b", query: hogql("select 1") }, "name", "Endpoint name must start with a letter"],
      [{ name: "ok", query: hogql("selet 100") }, "query", "Invalid HogQL query"],
      [{ name: "ok", query: { kind: "TrendsQuery", series: [] } }, "query__series", "at least one series"],
      [{ name: "ok", query: { kind: "FunnelsQuery", series: [] } }, "query__series", "at least one step"],
      [{ name: "ok", query: { kind: "PathsQuery" } }, "query__kind", "Unsupported query kind: PathsQuery"],
      [
        { name: "ok", query: hogql("select 1"), cache_age_seconds: 299 },
        "cache_age_seconds",
        "Cache age must be between 300 and 86400 seconds.",
      ],
      [
        { name: "ok", query: hogql("select 1"), cache_age_seconds: 86401 },
        "cache_age_seconds",
        "Cache age must be between 300 and 86400 seconds.",
      ],
      [{ name: "ok", query: hogql("select {variables.x}") }, "query", "undefined variable(s): x"],
      [{ name: "ok", query: hogql("select * from sqlite_master") }, "query", "sqlite_master"],
      [{ name: "ok", query: hogql(`select 1 ${" ".repeat(20_000)}`) }, "query", "longer than 20000"],
      [
        { name: "ok", query: hogql("select 1"), is_active: false, is_materialized: true },
        "is_materialized",
        "inactive",
      ],
      [{ name: "ok", query: hogql("select 1"), unknown_field: 1 }, "unknown_field", ""],
      [{ name: "daily_signups", query: hogql("select 1") }, "name", "already exists"],
    ];
    for (const [body, attr, detail] of cases) {
      const res = await call(`${base()}/`, { method: "POST", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = envelope(res);
      expect(err.type).toBe("validation_error");
      if (attr !== "unknown_field") expect(err.attr, JSON.stringify(body)).toBe(attr);
      expect(err.detail).toContain(detail);
    }
    expect((await call(`${base()}/ok`)).status).toBe(404);
  });

  it("lists (with is_active filter) and deletes with 204", async () => {
    await call(`${base()}/`, {
      method: "POST",
      body: { name: "to-delete", query: hogql("select 1"), is_active: false },
    });
    const all = await call(`${base()}/`);
    expect(all.json.count).toBeGreaterThanOrEqual(2);
    expect(all.json.results.map((e: any) => e.name)).toContain("to-delete");
    const page = await call(`${base()}/?limit=1&offset=1`);
    expect(page.json).toMatchObject({
      count: all.json.count,
      results: [{ name: all.json.results[1].name, versions_count: 1, current_version: 1 }],
    });
    expect(page.json.previous).toContain("offset=0");
    const active = await call(`${base()}/?is_active=true`);
    expect(active.json.results.map((e: any) => e.name)).not.toContain("to-delete");
    const del = await call(`${base()}/to-delete/`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await call(`${base()}/to-delete/`)).status).toBe(404);
    expect((await call(`${base()}/to-delete/run`)).status).toBe(404);
  });

  it("keeps projects apart and checks scopes", async () => {
    const other = (await createProject()).id;
    expect((await call(`/api/environments/${other}/endpoints/daily_signups`)).status).toBe(404);
    const reader = await createKey(["endpoint:read"]);
    expect((await call(`${base()}/daily_signups`, { key: reader })).status).toBe(200);
    expect((await call(`${base()}/daily_signups/run`, { key: reader })).status).toBe(200);
    expect((await call(`${base()}/daily_signups/materialization_status`, { key: reader })).status).toBe(200);
    const denied = await call(`${base()}/`, {
      method: "POST",
      key: reader,
      body: { name: "nope", query: hogql("select 1") },
    });
    expect(denied.status).toBe(403);
    expect(envelope(denied).detail).toContain("endpoint:write");
    const none = await createKey(["person:read"]);
    expect(
      (await call(`${base()}/last_execution_times`, { method: "POST", key: none, body: { names: [] } })).status,
    ).toBe(403);
  });
});

describe("versions", () => {
  it("creates a version only when the query changes", async () => {
    await call(`${base()}/`, {
      method: "POST",
      body: { name: "versioned", query: hogql("select 1 as one"), description: "first", cache_age_seconds: 600 },
    });
    let res = await call(`${base()}/versioned`, {
      method: "PATCH",
      body: { description: "changed", cache_age_seconds: 900, query: hogql("select 1 as one") },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ current_version: 1, description: "changed", cache_age_seconds: 900 });
    res = await call(`${base()}/versioned`, {
      method: "PATCH",
      body: { query: { query: "select 2 as two", kind: "HogQLQuery", name: null } },
    });
    expect(res.json).toMatchObject({
      current_version: 2,
      versions_count: 2,
      description: "changed",
      cache_age_seconds: 900,
      query: { query: "select 2 as two" },
    });
    res = await call(`${base()}/versioned`, { method: "PUT", body: { query: hogql("select 2 as two") } });
    expect(res.json.current_version).toBe(2);

    const v1 = await call(`${base()}/versioned?version=1`);
    expect(v1.json).toMatchObject({
      version: 1,
      query: { query: "select 1 as one" },
      is_active: true,
      endpoint_is_active: true,
      current_version: 2,
    });
    expect(v1.json.version_id).toBeTypeOf("string");
    expect((await call(`${base()}/versioned?version=9`)).status).toBe(404);
    const bad = await call(`${base()}/versioned?version=abc`);
    expect(bad.status).toBe(400);
    expect(envelope(bad).detail).toBe("Invalid version parameter: abc");

    const list = await call(`${base()}/versioned/versions`);
    expect(list.json.results.map((v: any) => v.version)).toEqual([2, 1]);

    // runs of version 1 and 2
    expect((await call(`${base()}/versioned/run?version=1`)).json.results).toEqual([[1]]);
    expect((await call(`${base()}/versioned/run`, { method: "POST", body: { version: 2 } })).json).toMatchObject({
      results: [[2]],
      columns: ["two"],
      endpoint_version: 2,
    });
  });

  it("targets one version: metadata only, never the query; inactive versions cannot run", async () => {
    let res = await call(`${base()}/versioned?version=1`, { method: "PATCH", body: { query: hogql("select 3") } });
    expect(res.status).toBe(400);
    expect(envelope(res).attr).toBe("query");
    res = await call(`${base()}/versioned`, { method: "PATCH", body: { version: 7, description: "x" } });
    expect(res.status).toBe(400);
    expect(envelope(res).detail).toBe("Version 7 not found");
    res = await call(`${base()}/versioned?version=1`, {
      method: "PATCH",
      body: { is_active: false, description: "old" },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ version: 1, is_active: false, endpoint_is_active: true, description: "old" });
    expect((await call(`${base()}/versioned`)).json.description).toBe("changed");
    const run = await call(`${base()}/versioned/run?version=1`);
    expect(run.status).toBe(400);
    expect(envelope(run).detail).toBe("Version 1 is inactive and cannot be executed.");
    expect((await call(`${base()}/versioned/run?version=2`)).status).toBe(200);
  });

  it("deactivates the endpoint: runs are 404", async () => {
    const res = await call(`${base()}/versioned`, { method: "PATCH", body: { is_active: false } });
    expect(res.json.is_active).toBe(false);
    expect((await call(`${base()}/versioned/run`)).status).toBe(404);
    expect((await call(`${base()}/versioned`)).status).toBe(200);
    await call(`${base()}/versioned`, { method: "PATCH", body: { is_active: true } });
    expect((await call(`${base()}/versioned/run`)).status).toBe(200);
  });

  it("validates update inputs", async () => {
    const cases: [unknown, string][] = [
      [{ cache_age_seconds: 10 }, "cache_age_seconds"],
      [{ is_materialized: false, sync_frequency: "1hour" }, "sync_frequency"],
      [{ is_active: false, is_materialized: true }, "is_materialized"],
      [{ sync_frequency: "2hour" }, "sync_frequency"],
      [{ query: hogql("select * from projects") }, "query"],
    ];
    for (const [body, attr] of cases) {
      const res = await call(`${base()}/versioned`, { method: "PATCH", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(envelope(res).attr).toBe(attr);
    }
    expect((await call(`${base()}/versioned`)).json.current_version).toBe(2);
  });
});
