import { Hono } from "hono";
import { OpenAPIHono } from "@hono/zod-openapi";
import { authenticate } from "./auth/middleware";
import { cors } from "./lib/cors";
import { d1Sessions } from "./lib/d1-sessions";
import { withoutTrailingSlash } from "./lib/path";
import { CAPTURE_BODY_LIMIT, CAPTURE_PATHS, CAPTURE_V1_PATH, captureRoutes } from "./capture/routes";
import { personCohortsRoutes } from "./cohorts/person-cohorts-routes";
import { cohortRoutes } from "./cohorts/routes";
import { refreshFlagDefinitions } from "./flags/definitions-cache";
import { flagCrudRoutes } from "./flags/crud-routes";
import { flagEvaluationRoutes } from "./flags/evaluation-routes";
import { flagOperationRoutes } from "./flags/operation-routes";
import { registerDocs } from "./docs/routes";
import type { AppEnv } from "./env";
import { endpointRoutes } from "./endpoints/routes";
import { keyRoutes } from "./keys/routes";
import { organizationRoutes } from "./organizations/routes";
import { DEFAULT_BODY_LIMIT, limitBodyByPath } from "./lib/body-limit";
import { errorResponse, handleError, methodNotAllowed, notFound } from "./lib/errors";
import { pathMatcher } from "./lib/method-not-allowed";
import { analysisRoutes } from "./persons/analysis/routes";
import { createRouter, type Router } from "./lib/route";
import { personActionRoutes } from "./persons/action-routes";
import { personInfoRoutes } from "./persons/info-routes";
import { personRoutes } from "./persons/routes";
import { projectRoutes } from "./projects/routes";
import { queryRoutes } from "./query/routes";
import { definitionRoutes } from "./definitions/routes";
import { sdkConfigRoutes } from "./sdk/config-routes";
import { sdkDefinitionRoutes } from "./sdk/definitions-routes";
import { sdkFlagRoutes } from "./sdk/flags-routes";
import { userRoutes } from "./users/routes";

/**
 * Mounts a router whose paths start with `/api/projects/{project_id}` (or `/api/environments/...`)
 * under both prefixes: PostHog treats the two as the same project. Only the canonical form is documented.
 */
export function mountProjectScoped(app: OpenAPIHono<AppEnv>, router: Router, canonical: "projects" | "environments") {
  app.route("/", router);
  const alias = canonical === "projects" ? "environments" : "projects";
  const aliased = new Hono<AppEnv>();
  const scoped = `/api/${canonical}/:project_id`;
  for (const r of router.routes) {
    if (r.path.startsWith(scoped)) aliased.on(r.method, r.path.replace(scoped, `/api/${alias}/:project_id`), r.handler);
  }
  // Hono's own route(), not OpenAPIHono's, so the alias is served but not documented twice.
  Hono.prototype.route.call(app as unknown as Hono, "/", aliased as unknown as Hono);
}

/** The surface posthog-js calls from any site (capture, flag evaluation, remote config). */
const SDK_FLAG_PATHS = new Set(["/flags", "/decide"]);
const ALL_CAPTURE_PATHS = [...CAPTURE_PATHS, CAPTURE_V1_PATH];
const SDK_PATHS = new Set<string>([...ALL_CAPTURE_PATHS, ...SDK_FLAG_PATHS]);
const isSdkPath = (path: string) => SDK_PATHS.has(path) || path.startsWith("/array/");

/**
 * Requests that only read D1, which a read replica may serve: GETs, and the POSTs that evaluate
 * flags or run a saved query (a /flags write, an experience-continuity override, still goes to the
 * primary, within the same session).
 */
const ENDPOINT_RUN = /^\/api\/(?:environments|projects)\/[^/]+\/endpoints\/[^/]+\/run\/?$/;
const QUERY_API = /^\/api\/(?:environments|projects)\/[^/]+\/query\/?$/;
const readsOnly = (method: string, path: string) =>
  method === "GET" ||
  method === "HEAD" ||
  SDK_FLAG_PATHS.has(withoutTrailingSlash(path)) ||
  ENDPOINT_RUN.test(path) ||
  QUERY_API.test(path);

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: createRouter().defaultHook });

  app.use("*", async (c, next) => {
    const requestId = crypto.randomUUID();
    c.set("requestId", requestId);
    c.header("X-Request-Id", requestId);
    c.set("authenticate", authenticate);
    c.set("refreshFlagDefinitions", (projectId) => refreshFlagDefinitions(c.env, c.get("db"), projectId));
    await next();
  });
  app.use("*", d1Sessions({ readsOnly }));
  app.use("*", cors({ isSdkPath }));
  app.use("*", limitBodyByPath(DEFAULT_BODY_LIMIT, [{ paths: ALL_CAPTURE_PATHS, maxSize: CAPTURE_BODY_LIMIT }]));

  mountProjectScoped(app, projectRoutes, "projects");
  // Before the persons router, so /persons/funnel etc. never reach its /persons/{id} routes.
  mountProjectScoped(app, analysisRoutes, "environments");
  // The flags' operations before their CRUD, so `/feature_flags/local_evaluation` is not read as `/feature_flags/{id}`.
  mountProjectScoped(app, flagEvaluationRoutes, "projects");
  mountProjectScoped(app, flagOperationRoutes, "projects");
  mountProjectScoped(app, flagCrudRoutes, "projects");
  mountProjectScoped(app, endpointRoutes, "environments");
  mountProjectScoped(app, queryRoutes, "environments");
  mountProjectScoped(app, definitionRoutes, "projects");
  mountProjectScoped(app, cohortRoutes, "projects");
  // Persons: routers with static paths under /persons/ (actions, analysis) mount before the /persons/{id} routes.
  mountProjectScoped(app, personInfoRoutes, "environments");
  mountProjectScoped(app, personCohortsRoutes, "environments");
  mountProjectScoped(app, personActionRoutes, "environments");
  mountProjectScoped(app, personRoutes, "environments");
  app.route("/", keyRoutes);
  app.route("/", userRoutes);
  app.route("/", organizationRoutes);
  // The SDK-facing surface: remote evaluation, local-evaluation definitions and remote config.
  app.route("/", sdkFlagRoutes);
  app.route("/", sdkDefinitionRoutes);
  app.route("/", sdkConfigRoutes);
  app.route("/", captureRoutes);
  registerDocs(app);

  const isKnownPath = pathMatcher(app);
  app.notFound((c) => errorResponse(c, isKnownPath(c.req.path) ? methodNotAllowed(c.req.method) : notFound()));
  app.onError(handleError);
  return app;
}
