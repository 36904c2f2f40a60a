import { z } from "@hono/zod-openapi";

/** The Query API's request (PostHog's QueryRequest): the query, plus options a synchronous run accepts. */
export const QueryRequest = z
  .object({
    query: z.record(z.string(), z.unknown()).openapi({
      description:
        "`HogQLQuery`, `TrendsQuery`, `LifecycleQuery`, `StickinessQuery`, `RetentionQuery`, `FunnelsQuery`, `ActorsQuery` (the persons of an insight's point, from an `InsightActorsQuery` or `FunnelsActorsQuery`), or a wrapper with its `source` (`InsightVizNode`, `DataVisualizationNode`, `DataTableNode`).",
      oneOf: [
        { $ref: "#/components/schemas/HogQLQueryNode" },
        { $ref: "#/components/schemas/TrendsQuery" },
        { $ref: "#/components/schemas/LifecycleQuery" },
        { $ref: "#/components/schemas/StickinessQuery" },
        { $ref: "#/components/schemas/RetentionQuery" },
        { $ref: "#/components/schemas/FunnelsQuery" },
        { $ref: "#/components/schemas/ActorsQuery" },
        { $ref: "#/components/schemas/InsightActorsQuery" },
        { $ref: "#/components/schemas/QueryWrapperNode" },
      ],
    }),
    client_query_id: z
      .string()
      .max(200)
      .nullish()
      .openapi({ description: "Accepted; every query runs to completion before the answer." }),
    refresh: z.union([z.string(), z.boolean()]).nullish().openapi({
      description: "Accepted (`blocking`, `force_blocking`, `async`, ...): edgehog always computes the answer now.",
    }),
    async: z
      .boolean()
      .nullish()
      .openapi({ description: "Accepted: the answer is always synchronous (200 with results)." }),
    name: z.string().nullish(),
    filters_override: z.record(z.string(), z.unknown()).nullish().openapi({
      description:
        "Insight queries: `date_from`, `date_to`, `explicitDate`, `properties` (ANDed) and `breakdown_filter`.",
    }),
  })
  .openapi("QueryRequest");

export const HogQLQueryNode = z
  .object({
    kind: z.literal("HogQLQuery"),
    query: z.string(),
    variables: z.record(z.string(), z.unknown()).optional(),
    filters: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("HogQLQueryNode");

export const QueryWrapperNode = z
  .object({
    kind: z.enum(["InsightVizNode", "DataVisualizationNode", "DataTableNode"]),
    source: z.record(z.string(), z.unknown()),
  })
  .openapi("QueryWrapperNode");

export const QueryResponse = z
  .object({
    results: z
      .union([z.array(z.unknown()), z.record(z.string(), z.unknown())])
      .describe("Rows or series; a FunnelsQuery's time_to_convert answers one object (`bins`, average and median)."),
    columns: z.array(z.string()).optional(),
    types: z
      .array(z.union([z.array(z.string()), z.string()]))
      .optional()
      .describe("HogQL: `[column, type]` pairs; ActorsQuery: one type per column."),
    hasMore: z.boolean(),
    limit: z.number().int().optional(),
    offset: z.number().int().optional(),
    is_cached: z.boolean(),
    last_refresh: z.string(),
    next_allowed_client_refresh: z.string(),
    timezone: z.string(),
    missing_actors_count: z.number().int().optional().describe("ActorsQuery: persons of the page whose row is gone."),
    resolved_date_range: z.object({ date_from: z.string(), date_to: z.string() }).optional(),
    hogql: z.string().nullable(),
    timings: z.null(),
    query_status: z.null(),
    error: z.string().nullable(),
    modifiers: z.record(z.string(), z.unknown()),
  })
  .openapi("QueryResponse");
export type QueryResponse = z.infer<typeof QueryResponse>;
