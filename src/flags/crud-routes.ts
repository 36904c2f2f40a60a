import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Db } from "../db/client";
import type { AppEnv } from "../env";
import { notFound } from "../lib/errors";
import { jsonBody, jsonResponse as json } from "../lib/openapi";
import { paginated, paginatedSchema, pageOf, PaginationQuery } from "../lib/pagination";
import { createRouter, defineRoute } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { flagRecord } from "./record";
import type { FlagRow } from "./row";
import {
  CreateFlagBody,
  FeatureFlagSchema,
  type FlagInput,
  FlagParams,
  ListQuery,
  PatchFlagBody,
  PutFlagBody,
} from "./schema";
import { cohortNames, getFlag, listFlags } from "./service";
import { createFlag, deleteFlag, updateFlag } from "./write";
import { BASE, read, tags, write } from "./route-constants";

const list = defineRoute({
  method: "get",
  path: BASE,
  tags,
  summary: "List live feature flags (search, active incl. STALE, type, tags)",
  auth: read,
  request: { params: ProjectParams, query: PaginationQuery.extend(ListQuery.shape) },
  responses: { 200: json(paginatedSchema(FeatureFlagSchema), "Feature flags") },
});

const create = defineRoute({
  method: "post",
  path: BASE,
  tags,
  summary: "Create a feature flag",
  auth: write,
  request: { params: ProjectParams, body: jsonBody(CreateFlagBody) },
  responses: { 201: json(FeatureFlagSchema, "The new flag") },
});

const retrieve = defineRoute({
  method: "get",
  path: `${BASE}/{id}`,
  tags,
  summary: "Retrieve a feature flag (soft-deleted flags included)",
  auth: read,
  request: { params: FlagParams },
  responses: { 200: json(FeatureFlagSchema, "The flag") },
});

/** PATCH and PUT answer alike: the updated flag, or 409 when the body's `version` is stale. */
const updateResponses = {
  200: json(FeatureFlagSchema, "The updated flag"),
  409: json(z.object({}).passthrough(), "Stale version"),
};

const patch = defineRoute({
  method: "patch",
  path: `${BASE}/{id}`,
  tags,
  summary: "Update some fields; `{deleted: true}` soft-deletes; a stale `version` is 409",
  auth: write,
  request: { params: FlagParams, body: jsonBody(PatchFlagBody) },
  responses: updateResponses,
});

const put = defineRoute({
  method: "put",
  path: `${BASE}/{id}`,
  tags,
  summary: "Replace a feature flag's writable fields (`key` required)",
  auth: write,
  request: { params: FlagParams, body: jsonBody(PutFlagBody) },
  responses: updateResponses,
});

const remove = defineRoute({
  method: "delete",
  path: `${BASE}/{id}`,
  tags,
  summary: "Soft-delete a feature flag (same as PATCH {deleted: true})",
  auth: write,
  request: { params: FlagParams },
  responses: { 204: { description: "Deleted" } },
});

/** A flag as the API answers it: cohort conditions carry the cohort's name, as PostHog's serializer adds it. */
async function flagResponse(db: Db, flag: FlagRow) {
  return flagRecord(flag, await cohortNames(db, flag.projectId, [flag]));
}

/** PATCH and PUT apply the same update (PUT's body only has to name the `key`) and answer with the flag. */
async function applyUpdate(c: Context<AppEnv>, id: number, input: FlagInput) {
  const flag = await updateFlag(c.env, c.get("db"), c.get("project").id, c.get("principal"), id, input);
  return flagResponse(c.get("db"), flag);
}

export const flagCrudRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid("query");
    const page = pageOf(query);
    const db = c.get("db");
    const { rows, count } = await listFlags(db, c.get("project").id, query, page);
    const names = await cohortNames(db, c.get("project").id, rows);
    const results = rows.map((r) => flagRecord(r, names));
    return c.json(paginated(c.req.url, page, count, results), 200);
  })
  .openapi(create, async (c) => {
    const flag = await createFlag(c.env, c.get("db"), c.get("project").id, c.get("principal"), c.req.valid("json"));
    return c.json(await flagResponse(c.get("db"), flag), 201);
  })
  .openapi(retrieve, async (c) => {
    const flag = await getFlag(c.get("db"), c.get("project").id, c.req.valid("param").id);
    if (!flag) throw notFound();
    return c.json(await flagResponse(c.get("db"), flag), 200);
  })
  .openapi(patch, async (c) => c.json(await applyUpdate(c, c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(put, async (c) => c.json(await applyUpdate(c, c.req.valid("param").id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteFlag(c.env, c.get("db"), c.get("project").id, c.get("principal"), c.req.valid("param").id);
    return c.body(null, 204);
  });
