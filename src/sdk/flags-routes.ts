import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { evaluateForRequest } from "../flags/evaluate-request";
import { authenticationFailed } from "../lib/errors";
import { jsonResponse as json, jsonTextResponse } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { evaluationRequestOf, sdkBodyOf, tokenOf } from "./request";
import { withConfigFields } from "./remote-config";
import { DecideResponseSchema, FlagsResponseSchema } from "./response-schemas";
import { decideResponseJson, flagsResponseJson } from "./responses";

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
  token: z
    .string()
    .optional()
    .openapi({ description: "The project token, when the body does not carry one (it wins when it does)." }),
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
/** `/flags` and `/decide` take the same request; only the response shapes differ. */
const evaluationRoute = <S extends z.ZodType>(path: "/flags" | "/decide", summary: string, response: S) =>
  defineRoute({
    method: "post",
    path,
    tags: ["sdk"],
    summary,
    auth: { kind: "project_token" },
    request: { query: Query, body },
    responses: { 200: json(response, "Flag values") },
  });

const flags = evaluationRoute(
  "/flags",
  "Evaluate every flag for one distinct id (v>=2 detailed, v1 legacy)",
  FlagsResponseSchema,
);
const decide = evaluationRoute(
  "/decide",
  "Older flag evaluation (v1 keys, v2 values, v3 legacy, v4 detailed)",
  DecideResponseSchema,
);

const isTruthy = (value: string) => value === "" || /^(true|1|yes|on)$/i.test(value);

type EvaluationQuery = z.infer<typeof Query>;

/**
 * Whether /flags adds the remote config's fields, as PostHog's flags service decides: on
 * `config=true`, and when the request names neither `v` nor `config` (/decide always adds them).
 */
function flagsWantConfig(query: EvaluationQuery): boolean {
  if (query.config !== undefined) return isTruthy(query.config);
  return query.v === undefined;
}

/** The response version asked for (`v`); 1 when absent or not a number. */
function versionOf(query: EvaluationQuery): number {
  const version = Number.parseInt(query.v ?? "", 10);
  return Number.isNaN(version) ? 1 : version;
}

/**
 * Evaluates the flags a /flags or /decide request asks for. The body is read here, not by a route
 * validator: SDKs send it as JSON, gzip or base64 (decodeSdkBody).
 */
async function evaluate(c: Context<AppEnv>, query: EvaluationQuery) {
  const raw = await sdkBodyOf(c);
  const token = tokenOf(raw, query.token);
  const req = evaluationRequestOf(raw, c.req.raw.headers);
  const evaluation = await evaluateForRequest(c.env, c.get("db"), token, req, (p) => c.executionCtx.waitUntil(p));
  if (!evaluation)
    throw authenticationFailed("Project API key invalid. You can find your project API key in your project settings.");
  // Browsers ask for config only with `disable_flags`.
  return { results: raw.disable_flags === true ? {} : evaluation.results, flags: evaluation.flags };
}

// Bodies are serialized by responses.ts (cached per flag and outcome) and sent as c.json would send them.
const router = createRouter();
router.openAPIRegistry.register("FlagsRequest", Body);
export const sdkFlagRoutes = router
  .openapi(flags, async (c) => {
    const query = c.req.valid("query");
    const { results, flags } = await evaluate(c, query);
    const body = flagsResponseJson(results, versionOf(query), c.get("requestId"));
    return jsonTextResponse(c, flagsWantConfig(query) ? withConfigFields(body, flags) : body, 200);
  })
  .openapi(decide, async (c) => {
    const query = c.req.valid("query");
    const { results, flags } = await evaluate(c, query);
    const body = decideResponseJson(results, versionOf(query), c.get("requestId"));
    return jsonTextResponse(c, withConfigFields(body, flags), 200);
  });
