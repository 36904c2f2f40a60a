import type { FeatureFlagRecord } from "./schema";
import type { FlagRow } from "./row";
import { effectiveFilters, flagStatus } from "./status";

/** edgehog's actors are API keys: rendered as PostHog's UserBasic with the key's label. */
function userOf(label: string | null) {
  if (!label) return null;
  return {
    id: null,
    uuid: null,
    distinct_id: label,
    first_name: label,
    last_name: "",
    email: null,
    is_email_verified: null,
    hedgehog_config: null,
    role_at_organization: null,
  };
}

/** Injects `cohort_name` into cohort properties, as PostHog's serializer does on read. */
function withCohortNames(filters: Record<string, unknown>, cohortNames: Map<number, string>) {
  const groups = (filters.groups as Array<Record<string, unknown>> | undefined)?.map((group) => {
    const properties = (group.properties as Array<Record<string, unknown>> | undefined | null)?.map((p) =>
      p.type === "cohort" && cohortNames.has(Number(p.value))
        ? { ...p, cohort_name: cohortNames.get(Number(p.value)) }
        : p,
    );
    return properties ? { ...group, properties } : group;
  });
  return groups ? { ...filters, groups } : filters;
}

/** The record as PostHog's V-B serializer emits it, in its field order. */
export function flagRecord(flag: FlagRow, cohortNames: Map<number, string> = new Map()): FeatureFlagRecord {
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters: withCohortNames(effectiveFilters(flag.filters), cohortNames),
    deleted: flag.deleted,
    active: flag.active,
    created_by: userOf(flag.createdBy),
    created_at: flag.createdAt,
    updated_at: flag.updatedAt,
    version: flag.version,
    last_modified_by: userOf(flag.lastModifiedBy),
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    experiment_set: [],
    surveys: [],
    features: [],
    rollback_conditions: flag.rollbackConditions ?? null,
    performed_rollback: flag.performedRollback,
    can_edit: true,
    tags: flag.tags,
    evaluation_tags: flag.evaluationTags,
    usage_dashboard: null,
    analytics_dashboards: flag.analyticsDashboards,
    has_enriched_analytics: flag.hasEnrichedAnalytics,
    user_access_level: "editor",
    is_remote_configuration: flag.isRemoteConfiguration,
    has_encrypted_payloads: flag.hasEncryptedPayloads,
    status: flagStatus(flag).status.toUpperCase() as FeatureFlagRecord["status"],
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier,
    last_called_at: flag.lastCalledAt,
    creation_context: flag.creationContext ?? "feature_flags",
  };
}
