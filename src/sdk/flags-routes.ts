import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { evaluateForRequest } from "../flags/evaluate-request";
import { authenticationFailed } from "../lib/errors";
import { jsonResponse as json } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { evaluationRequestOf, sdkBodyOf, tokenOf } from "./request";
import { withConfigFields } from "./remote-config";
import { flagsResponseJson, shapeFor } from "./responses";

const Body = z
  .object({
    token: z
      .string()
      .optional()
      .openapi({ description: "The project token (`phc_...`); `api_key` and `$token` are accepted too." }),
    distinct_id: z.union([z.string(), z.number()]).optional(),
    groups: z.record(z.string(), z.unknown()).optional(),
    person_properties: z.record(z.string(), z.unknown()).optional(),
    group_properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    flag_keys_to_evaluate: z.array(z.string()).optional(),
    $anon_distinct_id: z.string().optional(),
    $device_id: z.string().optional().openapi({
      description: "Hashed instead of the distinct id by flags whose `bucketing_identifier` is `device_id`.",
    }),
    evaluation_contexts: z.array(z.string()).optional().openapi({
      description:
        "Flags with evaluation tags are evaluated only when one of their tags is named here (`evaluation_environments` is accepted too).",
    }),
    evaluation_runtime: z.enum(["client", "server", "all"]).optional().openapi({
      description:
        "Default: detected from the User-Agent, else `client` when browser headers (Origin, Referer, Sec-Fetch-*) are present; an undetermined caller gets only flags without a runtime restriction.",
    }),
  })
  .passthrough()
  .openapi("FlagsRequest");

const Query = z.object({
  v: z.string().optional().openapi({ description: "Response version." }),
  config: z.string().optional().openapi({
    description:
      "`true`: add the remote config's fields (always on for /decide, and when neither `v` nor `config` is sent).",
  }),
  compression: z.string().optional().openapi({ description: "`gzip-js`: the body is gzip-compressed (browser SDKs)." }),
});

/**
 * Documented by reference rather than as a zod schema, so no route validator parses the body
 * before decodeSdkBody: posthog-js sends gzip as text/plain, older builds a base64 form.
 */
const FlagsRequestRef = { $ref: "#/components/schemas/FlagsRequest" };
const body = {
  required: false,
  content: {
    "application/json": { schema: FlagsRequestRef },
    "text/plain": {
      schema: z
        .string()
        .openapi({ description: "The same JSON, gzip-compressed (recognised by its bytes) or base64-encoded" }),
    },
    "application/x-www-form-urlencoded": {
      schema: {
        type: "object" as const,
        properties: { data: { type: "string" as const, description: "base64 of the JSON" } },
      },
    },
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

const isTruthy = (value: string) => value === "" || /^(true|1|yes|on)$/i.test(value);

/**
 * Whether to add the remote config's fields, as PostHog's flags service does: always for /decide,
 * on `config=true`, and when the request names neither `v` nor `config`.
 */
function wantsConfig(c: Context<AppEnv>, api: "flags" | "decide"): boolean {
  const config = c.req.query("config");
  if (api === "decide") return true;
  if (config !== undefined) return isTruthy(config);
  return c.req.query("v") === undefined;
}

async function answer(c: Context<AppEnv>, api: "flags" | "decide") {
  const raw = await sdkBodyOf(c);
  const token = tokenOf(raw, c.req.query("token"));
  const req = evaluationRequestOf(raw, c.req.raw.headers);
  const version = Number.parseInt(c.req.query("v") ?? "", 10);
  const shape = shapeFor(api, Number.isNaN(version) ? 1 : version);
  const evaluation = await evaluateForRequest(c.env, c.get("db"), token, req, (p) => c.executionCtx.waitUntil(p));
  if (!evaluation)
    throw authenticationFailed("Project API key invalid. You can find your project API key in your project settings.");
  // Browsers ask for config only with `disable_flags`.
  const results = raw.disable_flags === true ? {} : evaluation.results;
  // Serialized by flagsResponseJson (cached per flag and outcome), sent as c.json would send it.
  let body = flagsResponseJson(results, shape, c.get("requestId"));
  if (wantsConfig(c, api)) body = withConfigFields(body, evaluation.flags);
  return c.body(body, 200, { "Content-Type": "application/json" });
}

const router = createRouter();
router.openAPIRegistry.register("FlagsRequest", Body);
export const sdkFlagRoutes = router
  .openapi(flags, (c) => answer(c, "flags") as never)
  .openapi(decide, (c) => answer(c, "decide") as never);
