import { z } from "@hono/zod-openapi";
import { ProjectParams } from "../projects/schema";

export const PersonSchema = z
  .object({
    id: z.number().int(),
    name: z.unknown().openapi({
      description: "A display property (email, name, username), else the first non-anonymous distinct id.",
    }),
    distinct_ids: z.array(z.string()),
    properties: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    uuid: z.string(),
  })
  .openapi("Person");

export const SerializedPersonSchema = z
  .object({
    type: z.literal("person"),
    id: z.string().openapi({ description: "The person's uuid (PostHog lists persons by uuid)." }),
    uuid: z.string(),
    created_at: z.string(),
    properties: z.record(z.string(), z.unknown()),
    is_identified: z.boolean(),
    name: z.unknown(),
    distinct_ids: z.array(z.string()),
    matched_recordings: z.array(z.unknown()),
    value_at_data_point: z.number().nullable(),
  })
  .openapi("SerializedPerson");

export const PersonListSchema = z
  .object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(SerializedPersonSchema),
  })
  .openapi("PersonList");

export const Format = z.enum(["json", "csv"]).optional().openapi({ description: "`csv` answers text/csv." });

export const PersonParams = ProjectParams.extend({
  id: z.string().openapi({ param: { name: "id", in: "path" }, description: "Integer id or uuid", example: "1" }),
});

export const FormatQuery = z.object({ format: Format });

export const ActivityQuery = z.object({
  format: Format,
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: "Entries per page (default 10)." }),
  page: z.coerce.number().int().min(1).optional().openapi({ description: "1-based page (default 1)." }),
});

export const ActivitySchema = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        user: z.record(z.string(), z.unknown()),
        activity: z.string(),
        scope: z.string(),
        item_id: z.string(),
        detail: z.record(z.string(), z.unknown()),
        created_at: z.string(),
      }),
    ),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    total_count: z.number().int(),
  })
  .openapi("ActivityPage");

export const SuccessSchema = z.object({ success: z.literal(true) }).openapi("Success");
