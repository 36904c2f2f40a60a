import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { D1AnalyticsStore } from "../../src/analytics/d1/store";
import { createDb } from "../../src/db/client";
import { copyToStaging, swapTable, TooManyRows } from "../../src/endpoints/materialized-table";
import type { EndpointMaterializer } from "../../src/endpoints/materializer";
import { compileHogQL } from "../../src/hogql/compile";
import { call, createProject } from "../helpers";
import { seed } from "./fixtures";

/** The D1 analytics store, which the refresher copies through. */
const store = new D1AnalyticsStore(env.DB, createDb(env.DB));

let project: number;
const ns = env.ENDPOINT_MATERIALIZER as unknown as DurableObjectNamespace<EndpointMaterializer>;
const scratch = () => ns.get(ns.idFromName(`copy-test-${crypto.randomUUID()}`));
const QUERY =
  "select distinct_id, count() as c from events where properties.country = {variables.country} group by distinct_id order by distinct_id";

beforeAll(async () => {
  project = (await createProject()).id;
  // 30 users x 1 event, in two countries: 30 rows once the variable becomes a column
  await seed(project, {
    events: Array.from({ length: 30 }, (_, i) => ({
      event: "signup",
      distinctId: `u${String(i).padStart(2, "0")}`,
      timestamp: "2026-02-01T00:00:00.000Z",
      properties: { country: i % 2 ? "US" : "FR" },
    })),
  });
});

async function plan() {
  const compiled = await compileHogQL(QUERY);
  if (!("sql" in compiled.materialization)) throw new Error("not materializable");
  return {
    sql: compiled.materialization.sql,
    projectId: project,
    timezone: "UTC",
    variables: compiled.materialization.variables,
  };
}

describe("materialization copy", () => {
  it("copies in pages (7 rows per D1 query) into one table in the query's order", async () => {
    const source = await plan();
    const inline = await env.DB.prepare(source.sql).bind(project, 1000, 0).raw();
    expect(inline.length).toBe(30);
    for (const pageSize of [7, 10, 30, 100]) {
      const stored = await runInDurableObject(scratch(), async (_i, state) => {
        const copy = await copyToStaging(store, state.storage, 1, source, pageSize, 1000);
        state.storage.transactionSync(() => swapTable(state.storage.sql, 1, source.variables.length));
        const rows = state.storage.sql
          .exec<{ rn: number; row: string; v0: string }>("SELECT rn, row, v0 FROM mv_v1 ORDER BY rn")
          .toArray();
        const leftovers = state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'mv_v1_next'").toArray();
        return { copy, rows, leftovers };
      });
      expect(stored.copy).toEqual({ columns: ["distinct_id", "c"], rows: 30 });
      expect(stored.leftovers).toEqual([]);
      expect(stored.rows.map((r) => r.rn)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      // the stored rows are the inline rows, output columns as JSON and the variable's value as v0
      expect(stored.rows.map((r) => [...JSON.parse(r.row), r.v0])).toEqual(inline);
    }
  });

  it("refuses more rows than the cap, at and across a page boundary, and leaves no partial table", async () => {
    const source = await plan();
    for (const [pageSize, maxRows] of [
      [7, 28],
      [7, 20],
      [7, 29],
    ]) {
      const outcome = await runInDurableObject(scratch(), async (_i, state) => {
        const error = await copyToStaging(store, state.storage, 1, source, pageSize, maxRows).then(
          () => null,
          (e) => e,
        );
        const tables = state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name LIKE 'mv_%'").toArray();
        return { error: error instanceof TooManyRows ? error.message : error && String(error), tables };
      });
      expect(outcome).toEqual({
        error: `The query returns more than ${maxRows} rows, too many to materialize.`,
        tables: [],
      });
    }
    const exact = await runInDurableObject(scratch(), (_i, state) =>
      copyToStaging(store, state.storage, 1, source, 7, 30),
    );
    expect(exact.rows).toBe(30);
  });

  it("a refresh over the cap fails with status Failed and a clear error; runs still answer inline", async () => {
    const variables = { v: { variableId: "v", code_name: "country", value: "US" } };
    const created = await call(`/api/environments/${project}/endpoints/`, {
      method: "POST",
      body: { name: "capped", query: { kind: "HogQLQuery", query: QUERY, variables } },
    });
    expect(created.status).toBe(201);
    const stub = ns.get(ns.idFromName(created.json.id));
    await runInDurableObject(stub, (instance: EndpointMaterializer) => {
      instance.refresher.copyLimits = { pageSize: 7, maxRows: 12 };
    });
    expect(
      (
        await call(`/api/environments/${project}/endpoints/capped`, {
          method: "PATCH",
          body: { is_materialized: true },
        })
      ).status,
    ).toBe(200);
    await runDurableObjectAlarm(stub);
    for (let i = 0; i < 50 && (await stub.status(1))?.status === "Running"; i++)
      await new Promise((r) => setTimeout(r, 20));
    const status = await call(`/api/environments/${project}/endpoints/capped/materialization_status`);
    expect(status.json).toMatchObject({
      status: "Failed",
      error: "The query returns more than 12 rows, too many to materialize.",
    });
    const run = await call(`/api/environments/${project}/endpoints/capped/run`, {
      method: "POST",
      body: { variables: { country: "FR" } },
    });
    expect(run.status).toBe(200);
    expect(run.json.results.length).toBe(15);
    expect(run.json).not.toHaveProperty("endpoint_materialized");
  });
});
