import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { notFound } from "../lib/errors";
import { jsonBody, jsonResponse } from "../lib/openapi";
import { type Page, paginated, paginatedList, paginatedSchema, pageOf, PaginationQuery } from "../lib/pagination";
import { createRouter, defineRoute, type RouteAuth } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { PersonListSchema } from "../persons/schema";
import { serializedPerson } from "../persons/serialize";
import { getPersonsByIds } from "../persons/service";
import { getCohort, type CohortRow } from "../shared/cohorts/reads";
import { cohortRecord } from "./record";
import { CohortParams, CohortSchema, CreateCohortBody, UpdateCohortBody } from "./schema";
import {
  type CohortInput,
  cohortMemberIds,
  createCohort,
  deleteCohort,
  listCohorts,
  memberCount,
  updateCohort,
} from "./service";

const tags = ["cohorts"];
const BASE = "/api/projects/{project_id}/cohorts";
const read: RouteAuth = { kind: "personal", scopes: ["cohort:read"] };
const write: RouteAuth = { kind: "personal", scopes: ["cohort:write"] };

const list = defineRoute({
  method: "get",
  path: BASE,
  tags,
  summary: "List cohorts",
  auth: read,
  request: { params: ProjectParams, query: PaginationQuery },
  responses: { 200: jsonResponse(paginatedSchema(CohortSchema), "Cohorts, newest first") },
});
const create = defineRoute({
  method: "post",
  path: BASE,
  tags,
  summary: "Create a static or dynamic cohort",
  auth: write,
  request: { params: ProjectParams, body: jsonBody(CreateCohortBody) },
  responses: { 201: jsonResponse(CohortSchema, "The cohort") },
});
const retrieve = defineRoute({
  method: "get",
  path: `${BASE}/{id}`,
  tags,
  summary: "Retrieve a cohort",
  auth: read,
  request: { params: CohortParams },
  responses: { 200: jsonResponse(CohortSchema, "The cohort") },
});
const update = defineRoute({
  method: "patch",
  path: `${BASE}/{id}`,
  tags,
  summary: "Update a cohort (static cohorts: person_ids / distinct_ids add members)",
  auth: write,
  request: { params: CohortParams, body: jsonBody(UpdateCohortBody) },
  responses: { 200: jsonResponse(CohortSchema, "The cohort") },
});
const remove = defineRoute({
  method: "delete",
  path: `${BASE}/{id}`,
  tags,
  summary: "Delete a cohort (soft delete, as PATCH deleted=true)",
  auth: write,
  request: { params: CohortParams },
  responses: { 204: { description: "Deleted" } },
});
const members = defineRoute({
  method: "get",
  path: `${BASE}/{id}/persons`,
  tags,
  summary: "List the cohort's current members",
  auth: { kind: "personal", scopes: ["cohort:read", "person:read"] },
  request: { params: CohortParams, query: PaginationQuery },
  responses: { 200: jsonResponse(PersonListSchema, "Members (SerializedPerson), newest first") },
});

const writeContext = (c: Context<AppEnv>) => ({
  refreshFlagDefinitions: c.var.refreshFlagDefinitions,
  db: c.get("db"),
  projectId: c.get("project").id,
  principal: c.get("principal"),
});

/** The service's input from a create or update body (a create body also says `is_static`). */
const cohortInputOf = (body: z.infer<typeof UpdateCohortBody>): CohortInput => ({
  name: body.name,
  description: body.description,
  filters: body.filters,
  groups: body.groups,
  deleted: body.deleted,
  personIds: body.person_ids,
  distinctIds: body.distinct_ids,
});

async function liveCohort(c: Context<AppEnv>, id: number) {
  const row = await getCohort(c.get("db"), c.get("project").id, id);
  if (!row || row.deleted) throw notFound();
  return row;
}

/** The cohort with its member count, or, when it cannot be evaluated, no count and one calculation error. */
async function withCount(c: Context<AppEnv>, row: CohortRow) {
  const count = await memberCount(c.get("db"), c.get("project").id, row);
  return cohortRecord(row, count, count === null ? 1 : 0);
}

export const cohortRoutes = createRouter()
  .openapi(list, async (c) => {
    const load = (page: Page) => listCohorts(c.get("db"), c.get("project").id, page);
    // Members are counted on retrieve and in the member listing only: counting every cohort of a
    // page would scan the project's persons once per dynamic cohort.
    return c.json(await paginatedList(c.req.url, c.req.valid("query"), load, (row) => cohortRecord(row, null)), 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const row = await createCohort(writeContext(c), { ...cohortInputOf(body), isStatic: body.is_static });
    return c.json(await withCount(c, row), 201);
  })
  .openapi(retrieve, async (c) => c.json(await withCount(c, await liveCohort(c, c.req.valid("param").id)), 200))
  .openapi(update, async (c) => {
    const row = await updateCohort(writeContext(c), c.req.valid("param").id, cohortInputOf(c.req.valid("json")));
    return c.json(await withCount(c, row), 200);
  })
  .openapi(remove, async (c) => {
    await deleteCohort(writeContext(c), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(members, async (c) => {
    const cohort = await liveCohort(c, c.req.valid("param").id);
    const page = pageOf(c.req.valid("query"));
    const db = c.get("db");
    const projectId = c.get("project").id;
    const { ids, count } = await cohortMemberIds(db, projectId, cohort, page);
    const people = new Map((await getPersonsByIds(db, projectId, ids)).map((p) => [p.id, p]));
    const results = ids.flatMap((id) => (people.has(id) ? [serializedPerson(people.get(id)!)] : []));
    return c.json(paginated(c.req.url, page, count, results), 200);
  });
