import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { cohortVariant, definitionsFor, definitionsResponse } from "../flags/definitions-response";
import { DefinitionsSchema } from "../flags/definitions-schema";
import { canReachProject } from "../lib/auth/principal";
import { authenticationFailed, permissionDenied, validationError } from "../lib/errors";
import { jsonResponse as json } from "../lib/openapi";
import { createRouter, defineRoute, type RouteAuth } from "../lib/route";

const Query = z.object({
  token: z.string().optional().openapi({ description: "The project token (`phc_...`) whose flags to send." }),
  send_cohorts: z.string().optional().openapi({ description: "Present (or true): include cohort definitions." }),
});

const responses = {
  200: json(DefinitionsSchema, "Flag definitions for local evaluation (ETag set)"),
  304: { description: "Unchanged since the ETag sent in If-None-Match" },
};

/** A revoked key may still poll for up to this long on an isolate that has just seen it. */
const auth: RouteAuth = { kind: "personal", scopes: ["feature_flag:read"], principalCacheMs: 10_000 };

const definitions = defineRoute({
  method: "get",
  path: "/flags/definitions",
  tags: ["sdk"],
  summary: "Flag definitions for SDK local evaluation (personal key with feature_flag:read)",
  auth,
  request: { query: Query },
  responses,
});

const legacy = defineRoute({
  method: "get",
  path: "/api/feature_flag/local_evaluation",
  tags: ["sdk"],
  summary: "Flag definitions for local evaluation (older SDK path; same payload)",
  auth,
  request: { query: Query },
  responses,
});

/** These paths carry no project id: the token names the project, and the key must be allowed to reach it. */
async function byToken(c: Context<AppEnv>, { token, send_cohorts }: z.infer<typeof Query>) {
  if (!token) throw validationError("token is required", "token", "required");
  const entry = await definitionsFor(c, token, cohortVariant(send_cohorts));
  if (!entry)
    throw authenticationFailed("Project API key invalid. You can find your project API key in your project settings.");
  if (!canReachProject(c.get("principal"), entry.projectId)) {
    throw permissionDenied(`API key does not have access to the requested project: ID ${entry.projectId}.`);
  }
  return definitionsResponse(c, entry);
}

export const sdkDefinitionRoutes = createRouter()
  .openapi(definitions, (c) => byToken(c, c.req.valid("query")))
  .openapi(legacy, (c) => byToken(c, c.req.valid("query")));
