import { z } from "@hono/zod-openapi";
import { ProjectParams } from "../projects/schema";

export const NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,127}$/;
export const NAME_MESSAGE =
  "Endpoint name must start with a letter, contain only alphanumeric characters, hyphens, or underscores, and be between 1 and 128 characters long.";

/** PostHog's DataWarehouseSyncInterval values, in seconds. */
export const SYNC_FREQUENCIES: Record<string, number> = {
  "5min": 300,
  "30min": 1800,
  "1hour": 3600,
  "6hour": 21600,
  "12hour": 43200,
  "24hour": 86400,
  "7day": 604800,
  "30day": 2592000,
};
export const DEFAULT_SYNC_FREQUENCY = "24hour";

const SyncFrequency = z.string().refine((v) => v in SYNC_FREQUENCIES, {
  message: `sync_frequency must be one of: ${Object.keys(SYNC_FREQUENCIES).join(", ")}.`,
});
const CacheAge = z
  .number()
  .int()
  .min(300, { message: "Cache age must be between 300 and 86400 seconds." })
  .max(86400, { message: "Cache age must be between 300 and 86400 seconds." });

const QueryField = z.record(z.string(), z.unknown()).openapi({
  description:
    'The saved query: HogQL (`{"kind": "HogQLQuery", "query": "SELECT ...", "variables": {...}}`) or an insight (`{"kind": "TrendsQuery", "series": [...], ...}`; also `FunnelsQuery`, `LifecycleQuery`, `StickinessQuery`, `RetentionQuery`).',
  oneOf: [
    { $ref: "#/components/schemas/HogQLQuery" },
    { $ref: "#/components/schemas/TrendsQuery" },
    { $ref: "#/components/schemas/LifecycleQuery" },
    { $ref: "#/components/schemas/StickinessQuery" },
    { $ref: "#/components/schemas/RetentionQuery" },
    { $ref: "#/components/schemas/FunnelsQuery" },
  ],
  example: { kind: "HogQLQuery", query: "select count() from events" },
});

export const EndpointParams = ProjectParams.extend({
  name: z.string().openapi({ param: { name: "name", in: "path" }, example: "daily_signups" }),
});

export const VersionQuery = z.object({
  version: z.string().optional().openapi({ description: "A version number (default: the current version)." }),
});

export const CreateEndpointBody = z
  .object({
    name: z.string().optional(),
    query: QueryField.optional(),
    description: z.string().nullable().optional(),
    is_active: z.boolean().optional(),
    cache_age_seconds: CacheAge.nullable().optional(),
    is_materialized: z.boolean().optional(),
    sync_frequency: SyncFrequency.nullable().optional(),
    derived_from_insight: z.string().max(12).nullable().optional(),
  })
  .strict();

export const UpdateEndpointBody = CreateEndpointBody.extend({
  version: z.number().int().optional().openapi({ description: "Update this version only (same as `?version=N`)." }),
}).strict();

export const ListQuery = z.object({
  is_active: z.enum(["true", "false"]).optional(),
  created_by: z.string().optional(),
});

export const RunBody = z
  .object({
    client_query_id: z.string().optional(),
    debug: z.boolean().optional(),
    filters_override: z.unknown().optional(),
    limit: z
      .unknown()
      .optional()
      .openapi({ type: "integer", minimum: 1, description: "At most this many rows (max 50000)." }),
    query_override: z.unknown().optional(),
    refresh: z.enum(["cache", "force", "direct"]).optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    version: z.unknown().optional().openapi({ type: "integer", description: "Version to run (default: latest)." }),
  })
  .strict();

export const RunQuery = z.object({
  version: z.string().optional(),
  limit: z.string().optional(),
  refresh: z.string().optional(),
  debug: z.string().optional(),
});

export const LastExecutionBody = z.object({ names: z.array(z.string()).max(100) }).strict();

export const EndpointRecordSchema = z.record(z.string(), z.unknown()).openapi("Endpoint", {
  description: "An endpoint (or, with a version, the version-shaped record).",
});
export const RunResponseSchema = z.record(z.string(), z.unknown()).openapi("EndpointRunResponse");
