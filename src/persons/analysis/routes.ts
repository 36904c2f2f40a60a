import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { analyticsStore } from "../../analytics";
import type { AnalysisContext } from "./context";
import type { AppEnv } from "../../env";
import { jsonResponse as json } from "../../lib/openapi";
import { createRouter, defineRoute, type RouteAuth } from "../../lib/route";
import { ProjectParams } from "../../projects/schema";
import { weekStartOf } from "../../projects/service";
import { correlationActors } from "./correlation";
import { funnelActors } from "./funnel";
import { lifecycleActors } from "./lifecycle";
import { analysisInput, withUndeclaredParams } from "./input";
import type { Input } from "./params";
import { type ActorsResponse, ActorsResponseSchema } from "./response";
import { CorrelationQuery, FilterBody, FunnelQuery, LifecycleQuery, StickinessQuery } from "./schema";
import { stickinessActors } from "./stickiness";

const BASE = "/api/environments/{project_id}/persons";
const auth: RouteAuth = { kind: "personal", scopes: ["person:read"] };
const optionalBody = { required: false, content: { "application/json": { schema: FilterBody } } };

/** What a drill-down route declares besides its method and request. */
const declaration = (path: string, summary: string) => ({
  path: `${BASE}/${path}`,
  tags: ["persons"],
  summary,
  auth,
  responses: { 200: json(ActorsResponseSchema, "One page of persons in PostHog's actors envelope") },
});

/** A drill-down with its parameters in the query string. */
const getRoute = <S extends z.ZodRawShape>(path: string, summary: string, query: z.ZodObject<S>) =>
  defineRoute({
    method: "get",
    ...declaration(path, summary),
    request: { params: ProjectParams, query: withUndeclaredParams(query) },
  });

/** A drill-down that also takes its parameters as a JSON body (body values win). */
const postRoute = <S extends z.ZodRawShape>(path: string, summary: string, query: z.ZodObject<S>) =>
  defineRoute({
    method: "post",
    ...declaration(path, summary),
    request: { params: ProjectParams, query: withUndeclaredParams(query), body: optionalBody },
  });

const funnelGet = getRoute("funnel", "Persons in a funnel step (drill-down)", FunnelQuery);
const funnelPost = postRoute("funnel", "Persons in a funnel step, filter as JSON body", FunnelQuery);
const correlationGet = getRoute("funnel/correlation", "Funnel correlation persons (and table)", CorrelationQuery);
const correlationPost = postRoute(
  "funnel/correlation",
  "Funnel correlation persons, filter as JSON body",
  CorrelationQuery,
);
const lifecycleGet = getRoute("lifecycle", "Persons in a lifecycle bucket", LifecycleQuery);
const stickinessGet = getRoute("stickiness", "Persons active in exactly N intervals", StickinessQuery);

/** An analysis service: one page of persons for the input. */
type ActorsService = (ctx: AnalysisContext, input: Input, url: string) => Promise<ActorsResponse>;

/** The project context (time zone, "now") and where events and persons are read. */
function analysisContext(c: Context<AppEnv>): AnalysisContext {
  const project = c.get("project");
  return {
    projectId: project.id,
    timezone: project.timezone,
    weekStart: weekStartOf(project),
    testAccountFilters: project.testAccountFilters,
    now: Date.now(),
    store: analyticsStore(c.env, c.get("db")),
    db: c.get("db"),
  };
}

/** Runs the service in the project's context and answers its page of persons. */
async function serve(c: Context<AppEnv>, service: ActorsService, input: Input) {
  return c.json(await service(analysisContext(c), input, c.req.url), 200);
}

export const analysisRoutes = createRouter()
  .openapi(funnelGet, (c) => serve(c, funnelActors, analysisInput(c.req.valid("query"))))
  .openapi(funnelPost, (c) => serve(c, funnelActors, analysisInput(c.req.valid("query"), c.req.valid("json"))))
  .openapi(correlationGet, (c) => serve(c, correlationActors, analysisInput(c.req.valid("query"))))
  .openapi(correlationPost, (c) =>
    serve(c, correlationActors, analysisInput(c.req.valid("query"), c.req.valid("json"))),
  )
  .openapi(lifecycleGet, (c) => serve(c, lifecycleActors, analysisInput(c.req.valid("query"))))
  .openapi(stickinessGet, (c) => serve(c, stickinessActors, analysisInput(c.req.valid("query"))));
