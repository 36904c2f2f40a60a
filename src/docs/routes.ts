import { z } from "@hono/zod-openapi";
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { jsonResponse } from "../lib/openapi";
import { defineRoute } from "../lib/route";
import { docsPage } from "./page";

/** The API's own public GET routes (schema, docs, health), listed under `meta`. */
const metaRoute = <Ok extends RouteConfig["responses"][number]>(path: string, summary: string, ok: Ok) =>
  defineRoute({ method: "get", path, tags: ["meta"], summary, auth: { kind: "public" }, responses: { 200: ok } });

const schemaRoute = metaRoute(
  "/api/schema",
  "This API as an OpenAPI 3.1 document",
  jsonResponse(z.record(z.string(), z.unknown()), "OpenAPI 3.1 document"),
);
const docsRoute = metaRoute("/api/docs", "Browsable API reference (served offline by the worker)", {
  description: "HTML page",
  content: { "text/html": { schema: z.string() } },
});
const healthRoute = metaRoute(
  "/_health",
  "Liveness check",
  jsonResponse(z.object({ status: z.literal("ok") }), "The worker is up"),
);

/** Registers the document on the top-level app, where every area's routes have been merged. */
export function registerDocs(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "PersonalAPIKey", {
    type: "http",
    scheme: "bearer",
    description:
      "A personal API key `phx_...` (or the deployment's root key). Scopes are listed per operation in `x-required-scopes`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "ProjectToken", {
    type: "apiKey",
    in: "query",
    name: "token",
    description:
      "The public project token `phc_...`, sent by SDKs in the body (`api_key`/`token`) or the query string.",
  });
  let document: unknown;
  app
    .openapi(schemaRoute, (c) => {
      document ??= app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: "edgehog",
          version: "0.1.0",
          description:
            "A PostHog-compatible product-analytics API on Cloudflare Workers. Every path under `/api/projects/{project_id}` is also served under `/api/environments/{project_id}` and the other way round; a trailing slash is optional everywhere.",
        },
      });
      return c.json(document as Record<string, unknown>, 200);
    })
    .openapi(docsRoute, (c) => c.html(docsPage("/api/schema"), 200))
    .openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
}
