import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { evaluateForRequest } from "../flags/evaluate-request";
import { authenticationFailed } from "../lib/errors";
import { jsonResponse as json } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { evaluationRequestOf, sdkBodyOf, tokenOf } from "./request";
import { flagsResponseJson, shapeFor } from "./responses";

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
  compression: z.string().optional().openapi({ description: "`gzip-js`: the body is gzip-compressed (browser SDKs)." }),
});

/** JSON from server SDKs; browsers may send gzip or base64 as text/plain, or a form with `data`. */
const body = {
  required: false,
  content: {
    "application/json": { schema: Body },
    "text/plain": { schema: z.string().openapi({ description: "gzip (`?compression=gzip-js`) or base64-encoded JSON" }) },
    "application/x-www-form-urlencoded": { schema: z.object({ data: z.string().optional() }).passthrough() },
  },
};
const Response = z.record(z.string(), z.unknown());

/** `/flags` and `/decide` take the same request; only the response shapes differ. */
const evaluationRoute = (path: "/flags" | "/decide", summary: string) =>
  defineRoute({
    method: "post",
    path,
    tags: ["sdk"],
    summary,
    auth: { kind: "project_token" },
    request: { query: Query, body },
    responses: { 200: json(Response, "Flag values") },
  });

const flags = evaluationRoute("/flags", "Evaluate every flag for one distinct id (v>=2 detailed, v1 legacy)");
const decide = evaluationRoute("/decide", "Older flag evaluation (v1 keys, v2 values, v3 legacy, v4 detailed)");

async function answer(c: Context<AppEnv>, api: "flags" | "decide") {
  const raw = await sdkBodyOf(c);
  const token = tokenOf(raw, c.req.query("token"));
  const req = evaluationRequestOf(raw);
  const version = Number.parseInt(c.req.query("v") ?? "", 10);
  const shape = shapeFor(api, Number.isNaN(version) ? 1 : version);
  const evaluation = await evaluateForRequest(c.env, c.get("db"), token, req, (p) => c.executionCtx.waitUntil(p));
  if (!evaluation) throw authenticationFailed("Project API key invalid. You can find your project API key in your project settings.");
  // Browsers ask for config only with `disable_flags`.
  const results = raw.disable_flags === true ? {} : evaluation.results;
  // Serialized by flagsResponseJson (cached per flag and outcome), sent as c.json would send it.
  return c.body(flagsResponseJson(results, shape, c.get("requestId")), 200, { "Content-Type": "application/json" });
}

export const sdkFlagRoutes = createRouter()
  .openapi(flags, (c) => answer(c, "flags") as never)
  .openapi(decide, (c) => answer(c, "decide") as never);
