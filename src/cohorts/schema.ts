import { z } from "@hono/zod-openapi";
import { IdParam } from "../lib/openapi";
import { ProjectParams } from "../projects/schema";

export const CohortSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    filters: z.record(z.string(), z.unknown()),
    groups: z.array(z.unknown()),
    is_static: z.boolean(),
    is_calculating: z.boolean(),
    errors_calculating: z.number().int(),
    count: z.number().int().nullable().openapi({
      description: "Current number of members; null in lists (counting is a scan of the project's persons per cohort).",
    }),
    created_by: z.unknown(),
    created_at: z.string(),
    last_calculation: z.string().nullable(),
    deleted: z.boolean(),
    version: z.number().int(),
  })
  .openapi("Cohort");

const Members = {
  person_ids: z
    .array(z.union([z.number().int(), z.string()]))
    .max(10_000)
    .optional()
    .openapi({ description: "Static cohorts: persons to add, by integer id or uuid." }),
  distinct_ids: z
    .array(z.string())
    .max(10_000)
    .optional()
    .openapi({ description: "Static cohorts: persons to add, by distinct id." }),
};

export const CreateCohortBody = z.object({
  name: z.string().max(400).default(""),
  description: z.string().max(1000).default(""),
  is_static: z.boolean().default(false),
  filters: z
    .record(z.string(), z.unknown())
    .optional()
    .openapi({ description: "`{properties: {type: AND|OR, values: [...]}}`" }),
  groups: z.array(z.unknown()).optional().openapi({ description: "Legacy form: `[{properties: [...]}, ...]`, ORed." }),
  ...Members,
});

export const UpdateCohortBody = z.object({
  name: z.string().max(400).optional(),
  description: z.string().max(1000).optional(),
  filters: z.record(z.string(), z.unknown()).optional(),
  groups: z.array(z.unknown()).optional(),
  deleted: z.boolean().optional(),
  ...Members,
});

export const CohortParams = ProjectParams.extend({ id: IdParam });
