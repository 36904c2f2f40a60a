import type { Env } from "../env";
import { validationError } from "../lib/errors";
import type { MaterializationStatus } from "./refresher";
import { DEFAULT_SYNC_FREQUENCY, SYNC_FREQUENCIES } from "./schema";
import { compiledOf, type EndpointRow, type VersionRow } from "./service";

/** The endpoint's Durable Object: one per endpoint (its id, so a re-created name starts clean). */
export const materializerFor = (env: Env, endpointId: string) =>
  env.ENDPOINT_MATERIALIZER.get(env.ENDPOINT_MATERIALIZER.idFromName(endpointId));

export function canMaterialize(version: VersionRow): { can_materialize: boolean; reason: string | null } {
  const plan = compiledOf(version)?.materialization;
  if (!plan) return { can_materialize: false, reason: "Query is empty or invalid." };
  if ("reason" in plan) return { can_materialize: false, reason: `Variables not supported: ${plan.reason}` };
  return { can_materialize: true, reason: null };
}

/** Hands the version's transformed query to the Durable Object, which refreshes it right away. */
export async function enableMaterialization(
  env: Env,
  endpoint: EndpointRow,
  version: VersionRow,
  frequency: string | null | undefined,
) {
  const check = canMaterialize(version);
  if (!check.can_materialize)
    throw validationError(`Cannot materialize endpoint. Reason: ${check.reason}`, "is_materialized");
  const plan = compiledOf(version)!.materialization as { sql: string; variables: string[]; singleRow?: boolean };
  const syncFrequency = frequency ?? DEFAULT_SYNC_FREQUENCY;
  await materializerFor(env, endpoint.id).configure({
    version: version.version,
    projectId: endpoint.projectId,
    sql: plan.sql,
    variables: plan.variables,
    singleRow: plan.singleRow ?? false,
    syncFrequency,
    syncSeconds: SYNC_FREQUENCIES[syncFrequency],
  });
  return syncFrequency;
}

export async function disableMaterialization(env: Env, endpoint: EndpointRow, version: number) {
  await materializerFor(env, endpoint.id).disable(version);
}

/** The record's `materialization` field (and the body of materialization_status). */
export async function materializationInfo(env: Env, endpoint: EndpointRow, version: VersionRow) {
  if (!version.isMaterialized) return canMaterialize(version);
  const status: MaterializationStatus | null = await materializerFor(env, endpoint.id).status(version.version);
  return {
    status: status?.status ?? "Unknown",
    can_materialize: true,
    last_materialized_at: status?.last_materialized_at ?? null,
    error: status?.error ?? "",
    sync_frequency: status?.sync_frequency ?? version.syncFrequency ?? DEFAULT_SYNC_FREQUENCY,
  };
}
