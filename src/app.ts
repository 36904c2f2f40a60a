import { Hono } from "hono";
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { createDb } from "./db/client";
import { registerDocs } from "./docs/routes";
import type { AppEnv } from "./env";
import { endpointRoutes } from "./endpoints/routes";
import { keyRoutes } from "./keys/routes";
import { errorResponse, handleError, methodNotAllowed, notFound, payloadTooLarge } from "./lib/errors";
import { pathMatcher } from "./lib/method-not-allowed";
import { analysisRoutes } from "./persons/analysis/routes";
import { createRouter, type Router } from "./lib/route";
import { projectRoutes } from "./projects/routes";

/** Management bodies are small; SDK capture batches get more room (PostHog accepts 20 MB). */
const MANAGEMENT_BODY_LIMIT = 1024 * 1024;
export const CAPTURE_BODY_LIMIT = 20 * 1024 * 1024;

const limitBody = (maxSize: number) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw payloadTooLarge(maxSize);
    },
  });

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

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: createRouter().defaultHook });

  app.use("*", async (c, next) => {
    const requestId = crypto.randomUUID();
    c.set("requestId", requestId);
    c.header("X-Request-Id", requestId);
    c.set("db", createDb(c.env.DB));
    await next();
  });
  app.use("*", limitBody(MANAGEMENT_BODY_LIMIT));

  mountProjectScoped(app, projectRoutes, "projects");
  // Before the persons router, so /persons/funnel etc. never reach its /persons/{id} routes.
  mountProjectScoped(app, analysisRoutes, "environments");
  mountProjectScoped(app, endpointRoutes, "environments");
  app.route("/", keyRoutes);
  registerDocs(app);

  const isKnownPath = pathMatcher(app);
  app.notFound((c) => errorResponse(c, isKnownPath(c.req.path) ? methodNotAllowed(c.req.method) : notFound()));
  app.onError(handleError);
  return app;
}
