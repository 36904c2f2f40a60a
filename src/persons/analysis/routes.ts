import type { Context } from "hono";
import { analyticsStore } from "../../analytics";
import type { AnalysisContext } from "./context";
import type { AppEnv } from "../../env";
import { parseError, validationError } from "../../lib/errors";
import { jsonResponse as json } from "../../lib/openapi";
import { createRouter, defineRoute, type RouteAuth } from "../../lib/route";
import { ProjectParams } from "../../projects/schema";
import { correlationActors } from "./correlation";
import { funnelActors } from "./funnel";
import { lifecycleActors } from "./lifecycle";
import { type Input, mergeInput, str } from "./params";
import { ActorsResponseSchema } from "./response";
import { CorrelationQuery, FilterBody, FunnelQuery, LifecycleQuery, StickinessQuery } from "./schema";
import { stickinessActors } from "./stickiness";

const BASE = "/api/environments/{project_id}/persons";
const auth: RouteAuth = { kind: "personal", scopes: ["person:read"] };
const optionalBody = { required: false, content: { "application/json": { schema: FilterBody } } };
const actors = (description: string) => ({ 200: json(ActorsResponseSchema, description) });

const route = <M extends "get" | "post">(
  method: M,
  path: string,
  summary: string,
  query: typeof FunnelQuery | typeof CorrelationQuery | typeof LifecycleQuery | typeof StickinessQuery,
) =>
  defineRoute({
    method,
    path: `${BASE}/${path}`,
    tags: ["persons"],
    summary,
    auth,
    request: { params: ProjectParams, query, ...(method === "post" ? { body: optionalBody } : {}) },
    responses: actors("One page of persons in PostHog's actors envelope"),
  });

const funnelGet = route("get", "funnel", "Persons in a funnel step (drill-down)", FunnelQuery);
const funnelPost = route("post", "funnel", "Persons in a funnel step, filter as JSON body", FunnelQuery);
const correlationGet = route("get", "funnel/correlation", "Funnel correlation persons (and table)", CorrelationQuery);
const correlationPost = route(
  "post",
  "funnel/correlation",
  "Funnel correlation persons, filter as JSON body",
  CorrelationQuery,
);
const lifecycleGet = route("get", "lifecycle", "Persons in a lifecycle bucket", LifecycleQuery);
const stickinessGet = route("get", "stickiness", "Persons active in exactly N intervals", StickinessQuery);

type Handler = (ctx: AnalysisContext, input: Input, url: string) => Promise<unknown>;

/** The project context (time zone, "now", first event) and where events and persons are read. */
function analysisContext(c: Context<AppEnv>): AnalysisContext {
  const project = c.get("project");
  const store = analyticsStore(c.env, c.get("db"));
  return {
    projectId: project.id,
    timezone: project.timezone,
    testAccountFilters: project.testAccountFilters,
    now: Date.now(),
    earliest: () => store.earliestEvent(project.id),
    store,
    db: c.get("db"),
  };
}

async function bodyOf(c: Context<AppEnv>): Promise<unknown> {
  if (c.req.method !== "POST") return undefined;
  const text = await c.req.text();
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw parseError();
  }
}

const serve = (handler: Handler) => async (c: Context<AppEnv>) => {
  const input = mergeInput(c.req.query(), await bodyOf(c));
  if (str(input, "search") !== undefined)
    throw validationError("search is not supported on analysis drill-downs; use properties.", "search");
  return c.json(await handler(analysisContext(c), input, c.req.url), 200);
};

export const analysisRoutes = createRouter()
  .openapi(funnelGet, serve(funnelActors) as never)
  .openapi(funnelPost, serve(funnelActors) as never)
  .openapi(correlationGet, serve(correlationActors) as never)
  .openapi(correlationPost, serve(correlationActors) as never)
  .openapi(lifecycleGet, serve(lifecycleActors) as never)
  .openapi(stickinessGet, serve(stickinessActors) as never);
