import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { EndpointMaterializer } from "../../src/endpoints/materializer";
import { call, createProject, envelope, onClickHouse } from "../helpers";
import { seed } from "./fixtures";

let project: number;
const base = () => `/api/environments/${project}/endpoints`;
const ns = env.ENDPOINT_MATERIALIZER as unknown as DurableObjectNamespace<EndpointMaterializer>;
const stubOf = (endpointId: string) => ns.get(ns.idFromName(endpointId));
const variables = { v1: { variableId: "v1", code_name: "country", value: "US" } };
const QUERY =
  "select toDate(timestamp) as day, count() as c from events where properties.country = {variables.country} and event = 'signup' group by day order by day";

async function create(name: string, body: Record<string, unknown>) {
  const res = await call(`${base()}/`, { method: "POST", body: { name, ...body } });
  if (res.status !== 201) throw new Error(res.text);
  return res.json as { id: string; materialization: Record<string, unknown> };
}
const run = (name: string, body: unknown = {}) => call(`${base()}/${name}/run`, { method: "POST", body });
const status = async (name: string, version?: number) =>
  (await call(`${base()}/${name}/materialization_status${version ? `?version=${version}` : ""}`)).json;

/** Lets the refresh scheduled for "now" run (the alarm may already have fired on its own). */
async function settle(endpointId: string, version = 1) {
  await runDurableObjectAlarm(stubOf(endpointId));
  for (let i = 0; i < 50; i++) {
    const s = await stubOf(endpointId).status(version);
    if (s?.status !== "Running") return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  project = (await createProject()).id;
  await seed(project, {
    events: Array.from({ length: 60 }, (_, i) => ({
      event: i % 2 ? "signup" : "$pageview",
      distinctId: `u${i}`,
      timestamp: new Date(Date.UTC(2026, 1, 1 + (i % 3), 8)).toISOString(),
      properties: { country: ["US", "FR", "DE"][i % 3] },
    })),
  });
});

describe("materialization", () => {
  it("materializes with variables as columns and serves runs from it", async () => {
    const created = await create("mat", {
      query: { kind: "HogQLQuery", query: QUERY, variables },
      is_materialized: true,
      sync_frequency: "1hour",
    });
    expect(created.materialization).toMatchObject({
      status: "Running",
      can_materialize: true,
      sync_frequency: "1hour",
    });
    await settle(created.id);
    const s = await status("mat");
    expect(s).toMatchObject({ status: "Completed", can_materialize: true, error: "", sync_frequency: "1hour" });
    expect(Date.parse(s.last_materialized_at)).toBeGreaterThan(Date.now() - 60_000);

    for (const country of ["US", "FR", "DE", "XX"]) {
      const fromTable = await run("mat", { variables: { country }, refresh: "force" });
      const inline = await run("mat", { variables: { country }, refresh: "direct" });
      expect(fromTable.json.endpoint_materialized).toBe(true);
      expect(fromTable.json.endpoint_materialized_at).toBe(s.last_materialized_at);
      expect(inline.json).not.toHaveProperty("endpoint_materialized");
      expect(fromTable.json.results).toEqual(inline.json.results);
      expect(fromTable.json.columns).toEqual(["day", "c"]);
    }
    // the stored default applies when the caller sends no value
    const defaulted = await run("mat", { refresh: "force" });
    expect(defaulted.json.endpoint_materialized).toBe(true);
    expect(defaulted.json.results).toEqual(
      (await run("mat", { variables: { country: "US" }, refresh: "direct" })).json.results,
    );
    // the stored table holds one row per (day, country)
    const rows = await runInDurableObject(
      stubOf(created.id),
      (_i, state) => state.storage.sql.exec("SELECT count(*) AS n FROM mv_v1").one().n,
    );
    expect(rows).toBe(3);
  });

  it("keeps serving the materialization after metadata updates and a new sync frequency", async () => {
    const patched = await call(`${base()}/mat`, {
      method: "PATCH",
      body: { description: "daily signups", sync_frequency: "6hour" },
    });
    expect(patched.json).toMatchObject({
      is_materialized: true,
      materialization: { status: "Completed", sync_frequency: "6hour" },
    });
    const res = await run("mat", { variables: { country: "FR" }, refresh: "force" });
    expect(res.json.endpoint_materialized).toBe(true);
    expect(res.json.columns).toEqual(["day", "c"]);
    expect(res.json.results).toEqual(
      (await run("mat", { variables: { country: "FR" }, refresh: "direct" })).json.results,
    );
  });

  it("serializes concurrent refreshes of a version", async () => {
    const { id } = (await call(`${base()}/mat`)).json;
    const stub = stubOf(id);
    const before = (await stub.status(1))!.refreshes;
    // Requests arriving while a refresh is in flight share it (started in the same turn, so they overlap).
    const results = await runInDurableObject(stub, (instance: EndpointMaterializer) =>
      Promise.all([instance.refresh(1), instance.refresh(1), instance.refresh(1), instance.refresh(1)]),
    );
    expect(results.every((r) => r?.status === "Completed")).toBe(true);
    expect((await stub.status(1))!.refreshes).toBe(before + 1);
    // an alarm that comes due during a refresh joins it instead of starting a second one
    await runInDurableObject(stub, (instance: EndpointMaterializer, state) => {
      state.storage.sql.exec("UPDATE materializations SET next_run_at = 0");
      return Promise.all([instance.refresh(1), instance.alarm()]);
    });
    expect((await stub.status(1))!.refreshes).toBe(before + 2);
    // concurrent RPCs from outside: every caller gets a completed status, and refreshes never overlap
    const viaRpc = await Promise.all([stub.refresh(1), stub.refresh(1), stub.refresh(1)]);
    expect(viaRpc.every((r) => r?.status === "Completed")).toBe(true);
    expect((await stub.status(1))!.refreshes).toBeLessThanOrEqual(before + 5);
  });

  it("falls back to inline runs when stale, and refreshes on the alarm", async () => {
    const { id } = (await call(`${base()}/mat`)).json;
    const stub = stubOf(id);
    const old = "2026-01-01T00:00:00.000Z";
    await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("UPDATE materializations SET last_materialized_at = ?, next_run_at = 0", old),
    );
    const stale = await run("mat", { variables: { country: "FR" }, refresh: "force" });
    expect(stale.status).toBe(200);
    expect(stale.json).not.toHaveProperty("endpoint_materialized");
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const s = await status("mat");
    expect(s.status).toBe("Completed");
    expect(Date.parse(s.last_materialized_at)).toBeGreaterThan(Date.parse(old));
    const alarm = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now() + 3000_000);
    expect((await run("mat", { variables: { country: "FR" }, refresh: "force" })).json.endpoint_materialized).toBe(
      true,
    );
  });

  it("materializes several variables, each a column filtered on read", async () => {
    const two = {
      a: { code_name: "country", value: "US" },
      b: { code_name: "event_name", value: "signup" },
    };
    const query =
      "select count() as c, uniq(distinct_id) as users from events where properties.country = {variables.country} and event = {variables.event_name}";
    const created = await create("two_vars", {
      query: { kind: "HogQLQuery", query, variables: two },
      is_materialized: true,
    });
    await settle(created.id);
    for (const variables of [
      {},
      { country: "FR" },
      { country: "DE", event_name: "$pageview" },
      { event_name: "nope" },
    ]) {
      const fromTable = await run("two_vars", { variables, refresh: "force" });
      const inline = await run("two_vars", { variables, refresh: "direct" });
      // a value with no stored row: the ungrouped aggregate still answers its one row (count 0), inline
      expect(fromTable.json.endpoint_materialized).toBe(variables.event_name === "nope" ? undefined : true);
      expect(fromTable.json.results, JSON.stringify(variables)).toEqual(inline.json.results);
    }
  });

  it("records failures with their error", async () => {
    // A query that fails on the data: SQLite refuses malformed JSON, ClickHouse an integer division by zero.
    const broken = onClickHouse
      ? { query: "select intDiv(1, 0) as x from events", error: "the query divides an integer by zero" }
      : { query: "select JSONExtractString('not json', 'a') as x from events", error: "malformed JSON" };
    const created = await create("broken", {
      query: { kind: "HogQLQuery", query: broken.query },
      is_materialized: true,
    });
    await settle(created.id);
    const s = await status("broken");
    expect(s.status).toBe("Failed");
    // the query's own error, without the engine's result code, offsets or compiled SQL
    expect(s.error).toBe(broken.error);
    // runs fall back to inline execution (which reports the query's own error)
    const failed = await run("broken");
    expect(failed.status).toBe(400);
    expect(envelope(failed)).toEqual({
      type: "validation_error",
      code: "query_execution_failed",
      detail: `Query execution failed: ${broken.error}`,
      attr: "query",
    });
  });

  it("carries materialization to a new version and disables it on request", async () => {
    const changed = await call(`${base()}/mat`, {
      method: "PATCH",
      body: { query: { kind: "HogQLQuery", query: QUERY.replace("'signup'", "'$pageview'"), variables } },
    });
    expect(changed.json).toMatchObject({
      current_version: 2,
      is_materialized: true,
      materialization: { sync_frequency: "6hour" },
    });
    const id = changed.json.id;
    await settle(id, 2);
    expect((await status("mat", 2)).status).toBe("Completed");
    const off = await call(`${base()}/mat?version=2`, { method: "PATCH", body: { is_materialized: false } });
    expect(off.json).toMatchObject({
      version: 2,
      is_materialized: false,
      materialization: { can_materialize: true, reason: null },
    });
    expect(await status("mat", 2)).toEqual({ can_materialize: true, reason: null });
    const tables = await runInDurableObject(stubOf(id), (_i, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'mv_v2'").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("refuses to materialize variables outside a WHERE = comparison", async () => {
    await create("ors", {
      query: {
        kind: "HogQLQuery",
        query: "select count() from events where event = 'a' or properties.country = {variables.country}",
        variables,
      },
    });
    const res = await call(`${base()}/ors`, { method: "PATCH", body: { is_materialized: true } });
    expect(res.status).toBe(400);
    expect(envelope(res).detail).toContain("Cannot materialize endpoint. Reason: Variables not supported");
    expect((await status("ors")).can_materialize).toBe(false);
  });

  it("deleting the endpoint removes every materialization", async () => {
    const { id } = (await call(`${base()}/mat`)).json;
    expect((await call(`${base()}/mat`, { method: "DELETE" })).status).toBe(204);
    const left = await runInDurableObject(stubOf(id), async (_i, state) => ({
      tables: state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mv_%'")
        .toArray(),
      alarm: await state.storage.getAlarm(),
    }));
    expect(left).toEqual({ tables: [], alarm: null });
    expect(await stubOf(id).lastExecution()).toBeNull();
  });
});
