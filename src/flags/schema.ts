import { z } from "@hono/zod-openapi";
import { IdParam } from "../lib/openapi";
import { ProjectParams } from "../projects/schema";

/** A user as PostHog's `UserBasic`; edgehog's actors are keys, so most fields are null. */
export const UserBasicSchema = z
  .object({
    id: z.number().int().nullable(),
    uuid: z.string().nullable(),
    distinct_id: z.string().nullable(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string().nullable(),
    is_email_verified: z.boolean().nullable(),
    hedgehog_config: z.unknown().nullable(),
    role_at_organization: z.string().nullable(),
  })
  .openapi("UserBasic");

export const FiltersSchema = z.record(z.string(), z.unknown()).openapi({
  description: "Release conditions (`groups`), `multivariate`, `payloads`, `aggregation_group_type_index`, ...",
});

export const FlagStatusEnum = z.enum(["ACTIVE", "STALE", "DELETED", "UNKNOWN"]);

export const FeatureFlagSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    key: z.string(),
    filters: FiltersSchema,
    deleted: z.boolean(),
    active: z.boolean(),
    created_by: UserBasicSchema.nullable(),
    created_at: z.string(),
    updated_at: z.string().nullable(),
    version: z.number().int(),
    last_modified_by: UserBasicSchema.nullable(),
    ensure_experience_continuity: z.boolean().nullable(),
    experiment_set: z.array(z.number().int()),
    surveys: z.array(z.unknown()),
    features: z.array(z.unknown()),
    rollback_conditions: z.unknown().nullable(),
    performed_rollback: z.boolean().nullable(),
    can_edit: z.boolean(),
    tags: z.array(z.string()),
    evaluation_tags: z.array(z.string()),
    usage_dashboard: z.number().int().nullable(),
    analytics_dashboards: z.array(z.number().int()),
    has_enriched_analytics: z.boolean().nullable(),
    user_access_level: z.string().nullable(),
    is_remote_configuration: z.boolean().nullable(),
    has_encrypted_payloads: z.boolean().nullable(),
    status: FlagStatusEnum,
    evaluation_runtime: z.string().nullable(),
    bucketing_identifier: z.string().nullable(),
    last_called_at: z.string().nullable(),
    creation_context: z
      .string()
      .nullable()
      .openapi({ description: "Where the flag was created (write-only in PostHog; echoed here)." }),
  })
  .openapi("FeatureFlag");

export type FeatureFlagRecord = z.infer<typeof FeatureFlagSchema>;

/** The writable fields of spec §2.3; semantic checks (key format, filters) live in validate.ts. */
export const FlagBody = z
  .object({
    name: z.string().max(4000).nullable(),
    key: z.string(),
    filters: FiltersSchema,
    deleted: z.boolean(),
    active: z.boolean(),
    created_at: z.string().datetime({ offset: true }),
    version: z.number().int(),
    ensure_experience_continuity: z.boolean().nullable(),
    rollback_conditions: z.unknown(),
    performed_rollback: z.boolean().nullable(),
    tags: z.array(z.string().max(255)),
    evaluation_tags: z.array(z.string().max(255)),
    analytics_dashboards: z.array(z.number().int()),
    has_enriched_analytics: z.boolean().nullable(),
    creation_context: z
      .enum(["feature_flags", "experiments", "surveys", "early_access_features", "web_experiments", "product_tours"])
      .nullable(),
    is_remote_configuration: z.boolean().nullable(),
    has_encrypted_payloads: z.boolean().nullable(),
    evaluation_runtime: z.enum(["server", "client", "all"]).nullable(),
    bucketing_identifier: z.enum(["distinct_id", "device_id"]).nullable(),
    last_called_at: z.string().nullable().openapi({ description: "Read-only; ignored on write." }),
    _create_in_folder: z.string(),
    _should_create_usage_dashboard: z.boolean(),
    original_flag: z.record(z.string(), z.unknown()).nullable(),
  })
  .partial();

export type FlagInput = z.infer<typeof FlagBody>;

export const CreateFlagBody = FlagBody.extend({ key: z.string() }).openapi("FeatureFlagCreate");
export const PatchFlagBody = FlagBody.openapi("FeatureFlagPatch");
export const PutFlagBody = FlagBody.extend({ key: z.string() }).openapi("FeatureFlagPut");

export const FlagParams = ProjectParams.extend({ id: IdParam });

export const ListQuery = z.object({
  search: z.string().max(200, "Search term cannot exceed 200 characters").optional(),
  active: z.enum(["true", "false", "STALE"]).optional(),
  type: z.enum(["boolean", "multivariant", "experiment", "remote_config"]).optional(),
  tags: z.string().optional().openapi({ description: "JSON list of tags; a flag with any of them matches." }),
  evaluation_runtime: z.enum(["server", "client", "all"]).optional(),
  order: z.enum(["key", "-key", "created_at", "-created_at", "updated_at", "-updated_at", "name", "-name"]).optional(),
});
