import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../lib/openapi";
import { createRouter, defineRoute } from "../lib/route";
import { captureRequest } from "./service";

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

/** Capture batches get more room than other bodies (PostHog accepts 20 MB), compressed or decoded. */
export const CAPTURE_BODY_LIMIT = 20 * 1024 * 1024;

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
export const captureRoutes = router;
