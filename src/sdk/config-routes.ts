import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { definitionsFor } from "../flags/definitions-response";
import { payloadOf } from "../flags/definitions-cache";
import { authenticationFailed, notFound } from "../lib/errors";
import { jsonResponse as json, jsonTextResponse } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { isWellFormedProjectToken } from "../projects/service";
import { RemoteConfigSchema, remoteConfigJson, remoteConfigScript } from "./remote-config";

const Params = z.object({
  token: z.string().openapi({
    param: { name: "token", in: "path" },
    description: "The project token (`phc_...`)",
    example: "phc_...",
  }),
});

const config = defineRoute({
  method: "get",
  path: "/array/{token}/config",
  tags: ["sdk"],
  summary: "Remote config for posthog-js (JSON)",
  auth: { kind: "project_token" },
  request: { params: Params },
  responses: { 200: json(RemoteConfigSchema, "The project's remote config") },
});

const script = defineRoute({
  method: "get",
  path: "/array/{token}/config.js",
  tags: ["sdk"],
  summary: "Remote config for posthog-js, as the script it loads (sets window._POSTHOG_REMOTE_CONFIG[token])",
  auth: { kind: "project_token" },
  request: { params: Params },
  responses: {
    200: { description: "JavaScript", content: { "application/javascript": { schema: z.string() } } },
  },
});

/** As PostHog serves it: browsers and CDNs may keep it five minutes. */
const CACHE_CONTROL = "public, max-age=300";

/**
 * The flags of the token's project, from the cached flag definitions (no D1 read while cached).
 * A token that cannot be one is refused before any lookup; an unknown one is 404, as PostHog.
 */
async function flagsOfToken(c: Context<AppEnv>, token: string) {
  if (!isWellFormedProjectToken(token))
    throw authenticationFailed("Project API key invalid. You can find your project API key in your project settings.");
  const entry = await definitionsFor(c, token, "cohorts");
  if (!entry) throw notFound("Project not found.");
  return payloadOf(entry).flags;
}

export const sdkConfigRoutes = createRouter()
  .openapi(config, async (c) => {
    const flags = await flagsOfToken(c, c.req.valid("param").token);
    return jsonTextResponse(c, remoteConfigJson(flags), 200, { "Cache-Control": CACHE_CONTROL });
  })
  .openapi(script, async (c) => {
    const { token } = c.req.valid("param");
    const flags = await flagsOfToken(c, token);
    return c.body(remoteConfigScript(token, flags), 200, {
      "Content-Type": "application/javascript",
      "Cache-Control": CACHE_CONTROL,
    });
  });
