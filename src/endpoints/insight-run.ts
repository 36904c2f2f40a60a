import type { Db } from "../db/client";
import type { Env } from "../env";
import { applyDashboardFilters } from "../insights/dashboard-filters";
import { parseInsightQuery } from "../insights/parse";
import type { InsightQuery } from "../insights/insight";
import { sha256Hex } from "../lib/crypto";
import { ApiError, validationError } from "../lib/errors";
import type { Project } from "../projects/service";
import { analyticsEngine } from "../analytics";
import { insightSettingsOf } from "../insights/context";
import { isObject, sortedJson } from "../lib/json";
import { breakdownVariable } from "./insight-materialization";
import { materializerFor } from "./materialization";
import { classifyStubError, queryFailureError } from "./query-errors";
import type { InsightRunResponse } from "./response-schemas";
import type { InsightRunOutput, RunFailure, RunRejected } from "./run-protocol";
import { cacheTimes, DEFAULT_CACHE_AGE_SECONDS, type RunRequest, type RunTarget } from "./run-target";
import { touchLastExecuted } from "./service";

/**
 * The run's overrides applied to the saved insight (products/endpoints: magic variables, then
 * `filters_override`, which wins): `date_from`/`date_to` replace the range, the breakdown property's
 * value filters the events to it. Says whether the materialized result can still answer.
 */
function overriddenQuery(saved: InsightQuery, req: RunRequest) {
  const variables = req.variables ?? {};
  const breakdown = breakdownVariable(saved);
  const known = new Set(["date_from", "date_to", ...(breakdown ? [breakdown.key] : [])]);
  const unknown = Object.keys(variables)
    .filter((k) => !known.has(k))
    .sort();
  if (unknown.length) throw validationError(`Unknown variable(s): ${unknown.join(", ")}`, "variables");
  let raw: Record<string, unknown> = saved;
  const dates: Record<string, unknown> = {};
  for (const key of ["date_from", "date_to"] as const) {
    const value = variables[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") throw validationError(`Variable ${key} must be a date text.`, "variables");
    dates[key] = value;
  }
  if (Object.keys(dates).length) raw = applyDashboardFilters(raw, dates);
  let breakdownValue: string | undefined;
  if (breakdown && variables[breakdown.key] !== undefined && variables[breakdown.key] !== null) {
    const value = variables[breakdown.key];
    if (!["string", "number", "boolean"].includes(typeof value))
      throw validationError(`Variable ${breakdown.key} must be a breakdown value.`, "variables");
    breakdownValue = String(value);
    raw = applyDashboardFilters(raw, {
      properties: [{ key: breakdown.key, value: breakdownValue, operator: "exact", type: breakdown.type }],
    });
  }
  const override = req.filters_override;
  if (override !== undefined && override !== null) {
    if (!isObject(override)) throw validationError("filters_override must be an object.", "filters_override");
    raw = applyDashboardFilters(raw, override);
  }
  const query = raw === saved ? saved : parseInsightQuery(raw, "query");
  // The stored result answers the saved question, or one breakdown value of it.
  const materializedRead = Object.keys(dates).length === 0 && (override === undefined || override === null);
  return { query, materialized: materializedRead ? { breakdownValue } : null };
}

/** Runs an insight version through its Durable Object (cache, materialized result, or computed now). */
export async function runInsightVersion(
  env: Env,
  db: Db,
  project: Project,
  { endpoint, version, refresh }: RunTarget,
  req: RunRequest,
  started: number,
): Promise<InsightRunResponse> {
  const { query, materialized } = overriddenQuery(version.query as InsightQuery, req);
  const cacheAgeSeconds = version.cacheAgeSeconds ?? DEFAULT_CACHE_AGE_SECONDS;
  const settings = insightSettingsOf(project);
  // Everything the answer depends on: the engine, the version, the project's settings, the question.
  const cacheKey = await sha256Hex(sortedJson([analyticsEngine(env), version.version, settings, query]));
  // The RPC types of the result's open records are not inferred: the Durable Object answers these.
  const outcome = (await materializerFor(env, endpoint.id)
    .runInsight({
      version: version.version,
      query,
      settings,
      materialized: version.isMaterialized ? materialized : null,
      cacheKey,
      cacheAgeSeconds,
      refresh,
    })
    .catch((error: unknown) => {
      throw queryFailureError(classifyStubError(error), `endpoint ${endpoint.id} v${version.version} run`);
    })) as InsightRunOutput | RunRejected | RunFailure;
  await touchLastExecuted(db, endpoint.id, endpoint.lastExecutedAt);
  if ("rejected" in outcome) {
    const { status, type, code, detail, attr } = outcome.rejected;
    // The runner names fields of the query.
    throw new ApiError(status, type, code, detail, attr).under("query");
  }
  if ("failure" in outcome) throw queryFailureError(outcome.failure, `endpoint ${endpoint.id} v${version.version} run`);
  const response: InsightRunResponse = {
    results: outcome.response.results,
    ...("hasMore" in outcome.response ? { hasMore: outcome.response.hasMore } : {}),
    is_cached: outcome.is_cached,
    last_refresh: outcome.last_refresh,
    ...cacheTimes(outcome.last_refresh, cacheAgeSeconds),
    timezone: project.timezone,
    query_status: null,
    error: null,
    query_metadata: null,
    endpoint_version: version.version,
    endpoint_version_created_at: version.createdAt,
    ...(outcome.materialized_at
      ? { endpoint_materialized: true as const, endpoint_materialized_at: outcome.materialized_at }
      : {}),
  };
  if (req.debug !== true && req.debug !== "true") return response;
  return {
    ...response,
    cache_key: cacheKey,
    resolved_date_range: outcome.response.resolved_date_range,
    timings: [
      { k: outcome.materialized_at ? "./read_materialized" : "./execute", t: outcome.execute_ms / 1000 },
      { k: "./endpoint_run", t: (Date.now() - started) / 1000 },
    ],
    calculation_trigger:
      outcome.is_cached || outcome.materialized_at ? null : refresh === "cache" ? "cache_miss" : refresh,
  };
}
