import { z } from "@hono/zod-openapi";

/**
 * The Capture V1 request body, for the API document only: the route reads the body itself
 * (normalize-v1.ts), because it may be gzip and because a malformed event is dropped, not a 400.
 */
const V1Event = z
  .object({
    event: z.string().openapi({ description: "At most 200 bytes; `$performance_event` is dropped." }),
    uuid: z.string().openapi({
      description:
        "A UUID (hyphenated; 32 digits, braced and `urn:uuid:` forms are accepted too). The event's result is keyed by it as sent; the event is stored under its lowercase hyphenated form, and sent again with it, stored once.",
    }),
    distinct_id: z.string().openapi({ description: "At most 200 bytes." }),
    timestamp: z
      .string()
      .openapi({ description: "RFC 3339; corrected by the clock skew unless `disable_skew_correction`." }),
    session_id: z.string().optional().openapi({ description: "Stored as `$session_id`." }),
    window_id: z.string().optional().openapi({ description: "Stored as `$window_id`." }),
    options: z
      .object({
        cookieless_mode: z.boolean().optional(),
        disable_skew_correction: z.boolean().optional(),
        process_person_profile: z
          .boolean()
          .optional()
          .openapi({ description: "`false`: a personless event (no person is created or updated)." }),
        product_tour_id: z.string().optional(),
      })
      .optional()
      .openapi({
        description:
          'Stored as `$cookieless_mode`, `$ignore_sent_at`, `$process_person_profile`, `$product_tour_id`. The flags also take `"true"`/`"false"`/`"1"`/`"0"` and numbers; `product_tour_id` an integer. Anything else drops the event (`invalid_options`).',
      }),
    properties: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "The event's properties, `$set` and `$set_once` included." }),
  })
  .openapi("CaptureV1Event");

export const CaptureV1Request = z
  .object({
    created_at: z.string().openapi({ description: "RFC 3339: when the SDK built the batch." }),
    historical_migration: z.boolean().optional(),
    batch: z.array(V1Event).min(1),
  })
  .openapi("CaptureV1Request");
