import { z } from "@hono/zod-openapi";
import { notFound } from "../lib/errors";
import { jsonBody, jsonResponse as json } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { ProjectParams } from "../projects/schema";
import { activityPage } from "../lib/activity-log";
import { FlagParams } from "./schema";
import { getFlag, keysOf, liveFlagByKey } from "./service";
import { flagStatus } from "./status";
import { enableEnrichedAnalytics } from "./write";
import { activityRead, BASE, read, tags, write } from "./route-constants";

const StatusSchema = z.object({ status: z.enum(["active", "stale", "deleted", "unknown"]), reason: z.string() });

const status = defineRoute({
  method: "get",
  path: `${BASE}/{id}/status`,
  tags,
  summary: "Whether a flag is active, stale or deleted, with the reason",
  auth: read,
  request: { params: FlagParams },
  responses: { 200: json(StatusSchema, "The status"), 404: json(StatusSchema, "No such flag: status `unknown`") },
});

const RemoteConfigParams = ProjectParams.extend({
  id: z.string().openapi({ param: { name: "id", in: "path" }, description: "Flag id or key", example: "1" }),
});

const remoteConfig = defineRoute({
  method: "get",
  path: `${BASE}/{id}/remote_config`,
  tags,
  summary: "The payload of a remote-configuration flag (by id or key), as a JSON string",
  auth: read,
  request: { params: RemoteConfigParams },
  responses: {
    200: json(z.string().nullable(), "The stored payload string, or null"),
    404: { description: "No such remote-configuration flag (empty body, as PostHog)" },
  },
});

const enrich = defineRoute({
  method: "post",
  path: `${BASE}/{id}/enrich_usage_dashboard`,
  tags,
  summary: "Turn on enriched analytics for the flag (recorded; there is no dashboard product here)",
  auth: write,
  request: { params: FlagParams },
  responses: {
    200: json(z.object({ success: z.boolean(), has_enriched_analytics: z.boolean(), detail: z.string() }), "Recorded"),
  },
});

const ActivityQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  page: z.coerce.number().int().min(1).default(1),
});

const ActivityPage = z.object({
  results: z.array(z.record(z.string(), z.unknown())),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  total_count: z.number().int(),
});

const activity = defineRoute({
  method: "get",
  path: `${BASE}/activity`,
  tags,
  summary: "Activity log of every flag of the project, newest first",
  auth: activityRead,
  request: { params: ProjectParams, query: ActivityQuery },
  responses: { 200: json(ActivityPage, "A page of entries") },
});

const flagActivity = defineRoute({
  method: "get",
  path: `${BASE}/{id}/activity`,
  tags,
  summary: "Activity log of one flag, newest first",
  auth: activityRead,
  request: { params: FlagParams, query: ActivityQuery },
  responses: { 200: json(ActivityPage, "A page of entries") },
});

const bulkKeys = defineRoute({
  method: "post",
  path: `${BASE}/bulk_keys`,
  tags,
  summary: "Map flag ids to keys",
  auth: read,
  request: {
    params: ProjectParams,
    body: jsonBody(z.object({ ids: z.array(z.union([z.number(), z.string()])).optional() })),
  },
  responses: {
    200: json(
      z.object({ keys: z.record(z.string(), z.string()), warning: z.string().optional() }),
      "`{keys: {id: key}}`",
    ),
    400: json(z.object({ error: z.string() }), "Every id was invalid"),
  },
});

export const flagOperationRoutes = createRouter()
  .openapi(status, async (c) => {
    const flag = await getFlag(c.get("db"), c.get("project").id, c.req.valid("param").id);
    if (!flag) return c.json({ status: "unknown" as const, reason: "Flag could not be found" }, 404);
    return c.json(flagStatus(flag), 200);
  })
  .openapi(remoteConfig, async (c) => {
    const { id } = c.req.valid("param");
    const db = c.get("db");
    const projectId = c.get("project").id;
    const flag = /^\d+$/.test(id) ? await getFlag(db, projectId, Number(id)) : await liveFlagByKey(db, projectId, id);
    // PostHog answers 404 with an empty body here.
    if (!flag || flag.deleted || !flag.isRemoteConfiguration) return c.body(null, 404);
    const payload = (flag.filters.payloads as Record<string, unknown> | undefined)?.true;
    return c.json(
      typeof payload === "string"
        ? payload
        : payload === undefined || payload === null
          ? null
          : JSON.stringify(payload),
      200,
    );
  })
  .openapi(enrich, async (c) => {
    await enableEnrichedAnalytics(c.env, c.get("db"), c.get("project").id, c.get("principal"), c.req.valid("param").id);
    return c.json(
      {
        success: true,
        has_enriched_analytics: true,
        detail:
          "Enriched analytics recorded on the flag. edgehog has no dashboard product, so no usage dashboard was changed.",
      },
      200,
    );
  })
  .openapi(activity, async (c) => {
    const where = { projectId: c.get("project").id, scope: "FeatureFlag" as const };
    return c.json(await activityPage(c.get("db"), where, c.req.url, c.req.valid("query")), 200);
  })
  .openapi(flagActivity, async (c) => {
    const { id } = c.req.valid("param");
    const projectId = c.get("project").id;
    if (!(await getFlag(c.get("db"), projectId, id))) throw notFound();
    const where = { projectId, scope: "FeatureFlag" as const, itemId: String(id) };
    return c.json(await activityPage(c.get("db"), where, c.req.url, c.req.valid("query")), 200);
  })
  .openapi(bulkKeys, async (c) => {
    const ids = c.req.valid("json").ids ?? [];
    if (!ids.length) return c.json({ keys: {} }, 200);
    const valid = ids.filter((id) => /^\d+$/.test(String(id))).map(Number);
    const invalid = ids.filter((id) => !/^\d+$/.test(String(id)));
    if (!valid.length) return c.json({ error: "Invalid flag IDs provided" }, 400);
    const keys = await keysOf(c.get("db"), c.get("project").id, [...new Set(valid)].slice(0, 1000));
    const body: { keys: Record<string, string>; warning?: string } = {
      keys: Object.fromEntries([...keys].map(([id, key]) => [String(id), key])),
    };
    if (invalid.length) body.warning = `Invalid flag IDs ignored: [${invalid.map((i) => `'${i}'`).join(", ")}]`;
    return c.json(body, 200);
  });
