import SwaggerParser from "@apidevtools/swagger-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { api, newProject } from "./client";

let project: number;
const base = () => `/api/environments/${project}/endpoints`;
const variables = {
  "0190b0c4-0000-4000-8000-000000000001": {
    variableId: "0190b0c4-0000-4000-8000-000000000001",
    code_name: "event_name",
    value: "$pageview",
    type: "String",
  },
  "0190b0c4-0000-4000-8000-000000000002": {
    variableId: "0190b0c4-0000-4000-8000-000000000002",
    code_name: "min_count",
    value: null,
    type: "Number",
  },
};

beforeAll(async () => {
  project = (await newProject()).id;
});

/** A new user's walk through endpoints against the real `wrangler dev` (HogQL parsed by the extracted wasm). */
describe("endpoints under wrangler dev", () => {
  it("parses HogQL in wrangler dev: bad queries are 400, good ones compile", async () => {
    const bad = await api(`${base()}/`, {
      method: "POST",
      body: { name: "bad", query: { kind: "HogQLQuery", query: "selet 100" } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toContain("Invalid HogQL query");
    const refused = await api(`${base()}/`, {
      method: "POST",
      body: { name: "bad", query: { kind: "HogQLQuery", query: "select * from sqlite_master" } },
    });
    expect(refused.json.detail).toContain("sqlite_master");
  });

  it("creates, runs, versions, materializes and reports an endpoint", async () => {
    const query =
      "select event, count() as c from events where event = {variables.event_name} group by event having c >= ifNull({variables.min_count}, 0)";
    const created = await api(`${base()}/`, {
      method: "POST",
      body: { name: "pageviews", query: { kind: "HogQLQuery", query, variables } },
    });
    expect(created.status).toBe(201);
    expect((await api(`${base()}/pageviews/run`)).json).toMatchObject({
      results: [],
      columns: ["event", "c"],
      endpoint_version: 1,
    });
    expect(
      (await api(`${base()}/pageviews/run`, { method: "POST", body: { variables: { event_name: "x", min_count: 1 } } }))
        .status,
    ).toBe(200);

    const v2 = await api(`${base()}/pageviews`, {
      method: "PATCH",
      body: { query: { kind: "HogQLQuery", query: `${query} order by c desc`, variables } },
    });
    expect(v2.json.current_version).toBe(2);
    expect((await api(`${base()}/pageviews/run`, { method: "POST", body: { version: 1 } })).json.endpoint_version).toBe(
      1,
    );
    expect((await api(`${base()}/pageviews/run`, { method: "POST", body: { version: 2 } })).json.endpoint_version).toBe(
      2,
    );

    const noVars = await api(`${base()}/`, {
      method: "POST",
      body: {
        name: "counts",
        query: { kind: "HogQLQuery", query: "select count() as n from events" },
        is_materialized: true,
        sync_frequency: "1hour",
      },
    });
    expect(noVars.status).toBe(201);
    let status = await api(`${base()}/counts/materialization_status`);
    for (let i = 0; i < 50 && status.json.status === "Running"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await api(`${base()}/counts/materialization_status`);
    }
    expect(status.json).toMatchObject({ status: "Completed", can_materialize: true, sync_frequency: "1hour" });
    expect((await api(`${base()}/counts/run`)).json).toMatchObject({ results: [[0]], endpoint_materialized: true });

    const last = await api(`${base()}/last_execution_times`, {
      method: "POST",
      body: { names: ["pageviews", "counts"] },
    });
    expect(last.json.query_status.results.map((r: string[]) => r[0])).toEqual(["counts", "pageviews"]);
  });

  it("publishes a valid OpenAPI 3.0.3 document that a client can be generated from", async () => {
    const res = await api(`${base()}/pageviews/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe("3.0.3");
    const doc = await SwaggerParser.validate(structuredClone(res.json));
    const request = (doc as any).components.schemas.EndpointRunRequest;
    expect(request.required).toEqual(["variables"]);
    expect((doc as any).components.schemas.Variables).toMatchObject({
      properties: { event_name: { type: "string", example: "$pageview" }, min_count: { type: "number" } },
      required: ["min_count"],
    });
    const v1 = await api(`${base()}/pageviews/openapi.json?version=1`);
    expect(v1.json.info.version).toBe("1");

    // A minimal generated client: every operation of the document becomes a function.
    const dereferenced = (await SwaggerParser.dereference(structuredClone(res.json))) as any;
    const client = Object.fromEntries(
      Object.entries(dereferenced.paths).flatMap(([path, ops]: [string, any]) =>
        Object.entries(ops).map(([method, op]: [string, any]) => [
          op.operationId,
          (body: unknown) =>
            api(new URL(path, dereferenced.servers[0].url).pathname, { method: method.toUpperCase(), body }),
        ]),
      ),
    );
    const out = await client.run_pageviews({ variables: { event_name: "$pageview", min_count: 0 } });
    expect(out.status).toBe(200);
    const schema =
      dereferenced.paths[Object.keys(dereferenced.paths)[0]].post.responses["200"].content["application/json"].schema;
    for (const key of schema.required) expect(out.json).toHaveProperty(key);
  });
});
