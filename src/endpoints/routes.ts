import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { actorOf } from "../lib/auth/principal";
import { jsonBody, jsonResponse as json } from "../lib/openapi";
import { paginated, paginatedSchema, pageOf, PaginationQuery } from "../lib/pagination";
import { createRouter, defineRoute, type RouteAuth } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { lastExecutionTimes } from "./executions";
import { materializationInfo } from "./materialization";
import { endpointOpenApi } from "./openapi";
import { endpointRecord, recordFor, versionRecord } from "./records";
import {
  EndpointOrVersionSchema,
  EndpointRecordSchema,
  EndpointVersionRecordSchema,
  LastExecutionTimesSchema,
  MaterializationStatusSchema,
  RunResponseSchema,
  InsightRunResponseSchema,
} from "./response-schemas";
import { runEndpoint } from "./run";
import {
  CreateEndpointBody,
  EndpointParams,
  LastExecutionBody,
  ListQuery,
  RunBody,
  RunQuery,
  UpdateEndpointBody,
  VersionQuery,
} from "./schema";
import { countVersions, currentVersion, endpointVersion, getEndpoint, listEndpoints, listVersions } from "./service";
import { createEndpoint, deleteEndpoint, updateEndpoint } from "./write";

const BASE = "/api/environments/{project_id}/endpoints";
const read: RouteAuth = { kind: "personal", scopes: ["endpoint:read"] };
const write: RouteAuth = { kind: "personal", scopes: ["endpoint:write"] };
const tags = ["endpoints"];

const list = defineRoute({
  method: "get",
  path: BASE,
  tags,
  summary: "List the project's endpoints",
  auth: read,
  request: { params: ProjectParams, query: ListQuery.extend(PaginationQuery.shape) },
  responses: { 200: json(paginatedSchema(EndpointRecordSchema), "Endpoints, newest first") },
});
const create = defineRoute({
  method: "post",
  path: BASE,
  tags,
  summary: "Create an endpoint (version 1) from a HogQL query",
  auth: write,
  request: { params: ProjectParams, body: jsonBody(CreateEndpointBody) },
  responses: { 201: json(EndpointRecordSchema, "The new endpoint") },
});
const retrieve = defineRoute({
  method: "get",
  path: `${BASE}/{name}`,
  tags,
  summary: "Retrieve an endpoint, or one version with ?version=N",
  auth: read,
  request: { params: EndpointParams, query: VersionQuery },
  responses: { 200: json(EndpointOrVersionSchema, "The endpoint, or with ?version the version's record") },
});
const updateConfig = (method: "patch" | "put") =>
  defineRoute({
    method,
    path: `${BASE}/{name}`,
    tags,
    summary: "Update an endpoint; a changed query creates a new version",
    auth: write,
    request: { params: EndpointParams, query: VersionQuery, body: jsonBody(UpdateEndpointBody) },
    responses: {
      200: json(EndpointOrVersionSchema, "The endpoint, or the version's record when a version was targeted"),
    },
  });
const remove = defineRoute({
  method: "delete",
  path: `${BASE}/{name}`,
  tags,
  summary: "Delete an endpoint and every materialization",
  auth: write,
  request: { params: EndpointParams },
  responses: { 204: { description: "Deleted" } },
});
const versions = defineRoute({
  method: "get",
  path: `${BASE}/{name}/versions`,
  tags,
  summary: "List an endpoint's versions, newest first",
  auth: read,
  request: { params: EndpointParams, query: PaginationQuery },
  responses: { 200: json(paginatedSchema(EndpointVersionRecordSchema), "The versions' records") },
});
const runGet = defineRoute({
  method: "get",
  path: `${BASE}/{name}/run`,
  tags,
  summary: "Run an endpoint (latest version unless ?version=N)",
  auth: read,
  request: { params: EndpointParams, query: RunQuery },
  responses: { 200: json(z.union([RunResponseSchema, InsightRunResponseSchema]), "Query results") },
});
const runPost = defineRoute({
  method: "post",
  path: `${BASE}/{name}/run`,
  tags,
  summary: "Run an endpoint with variables, a version, a limit or a refresh mode",
  auth: read,
  request: {
    params: EndpointParams,
    query: RunQuery,
    body: { required: false, content: { "application/json": { schema: RunBody } } },
  },
  responses: { 200: json(z.union([RunResponseSchema, InsightRunResponseSchema]), "Query results") },
});
const status = defineRoute({
  method: "get",
  path: `${BASE}/{name}/materialization_status`,
  tags,
  summary: "Materialization status of a version",
  auth: read,
  request: { params: EndpointParams, query: VersionQuery },
  responses: { 200: json(MaterializationStatusSchema, "Status, or whether it can be materialized") },
});
const openapi = defineRoute({
  method: "get",
  path: `${BASE}/{name}/openapi.json`,
  tags,
  summary: "OpenAPI 3.0.3 description of running this endpoint",
  auth: read,
  request: { params: EndpointParams, query: VersionQuery },
  responses: { 200: json(z.record(z.string(), z.unknown()), "An OpenAPI 3.0.3 document") },
});
const lastExecutions = defineRoute({
  method: "post",
  path: `${BASE}/last_execution_times`,
  tags,
  summary: "Last execution times (past 6 months) of endpoints by name",
  auth: read,
  request: { params: ProjectParams, body: jsonBody(LastExecutionBody) },
  responses: { 200: json(LastExecutionTimesSchema, "A query status whose results are [name, time] pairs") },
});

const origin = (url: string) => new URL(url).origin;

export const endpointRoutes = createRouter()
  .openapi(list, async (c) => {
    const q = c.req.valid("query");
    const db = c.get("db");
    const page = pageOf(q);
    const filters = {
      isActive: q.is_active === undefined ? undefined : q.is_active === "true",
      createdBy: q.created_by,
    };
    const { rows, count } = await listEndpoints(db, c.get("project").id, filters, page);
    const records = await Promise.all(
      rows.map((r) => endpointRecord(c.env, origin(c.req.url), r.endpoint, r.version, r.versionsCount)),
    );
    return c.json(paginated(c.req.url, page, count, records), 200);
  })
  .openapi(create, async (c) => {
    const db = c.get("db");
    const endpoint = await createEndpoint(
      c.env,
      db,
      c.get("project"),
      c.req.valid("json"),
      actorOf(c.get("principal")).first_name,
    );
    return c.json(await endpointRecord(c.env, origin(c.req.url), endpoint, await currentVersion(db, endpoint), 1), 201);
  })
  .openapi(retrieve, async (c) => {
    const { endpoint, version, targeted } = await requestedVersion(
      c,
      c.req.valid("param").name,
      c.req.valid("query").version,
    );
    const versionsCount = await countVersions(c.get("db"), endpoint.id);
    return c.json(await recordFor(targeted)(c.env, origin(c.req.url), endpoint, version, versionsCount), 200);
  })
  .openapi(updateConfig("patch"), async (c) =>
    c.json(await applyUpdate(c, c.req.valid("param").name, c.req.valid("json"), c.req.valid("query").version), 200),
  )
  .openapi(updateConfig("put"), async (c) =>
    c.json(await applyUpdate(c, c.req.valid("param").name, c.req.valid("json"), c.req.valid("query").version), 200),
  )
  .openapi(remove, async (c) => {
    await deleteEndpoint(c.env, c.get("db"), c.get("project").id, c.req.valid("param").name);
    return c.body(null, 204);
  })
  .openapi(versions, async (c) => {
    const db = c.get("db");
    const endpoint = await getEndpoint(db, c.get("project").id, c.req.valid("param").name);
    const all = await listVersions(db, endpoint.id);
    const page = pageOf(c.req.valid("query"));
    const records = await Promise.all(
      all
        .slice(page.offset, page.offset + page.limit)
        .map((v) => versionRecord(c.env, origin(c.req.url), endpoint, v, all.length)),
    );
    return c.json(paginated(c.req.url, page, all.length, records), 200);
  })
  .openapi(runGet, async (c) => {
    const result = await runEndpoint(
      c.env,
      c.get("db"),
      c.get("project"),
      c.req.valid("param").name,
      c.req.valid("query"),
    );
    return c.json(result, 200);
  })
  .openapi(runPost, async (c) => {
    const body = c.req.valid("json") ?? {};
    const q = c.req.valid("query");
    // The body wins over the query string (PostHog reads version and limit from either).
    const result = await runEndpoint(c.env, c.get("db"), c.get("project"), c.req.valid("param").name, {
      ...q,
      ...body,
    });
    return c.json(result, 200);
  })
  .openapi(status, async (c) => {
    const { endpoint, version } = await requestedVersion(c, c.req.valid("param").name, c.req.valid("query").version);
    return c.json(await materializationInfo(c.env, endpoint, version), 200);
  })
  .openapi(openapi, async (c) => {
    const { endpoint, version } = await requestedVersion(c, c.req.valid("param").name, c.req.valid("query").version);
    return c.json(endpointOpenApi(origin(c.req.url), endpoint, version), 200);
  })
  .openapi(lastExecutions, async (c) =>
    c.json(await lastExecutionTimes(c.env, c.get("db"), c.get("project").id, c.req.valid("json").names), 200),
  );

/** PATCH and PUT share PostHog's update; a targeted version answers with the version-shaped record. */
async function applyUpdate(
  c: Context<AppEnv>,
  name: string,
  body: z.infer<typeof UpdateEndpointBody>,
  version: string | undefined,
) {
  const db = c.get("db");
  const author = actorOf(c.get("principal")).first_name;
  const result = await updateEndpoint(c.env, db, c.get("project"), name, body, version, author);
  const versionsCount = await countVersions(db, result.endpoint.id);
  return recordFor(result.targeted)(c.env, origin(c.req.url), result.endpoint, result.version, versionsCount);
}

/** The endpoint of the path and the version the request names (`?version=`), or its current one. */
const requestedVersion = (c: Context<AppEnv>, name: string, version: string | undefined) =>
  endpointVersion(c.get("db"), c.get("project").id, name, version);
