import type { Env } from "../env";
import { materializationInfo } from "./materialization";
import type { EndpointRecord, EndpointVersionRecord } from "./response-schemas";
import type { SavedQuery } from "./saved-query-schema";
import type { EndpointRow, VersionRow } from "./service";

const userOf = (label: string | null) => (label ? { first_name: label, email: null } : null);

export const endpointPath = (endpoint: EndpointRow) =>
  `/api/environments/${endpoint.projectId}/endpoints/${endpoint.name}/run`;

/** The fields both records share; which `is_active` they show is the caller's. */
async function recordOf(
  env: Env,
  origin: string,
  endpoint: EndpointRow,
  version: VersionRow,
  versionsCount: number,
  isActive: boolean,
): Promise<EndpointRecord> {
  return {
    id: endpoint.id,
    name: endpoint.name,
    description: version.description,
    query: version.query as SavedQuery,
    is_active: isActive,
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
}

/** PostHog's endpoint record (E2), built from the given (normally the current) version. */
export const endpointRecord = (
  env: Env,
  origin: string,
  endpoint: EndpointRow,
  version: VersionRow,
  versionsCount: number,
): Promise<EndpointRecord> => recordOf(env, origin, endpoint, version, versionsCount, endpoint.isActive);

/**
 * The record of one version (E2b): its description, query, cache age, materialization and
 * is_active, plus the version fields.
 */
export async function versionRecord(
  env: Env,
  origin: string,
  endpoint: EndpointRow,
  version: VersionRow,
  versionsCount: number,
): Promise<EndpointVersionRecord> {
  return {
    ...(await recordOf(env, origin, endpoint, version, versionsCount, version.isActive)),
    version: version.version,
    version_id: version.id,
    endpoint_is_active: endpoint.isActive,
    version_created_at: version.createdAt,
    version_created_by: userOf(version.createdBy),
  };
}

/** Retrieve and update: the version's record when the request named a version, else the endpoint's. */
export const recordFor = (targeted: boolean) => (targeted ? versionRecord : endpointRecord);
