import { z } from "@hono/zod-openapi";

/** The local-evaluation payload as documented (flags-api.md §5.7). */
export const DefinitionsSchema = z
  .object({
    flags: z.array(z.record(z.string(), z.unknown())),
    group_type_mapping: z.record(z.string(), z.string()),
    cohorts: z.record(z.string(), z.unknown()),
  })
  .openapi("FlagDefinitions");
