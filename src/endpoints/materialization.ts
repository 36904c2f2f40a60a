import { analyticsEngine } from "../analytics";
import type { Env } from "../env";
import type { Project } from "../projects/service";
import { insightMaterializationReason } from "./insight-materialization";
import { isHogQL, type SavedQuery } from "./saved-query-schema";
import type { InsightQuery } from "../insights/insight";
import { validationError } from "../lib/errors";
import type { MaterializationStatus } from "./refresher";
import type { MaterializationInfo } from "./response-schemas";
import { DEFAULT_SYNC_FREQUENCY, SYNC_FREQUENCIES } from "./schema";
import type { EndpointRow, VersionRow } from "./service";

/** The endpoint's Durable Object: one per endpoint (its id, so a re-created name starts clean). */
export const materializerFor = (env: Env, endpointId: string) =>
  env.ENDPOINT_MATERIALIZER.get(env.ENDPOINT_MATERIALIZER.idFromName(endpointId));

type MaterializationPlan =
  { reason: string } | { insight: InsightQuery } | { sql: string; variables: string[]; singleRow?: boolean };

/** The version's materialization plan, or why it cannot be materialized (PostHog's reasons). */
function materializationPlan(version: VersionRow): MaterializationPlan {
  const query = version.query as SavedQuery;
  if (!isHogQL(query)) {
    const reason = insightMaterializationReason(query);
    return reason ? { reason } : { insight: query };
  }
  const plan = version.compiled?.materialization;
  if (!plan) return { reason: "Query is empty or invalid." };
  if ("reason" in plan) return { reason: `Variables not supported: ${plan.reason}` };
  return plan;
}

export function canMaterialize(version: VersionRow): { can_materialize: boolean; reason: string | null } {
  const plan = materializationPlan(version);
  return "reason" in plan ? { can_materialize: false, reason: plan.reason } : { can_materialize: true, reason: null };
}

/**
 * Hands the version's transformed query (an insight: the query and the project's settings) to the
 * Durable Object, which refreshes it right away.
 */
export async function enableMaterialization(
  env: Env,
  endpoint: EndpointRow,
  version: VersionRow,
  frequency: string | null | undefined,
  project: Project,
) {
  const plan = materializationPlan(version);
  if ("reason" in plan) throw validationError(`Cannot materialize endpoint. Reason: ${plan.reason}`, "is_materialized");
  const syncFrequency = frequency ?? DEFAULT_SYNC_FREQUENCY;
  const base = {
    version: version.version,
    projectId: endpoint.projectId,
    timezone: project.timezone,
    syncFrequency,
    syncSeconds: SYNC_FREQUENCIES[syncFrequency],
  };
  await materializerFor(env, endpoint.id).configure(
    "insight" in plan
      ? {
          ...base,
          kind: "insight",
          engine: analyticsEngine(env),
          query: plan.insight,
        }
      : {
          ...base,
          engine: version.compiled!.engine,
          sql: plan.sql,
          variables: plan.variables,
          singleRow: plan.singleRow ?? false,
        },
  );
  return syncFrequency;
}

export async function disableMaterialization(env: Env, endpoint: EndpointRow, version: number) {
  await materializerFor(env, endpoint.id).disable(version);
}

/** The record's `materialization` field (and the body of materialization_status). */
export async function materializationInfo(
  env: Env,
  endpoint: EndpointRow,
  version: VersionRow,
): Promise<MaterializationInfo> {
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
