import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { analyticsStore } from "../analytics";
import type { AppEnv } from "../env";
import { jsonBody, jsonResponse } from "../lib/openapi";
import { paginated, pageOf, PaginationQuery } from "../lib/pagination";
import { createRouter, defineRoute } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { toCsv } from "./csv";
import { parseProperties } from "./properties-param";
import { Format, PersonListSchema, PersonParams, PersonSchema, FormatQuery } from "./schema";
import { personRecord, serializedPerson } from "./serialize";
import { listPersons, requirePerson } from "./service";
import { setPersonProperties } from "./writes";
import { deletePersons } from "./deletion";

const tags = ["persons"];
const BASE = "/api/environments/{project_id}/persons";
/** PostHog's CSV_EXPORT_LIMIT (older hogql/constants.py): a CSV export is one page of this many rows. */
const CSV_EXPORT_LIMIT = 10_000;

const ListQuery = PaginationQuery.extend({
  distinct_id: z.string().optional().openapi({ description: "Persons having this distinct id (exact)." }),
  email: z.string().optional().openapi({ description: "Persons whose `email` property equals this." }),
  search: z
    .string()
    .optional()
    .openapi({ description: "Substring of email, name, uuid or any distinct id (case-insensitive)." }),
  properties: z
    .string()
    .optional()
    .openapi({ description: "JSON: property filters (array, ANDed) or a group `{type: AND|OR, values}`." }),
  format: Format,
});

const list = defineRoute({
  method: "get",
  path: BASE,
  tags,
  summary: "List persons, newest first",
  auth: { kind: "personal", scopes: ["person:read"] },
  request: { params: ProjectParams, query: ListQuery },
  responses: {
    200: {
      description: "Persons (SerializedPerson: `id` is the uuid), or CSV with `format=csv`",
      content: { "application/json": { schema: PersonListSchema }, "text/csv": { schema: z.string() } },
    },
  },
});

const retrieve = defineRoute({
  method: "get",
  path: `${BASE}/{id}`,
  tags,
  summary: "Retrieve a person by integer id or uuid",
  auth: { kind: "personal", scopes: ["person:read"] },
  request: { params: PersonParams, query: FormatQuery },
  responses: { 200: jsonResponse(PersonSchema, "The person") },
});

const update = defineRoute({
  method: "patch",
  path: `${BASE}/{id}`,
  tags,
  summary: "Set person properties (captures and applies a $set event)",
  auth: { kind: "personal", scopes: ["person:write"] },
  request: {
    params: PersonParams,
    query: FormatQuery,
    body: jsonBody(z.object({ properties: z.record(z.string(), z.unknown()) })),
  },
  responses: { 200: jsonResponse(PersonSchema, "The person after the update") },
});

const remove = defineRoute({
  method: "delete",
  path: `${BASE}/{id}`,
  tags,
  summary: "Delete a person (and, with delete_events, its events stored before the request)",
  auth: { kind: "personal", scopes: ["person:write"] },
  request: {
    params: PersonParams,
    query: z.object({
      delete_events: z
        .string()
        .optional()
        .openapi({ description: "Present (any value, as in PostHog): also delete the person's events." }),
      delete_recordings: z.string().optional().openapi({ description: "Accepted; there are no recordings to delete." }),
      keep_person: z
        .string()
        .optional()
        .openapi({ description: "Present: keep the person, only delete what the other flags ask." }),
      format: Format,
    }),
  },
  responses: { 204: { description: "Deleted" } },
});

export const personRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid("query");
    const csv = query.format === "csv";
    const page = csv ? { limit: CSV_EXPORT_LIMIT, offset: 0 } : pageOf(query);
    const { rows, count, more } = await listPersons(
      c.get("db"),
      c.get("project").id,
      {
        distinctId: query.distinct_id,
        email: query.email,
        search: query.search,
        filter: parseProperties(query.properties),
      },
      page,
      analyticsStore(c.env, c.get("db")),
    );
    const results = rows.map(serializedPerson);
    if (csv) return csvResponse(c, results);
    return c.json(paginated(c.req.url, page, count, results, more), 200);
  })
  .openapi(retrieve, async (c) => {
    const person = await requirePerson(c.get("db"), c.get("project").id, c.req.valid("param").id);
    return c.json(personRecord(person), 200);
  })
  .openapi(update, async (c) => {
    const db = c.get("db");
    const projectId = c.get("project").id;
    const person = await requirePerson(db, projectId, c.req.valid("param").id);
    const after = await setPersonProperties(
      c.env,
      db,
      projectId,
      person,
      c.req.valid("json").properties,
      c.get("principal"),
    );
    return c.json(personRecord(after), 200);
  })
  .openapi(remove, async (c) => {
    const db = c.get("db");
    const projectId = c.get("project").id;
    const before = new Date().toISOString();
    const person = await requirePerson(db, projectId, c.req.valid("param").id);
    const q = c.req.valid("query");
    await deletePersons(
      db,
      analyticsStore(c.env, db),
      projectId,
      [person],
      { deleteEvents: q.delete_events !== undefined, keepPerson: q.keep_person !== undefined, before },
      c.get("principal"),
    );
    return c.body(null, 204);
  });

export function csvResponse(c: Context<AppEnv>, rows: Record<string, unknown>[]) {
  return c.body(toCsv(rows), 200, { "content-type": "text/csv; charset=utf-8" });
}
