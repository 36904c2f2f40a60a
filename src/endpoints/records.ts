import type { Env } from "../env";
import { materializationInfo } from "./materialization";
import type { EndpointRow, VersionRow } from "./service";

const userOf = (label: string | null) => (label ? { first_name: label, email: null } : null);

export const endpointPath = (endpoint: EndpointRow) =>
  `/api/environments/${endpoint.projectId}/endpoints/${endpoint.name}/run`;

/**
 * PostHog's endpoint record (E2), built from the current version; with `versionShaped`, the record of
 * one version (its description, query, cache age, materialization and is_active, plus version fields).
 */
export async function endpointRecord(
  env: Env,
  origin: string,
  endpoint: EndpointRow,
  version: VersionRow,
  versionsCount: number,
  versionShaped = false,
) {
  const record: Record<string, unknown> = {
    id: endpoint.id,
    name: endpoint.name,
    description: version.description,
    query: version.query,
    is_active: versionShaped ? version.isActive : endpoint.isActive,
    cache_age_seconds: version.cacheAgeSeconds,
    endpoint_path: endpointPath(endpoint),
    url: `${origin}${endpointPath(endpoint)}`,
    ui_url: null,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
    created_by: userOf(endpoint.createdBy),
    is_materialized: version.isMaterialized,
    current_version: endpoint.currentVersion,
    versions_count: versionsCount,
    derived_from_insight: endpoint.derivedFromInsight,
    last_executed_at: endpoint.lastExecutedAt,
    materialization: await materializationInfo(env, endpoint, version),
  };
  if (versionShaped) {
    Object.assign(record, {
      version: version.version,
      version_id: version.id,
      endpoint_is_active: endpoint.isActive,
      version_created_at: version.createdAt,
      version_created_by: userOf(version.createdBy),
    });
  }
  return record;
}
