import { z } from "@hono/zod-openapi";
import { jsonResponse, jsonText, jsonTextResponse } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { UUID } from "./normalize";
import { v1RequestMeta } from "./normalize-v1";
import { captureRequest, captureV1Request, type V1Result } from "./service";
import { CaptureV1Request } from "./v1-schema";

const CaptureResponse = z
  .object({
    status: z.literal(1),
    rejected: z
      .array(z.object({ index: z.number().int(), reason: z.string() }))
      .optional()
      .openapi({ description: "Events of the batch that were not stored (by position), when any; the others were." }),
  })
  .openapi("CaptureResponse");

const description = [
  "Event capture as PostHog SDKs send it. The body is one event, an array of events, or",
  '`{"api_key": "phc_...", "batch": [...], "sent_at": "..."}`; plain JSON, gzip (`Content-Encoding: gzip` or',
  "`?compression=gzip-js`) or form-encoded `data=` (JSON or base64 of JSON). The project token is read from",
  "`api_key`/`token` of the body, of an event, of `properties.token`, or of the query string.",
].join(" ");

const captureRoute = (path: string, summary: string) =>
  defineRoute({
    method: "post",
    path,
    tags: ["capture"],
    summary,
    description,
    auth: { kind: "project_token" },
    responses: { 200: jsonResponse(CaptureResponse, "Stored (events listed in `rejected` were not)") },
  });

/** The four capture paths PostHog SDKs use, all served by the same handler. */
export const CAPTURE_PATHS = ["/batch", "/capture", "/e", "/i/v0/e"] as const;

/** PostHog's Capture V1 path (posthog-node with `POSTHOG_CAPTURE_MODE=v1`), answered per event. */
export const CAPTURE_V1_PATH = "/i/v1/analytics/events";

/** Capture batches get more room than other bodies (PostHog accepts 20 MB), compressed or decoded. */
export const CAPTURE_BODY_LIMIT = 20 * 1024 * 1024;

const V1Result = z
  .object({
    result: z.enum(["ok", "drop", "retry"]),
    details: z.string().optional().openapi({
      description:
        "Why the event is not `ok`: PostHog's tag (`missing_distinct_id`, `invalid_event_timestamp`, `event_too_big`, `not_persisted`, ...).",
    }),
  })
  .openapi("CaptureV1Result");

const CaptureV1Response = z
  .object({
    results: z.record(z.string(), V1Result).openapi({
      description: "One result per event of the batch, keyed by its uuid as sent, in the batch's order.",
    }),
  })
  .openapi("CaptureV1Response");

const OK = JSON.stringify({ result: "ok" });

/**
 * The results as JSON text, written directly: a batch of 1000 events answers 1000 entries, nearly
 * all `ok`, and building then serializing an object per event costs more than the rest of the answer.
 * The keys are the uuids as sent: nothing to escape in the usual hyphenated form.
 */
function v1ResultsJson(results: [string, V1Result][]) {
  const entries: string[] = [];
  for (const [uuid, result] of results) {
    const key = UUID.test(uuid) ? `"${uuid}"` : JSON.stringify(uuid);
    entries.push(`${key}:${result.result === "ok" && !result.details ? OK : JSON.stringify(result)}`);
  }
  return jsonText<z.infer<typeof CaptureV1Response>>(`{"results":{${entries.join(",")}}}`);
}

const captureV1Route = defineRoute({
  method: "post",
  path: CAPTURE_V1_PATH,
  tags: ["capture"],
  summary: "Capture events, PostHog's V1 protocol (per-event results)",
  description: [
    "The protocol of PostHog's newest SDKs. The project token is the `Authorization: Bearer` credential; the body",
    "is JSON, gzip-compressed with `Content-Encoding: gzip` when the SDK compresses. Each event is answered on its",
    "own: `ok` (stored), `drop` (malformed, with the reason in `details`; not worth retrying) or `retry` (not stored",
    "this time; the answer then carries `Retry-After`). A batch with no events, an event without a valid uuid or a",
    "uuid sent twice is refused whole (400). An event sent again with the same uuid is stored once.",
    "`PostHog-Request-Timestamp` (RFC 3339) is the SDK's clock for the skew correction, `PostHog-Sdk-Info`",
    "(`posthog-node/5.70.0`) gives the events' `$lib` and `$lib_version`.",
  ].join(" "),
  auth: { kind: "project_token" },
  request: {
    headers: z.object({
      "PostHog-Sdk-Info": z.string().optional(),
      "PostHog-Attempt": z.string().optional(),
      "PostHog-Request-Id": z.string().optional(),
      "PostHog-Request-Timestamp": z.string().optional(),
    }),
    // By reference: no route validator may read the body before it is decompressed.
    body: {
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/CaptureV1Request" } } },
    },
  },
  responses: { 200: jsonResponse(CaptureV1Response, "Each event's result") },
});

const router = createRouter();
for (const path of CAPTURE_PATHS) {
  router.openapi(captureRoute(path, `Capture events (${path}/)`), async (c) => {
    const result = await captureRequest(c.env, c.get("db"), c.req.raw, CAPTURE_BODY_LIMIT);
    return c.json(
      result.rejected.length ? { status: 1 as const, rejected: result.rejected } : { status: 1 as const },
      200,
    );
  });
}
router.openAPIRegistry.register("CaptureV1Request", CaptureV1Request);
router.openapi(captureV1Route, async (c) => {
  const meta = v1RequestMeta(c.req.raw.headers);
  const results = await captureV1Request(c.env, c.get("db"), meta, c.req.raw, CAPTURE_BODY_LIMIT);
  const requestId = c.req.header("posthog-request-id");
  if (requestId) c.header("PostHog-Request-Id", requestId);
  // The SDK waits at least this long before sending the `retry` events again.
  if (results.some(([, r]) => r.result === "retry")) c.header("Retry-After", "1");
  return jsonTextResponse(c, v1ResultsJson(results), 200);
});
export const captureRoutes = router;
