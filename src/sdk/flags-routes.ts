import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { evaluateForRequest } from "../flags/evaluate-request";
import { authenticationFailed } from "../lib/errors";
import { jsonResponse as json } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { evaluationRequestOf, readSdkBody, tokenOf } from "./request";
import { flagsResponse, shapeFor } from "./responses";

const Body = z
  .object({
    token: z.string().optional().openapi({ description: "The project token (`phc_...`); `api_key` and `$token` are accepted too." }),
    distinct_id: z.union([z.string(), z.number()]).optional(),
    groups: z.record(z.string(), z.unknown()).optional(),
    person_properties: z.record(z.string(), z.unknown()).optional(),
    group_properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    flag_keys_to_evaluate: z.array(z.string()).optional(),
    $anon_distinct_id: z.string().optional(),
    $device_id: z.string().optional(),
  })
  .passthrough()
  .openapi("FlagsRequest");

const Query = z.object({
  v: z.string().optional().openapi({ description: "Response version." }),
  config: z.string().optional(),
});

const body = { required: false, content: { "application/json": { schema: Body } } };
const Response = z.record(z.string(), z.unknown());

const flags = defineRoute({
  method: "post",
  path: "/flags",
  tags: ["sdk"],
  summary: "Evaluate every flag for one distinct id (v>=2 detailed, v1 legacy)",
  auth: { kind: "project_token" },
  request: { query: Query, body },
  responses: { 200: json(Response, "Flag values") },
});

const decide = defineRoute({
  method: "post",
  path: "/decide",
  tags: ["sdk"],
  summary: "Older flag evaluation (v1 keys, v2 values, v3 legacy, v4 detailed)",
  auth: { kind: "project_token" },
  request: { query: Query, body },
  responses: { 200: json(Response, "Flag values") },
});

async function answer(c: Context<AppEnv>, api: "flags" | "decide") {
  // A JSON body was already parsed by the route's validator; other encodings are read here.
  const validated = /json/i.test(c.req.header("content-type") ?? "") ? (c.req.valid as (t: "json") => unknown)("json") : undefined;
  const raw = validated && typeof validated === "object" ? (validated as Record<string, unknown>) : await readSdkBody(c);
  const token = tokenOf(raw, c.req.query("token"));
  const req = evaluationRequestOf(raw);
  const version = Number.parseInt(c.req.query("v") ?? "", 10);
  const shape = shapeFor(api, Number.isNaN(version) ? 1 : version);
  const evaluation = await evaluateForRequest(c.env, c.get("db"), token, req, (p) => c.executionCtx.waitUntil(p));
  if (!evaluation) throw authenticationFailed("Project API key invalid. You can find your project API key in your project settings.");
  // Browsers ask for config only with `disable_flags`.
  const results = raw.disable_flags === true ? {} : evaluation.results;
  return c.json(flagsResponse(results, shape, c.get("requestId")), 200);
}

export const sdkFlagRoutes = createRouter()
  .openapi(flags, (c) => answer(c, "flags"))
  .openapi(decide, (c) => answer(c, "decide"));
