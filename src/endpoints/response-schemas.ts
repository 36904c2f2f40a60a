import { z } from "@hono/zod-openapi";
import { SavedQuerySchema } from "./saved-query-schema";
import { LifecycleSeriesSchema } from "../insights/lifecycle/schema";
import { RetentionRowSchema } from "../insights/retention/schema";
import {
  FunnelStepResultSchema,
  FunnelTimeToConvertSchema,
  FunnelTrendsSeriesSchema,
} from "../insights/funnels/schema";
import { StickinessSeriesSchema } from "../insights/stickiness/schema";
import { TrendsSeriesSchema } from "../insights/trends/schema";

/**
 * What the endpoints API answers (PostHog's E2b shapes, reference/endpoints.md §3, §6.4, §7): the
 * routes declare these, and the builders (records.ts, materialization.ts, run.ts, executions.ts)
 * return their inferred types, so the document and the bodies cannot drift apart.
 */

const timestamp = (description?: string) => (description ? z.iso.datetime().describe(description) : z.iso.datetime());

/** PostHog's UserBasic, reduced to what edgehog knows: the label of the key that acted. */
const UserSchema = z.object({
  first_name: z.string().describe("The label of the key that made the change."),
  email: z.null().describe("Always null: edgehog keeps no user emails."),
});

/** A version that is not materialized: whether it could be, and why not. */
export const MaterializationCheckSchema = z
  .object({
    can_materialize: z.boolean(),
    reason: z.string().nullable().describe("Why the query cannot be materialized; null when it can."),
  })
  .openapi("MaterializationCheck");

/** A materialized version: its latest refresh. */
export const MaterializationStateSchema = z
  .object({
    status: z
      .enum(["Completed", "Running", "Failed", "Unknown"])
      .describe("The latest refresh; Unknown before the materializer has recorded one."),
    can_materialize: z.literal(true),
    last_materialized_at: timestamp().nullable(),
    error: z.string().describe("The latest refresh's error; empty when none."),
    sync_frequency: z.string().describe("How often the table is refreshed (`5min` ... `30day`)."),
  })
  .openapi("MaterializationState");

export const MaterializationStatusSchema = z
  .union([MaterializationStateSchema, MaterializationCheckSchema])
  .openapi("MaterializationStatus", {
    description: "A materialized version's refresh state, else whether it can be materialized.",
  });

export const EndpointRecordSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    query: SavedQuerySchema,
    is_active: z.boolean(),
    cache_age_seconds: z.number().int().nullable().describe("null: the default (6 hours)."),
    endpoint_path: z.string(),
    url: z.string().describe("The absolute URL to run it."),
    ui_url: z.null().describe("Always null: edgehog has no UI."),
    created_at: timestamp(),
    updated_at: timestamp().nullable(),
    created_by: UserSchema.nullable(),
    is_materialized: z.boolean(),
    current_version: z.number().int(),
    versions_count: z.number().int(),
    derived_from_insight: z.string().nullable(),
    last_executed_at: timestamp().nullable().describe("Written at most once an hour."),
    materialization: MaterializationStatusSchema,
  })
  .openapi("Endpoint", {
    description: "An endpoint, built from its current version (description, query, cache age, materialization).",
  });

export const EndpointVersionRecordSchema = EndpointRecordSchema.extend({
  is_active: z.boolean().describe("The version's flag (the endpoint's is `endpoint_is_active`)."),
  version: z.number().int(),
  version_id: z.string(),
  endpoint_is_active: z.boolean(),
  version_created_at: timestamp(),
  version_created_by: UserSchema.nullable(),
}).openapi("EndpointVersion", {
  description:
    "The record of one version: description, query, cache age, materialization and is_active are the version's.",
});

/** retrieve and update answer the version's record when a version was named, else the endpoint's. */
export const EndpointOrVersionSchema = z.union([EndpointVersionRecordSchema, EndpointRecordSchema]);

/** A SQLite value as D1 returns it. */
const CellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const RunResponseSchema = z
  .object({
    results: z.array(z.array(CellSchema)).describe("Rows, each an array in column order."),
    columns: z.array(z.string()),
    types: z.array(z.array(z.string())).describe("`[column, type]` per column, in ClickHouse's type names."),
    hasMore: z.boolean().describe("Whether rows were cut at `limit`."),
    limit: z.number().int(),
    offset: z.number().int(),
    is_cached: z.boolean(),
    last_refresh: timestamp(),
    next_allowed_client_refresh: timestamp(),
    cache_target_age: timestamp().describe("When the result stops being served from the cache."),
    timezone: z.string().describe("The project's time zone."),
    query_status: z.null(),
    error: z.null(),
    metadata: z.null(),
    query_metadata: z.null(),
    endpoint_version: z.number().int(),
    endpoint_version_created_at: timestamp(),
    endpoint_materialized: z.literal(true).optional().describe("Present when read from the materialized table."),
    endpoint_materialized_at: timestamp("Present when read from the materialized table.").optional(),
    cache_key: z.string().optional().describe("With `debug`."),
    hogql: z.string().optional().describe("With `debug`: the saved HogQL."),
    sql: z.string().optional().describe("With `debug`: the SQLite SQL it compiled to."),
    timings: z
      .array(z.object({ k: z.string(), t: z.number().describe("Seconds.") }))
      .optional()
      .describe("With `debug`."),
    calculation_trigger: z
      .enum(["cache_miss", "force", "direct"])
      .nullable()
      .optional()
      .describe("With `debug`: why the result was computed; null for a cache hit."),
  })
  .openapi("EndpointRunResponse");

/** An insight version's run: PostHog's insight response with the endpoint's fields. */
export const InsightRunResponseSchema = z
  .object({
    results: z
      .union([
        z.array(
          z.union([
            TrendsSeriesSchema,
            LifecycleSeriesSchema,
            StickinessSeriesSchema,
            RetentionRowSchema,
            FunnelStepResultSchema,
            z.array(FunnelStepResultSchema),
            FunnelTrendsSeriesSchema,
          ]),
        ),
        FunnelTimeToConvertSchema,
      ])
      .describe(
        "The insight's series (TrendsQuery: one per series and breakdown value; LifecycleQuery: one per status; StickinessQuery: one per series and period; RetentionQuery: one per cohort and breakdown value; FunnelsQuery: its steps, a list of steps per breakdown value, time_to_convert's bins, or the trends' conversion rates).",
      ),
    hasMore: z
      .boolean()
      .optional()
      .describe("TrendsQuery: whether breakdown values beyond the limit were summed as other."),
    is_cached: z.boolean(),
    last_refresh: timestamp(),
    next_allowed_client_refresh: timestamp(),
    cache_target_age: timestamp(),
    timezone: z.string(),
    query_status: z.null(),
    error: z.null(),
    query_metadata: z.null(),
    endpoint_version: z.number().int(),
    endpoint_version_created_at: timestamp(),
    endpoint_materialized: z.literal(true).optional().describe("Present when read from the materialized result."),
    endpoint_materialized_at: timestamp("Present when read from the materialized result.").optional(),
    cache_key: z.string().optional().describe("With `debug`."),
    resolved_date_range: z.object({ date_from: z.string(), date_to: z.string() }).optional().describe("With `debug`."),
    timings: z
      .array(z.object({ k: z.string(), t: z.number() }))
      .optional()
      .describe("With `debug`."),
    calculation_trigger: z.enum(["cache_miss", "force", "direct"]).nullable().optional().describe("With `debug`."),
  })
  .openapi("EndpointInsightRunResponse");

/** PostHog's QueryStatus envelope, as last_execution_times fills it. */
export const LastExecutionTimesSchema = z
  .object({
    query_status: z.object({
      id: z.string(),
      query_async: z.literal(true),
      team_id: z.number().int(),
      insight_id: z.null(),
      dashboard_id: z.null(),
      error: z.literal(false),
      complete: z.literal(true),
      error_message: z.null(),
      results: z
        .array(z.tuple([z.string(), timestamp()]))
        .nullable()
        .describe("`[name, last execution]` pairs by name; null when no names were asked for."),
      pickup_time: z.null(),
      start_time: z.null(),
      end_time: z.null(),
      expiration_time: z.null(),
      task_id: z.null(),
      labels: z.null(),
      query_progress: z.object({
        active_cpu_time: z.number(),
        bytes_read: z.number(),
        estimated_rows_total: z.number(),
        rows_read: z.number(),
        time_elapsed: z.number(),
      }),
    }),
  })
  .openapi("EndpointLastExecutionTimes");

export type MaterializationInfo = z.infer<typeof MaterializationStatusSchema>;
export type EndpointRecord = z.infer<typeof EndpointRecordSchema>;
export type EndpointVersionRecord = z.infer<typeof EndpointVersionRecordSchema>;
export type RunResponse = z.infer<typeof RunResponseSchema>;
export type InsightRunResponse = z.infer<typeof InsightRunResponseSchema>;
export type LastExecutionTimes = z.infer<typeof LastExecutionTimesSchema>;
