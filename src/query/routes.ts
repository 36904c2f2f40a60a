import { jsonResponse } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { InsightActorsQuery } from "../insights/actors";
import { INSIGHT_SCHEMAS } from "../insights/insight";
import { ActorsQuery } from "./actors";
import { ProjectParams } from "../projects/schema";
import { HogQLQueryNode, QueryRequest, QueryResponse, QueryWrapperNode } from "./schema";
import { runQuery } from "./service";

const queryRoute = defineRoute({
  method: "post",
  path: "/api/environments/{project_id}/query",
  tags: ["query"],
  summary: "Run a query (PostHog's Query API): HogQL, an insight (Trends, Lifecycle, Stickiness) or its persons",
  description:
    "PostHog's `POST /query/`, as its agent toolkit's `query-run` calls it. The answer is always computed now and returned with status 200 (`async`, `refresh` and `client_query_id` are accepted).",
  auth: { kind: "personal", scopes: ["query:read"] },
  request: {
    params: ProjectParams,
    body: { content: { "application/json": { schema: QueryRequest } }, required: true },
  },
  responses: { 200: jsonResponse(QueryResponse, "The query's results") },
});

export const queryRoutes = createRouter();
queryRoutes.openAPIRegistry.register("HogQLQueryNode", HogQLQueryNode);
for (const [kind, schema] of Object.entries(INSIGHT_SCHEMAS)) queryRoutes.openAPIRegistry.register(kind, schema);
queryRoutes.openAPIRegistry.register("ActorsQuery", ActorsQuery);
queryRoutes.openAPIRegistry.register("InsightActorsQuery", InsightActorsQuery);
queryRoutes.openAPIRegistry.register("QueryWrapperNode", QueryWrapperNode);
queryRoutes.openapi(queryRoute, async (c) => {
  const body = c.req.valid("json");
  return c.json(await runQuery(c.env, c.get("db"), c.get("project"), body), 200);
});
