import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { RouteConfig } from "@hono/zod-openapi";
import type { Context, Next } from "hono";
import type { AppEnv } from "../env";
import type { Scope } from "./auth/scopes";
import { fromZodError } from "./errors";

/**
 * How a route is authenticated, declared next to its schema:
 * - `personal`: a personal API key (or the root key) holding every listed scope; `[]` = any valid key;
 * - `root`: only the deployment's root key (creating projects and keys);
 * - `project_token`: the public project token `phc_...` in the request (SDK surfaces);
 * - `public`: no credentials (health, schema, docs).
 */
export type RouteAuth =
  | {
      kind: "personal";
      scopes: Scope[];
      /**
       * Hot SDK routes (flag definitions polled by every server) may reuse a resolved key for this
       * long within an isolate, so an unchanged poll answers without touching D1.
       */
      principalCacheMs?: number;
    }
  | { kind: "root" }
  | { kind: "project_token" }
  | { kind: "public" };

/** The route auth that needs a key checked (personal or root). */
export type KeyAuth = Extract<RouteAuth, { kind: "personal" | "root" }>;

/**
 * Checks a request's key against a route's `KeyAuth`, sets `principal` (and `project` on routes
 * with `{project_id}`), then calls `next`. The check needs keys and projects, which sit above
 * lib/, so app.ts provides it in the request variables (src/auth/middleware.ts).
 */
export type Authenticator = (c: Context<AppEnv>, auth: KeyAuth, next: Next) => Promise<void>;

export const ErrorSchema = z
  .object({
    type: z.enum(["validation_error", "authentication_error", "invalid_request", "server_error", "throttled_error"]),
    code: z.string(),
    detail: z.string(),
    attr: z.string().nullable(),
  })
  .openapi("Error");

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorSchema } },
});

function errorResponsesFor(auth: RouteAuth) {
  const common = {
    400: errorResponse("Invalid input"),
    413: errorResponse("Request body too large"),
    500: errorResponse("Server error"),
  };
  if (auth.kind === "public") return common;
  return {
    ...common,
    401: errorResponse("Missing or invalid credentials"),
    ...(auth.kind === "project_token" ? {} : { 403: errorResponse("Missing scope or project access") }),
    404: errorResponse("Not found"),
  };
}

function securityFor(auth: RouteAuth) {
  if (auth.kind === "personal" || auth.kind === "root") return [{ PersonalAPIKey: [] }];
  if (auth.kind === "project_token") return [{ ProjectToken: [] }];
  return [];
}

/**
 * `createRoute` plus the route's authentication: it installs the auth middleware, documents
 * the security scheme and required scopes (`x-required-scopes`), and adds the shared error responses.
 */
export function defineRoute<const R extends RouteConfig>(config: R & { auth: RouteAuth }) {
  const { auth, ...route } = config;
  const middleware =
    auth.kind === "personal" || auth.kind === "root"
      ? [(c: Context<AppEnv>, next: Next) => c.var.authenticate(c, auth, next)]
      : [];
  const extensions =
    auth.kind === "personal" ? { "x-auth": auth.kind, "x-required-scopes": auth.scopes } : { "x-auth": auth.kind };
  return createRoute({
    ...route,
    ...extensions,
    security: securityFor(auth),
    responses: { ...errorResponsesFor(auth), ...route.responses },
    middleware: [...middleware, ...[route.middleware ?? []].flat()],
  } as unknown as R);
}

/** A router whose validation failures answer in PostHog's envelope. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw fromZodError(result.error);
    },
  });
}

export type Router = ReturnType<typeof createRouter>;
