import { z } from "@hono/zod-openapi";
import { analyticsStore } from "../analytics";
import { activityPage } from "../lib/activity-log";
import { jsonResponse } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { parseProperties } from "./properties-param";
import { requirePerson } from "./service";
import { ActivityQuery, ActivitySchema, FormatQuery, PersonParams } from "./schema";
import { propertiesTimeline } from "./timeline";

const tags = ["persons"];
const BASE = "/api/environments/{project_id}/persons";

const activityAll = defineRoute({
  method: "get",
  path: `${BASE}/activity`,
  tags,
  summary: "Activity log of all persons",
  auth: { kind: "personal", scopes: ["activity_log:read"] },
  request: { params: ProjectParams, query: ActivityQuery },
  responses: { 200: jsonResponse(ActivitySchema, "Entries, newest first") },
});
const activityOne = defineRoute({
  method: "get",
  path: `${BASE}/{id}/activity`,
  tags,
  summary: "Activity log of one person",
  auth: { kind: "personal", scopes: ["activity_log:read"] },
  request: { params: PersonParams, query: ActivityQuery },
  responses: { 200: jsonResponse(ActivitySchema, "Entries, newest first") },
});
const timeline = defineRoute({
  method: "get",
  path: `${BASE}/{id}/properties_timeline`,
  tags,
  summary: "How the person's properties changed over its events",
  auth: { kind: "personal", scopes: ["person:read"] },
  request: {
    params: PersonParams,
    query: z.object({
      date_from: z.string().optional(),
      date_to: z.string().optional(),
      properties: z.string().optional(),
      breakdown: z.string().optional(),
      breakdown_type: z.string().optional(),
      events: z.string().optional(),
      actions: z.string().optional(),
      format: FormatQuery.shape.format,
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({
        points: z.array(
          z.object({
            timestamp: z.string(),
            properties: z.record(z.string(), z.unknown()),
            relevant_event_count: z.number().int(),
          }),
        ),
        crucial_property_keys: z.array(z.string()),
        effective_date_from: z.string(),
        effective_date_to: z.string(),
      }),
      "Timeline points",
    ),
  },
});
/** Read-only views around persons: activity and properties timeline (mounted before `/{id}`). */
export const personInfoRoutes = createRouter()
  .openapi(activityAll, async (c) => {
    const where = { projectId: c.get("project").id, scope: "Person" as const };
    return c.json(await activityPage(c.get("db"), where, c.req.url, c.req.valid("query")), 200);
  })
  .openapi(activityOne, async (c) => {
    const person = await requirePerson(c.get("db"), c.get("project").id, c.req.valid("param").id);
    const where = { projectId: c.get("project").id, scope: "Person" as const, itemId: String(person.id) };
    return c.json(await activityPage(c.get("db"), where, c.req.url, c.req.valid("query")), 200);
  })
  .openapi(timeline, async (c) => {
    const person = await requirePerson(c.get("db"), c.get("project").id, c.req.valid("param").id);
    const q = c.req.valid("query");
    const store = analyticsStore(c.env, c.get("db"));
    const body = await propertiesTimeline(store, c.get("project").id, person, {
      dateFrom: q.date_from,
      dateTo: q.date_to,
      filter: parseProperties(q.properties),
      breakdown: q.breakdown,
      breakdownType: q.breakdown_type,
    });
    return c.json(body, 200);
  });
