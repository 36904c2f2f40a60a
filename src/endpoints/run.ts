import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { endpointVersions } from "../db/schema";
import type { Env } from "../env";
import { COMPILER_VERSION, type CompiledQuery, DEFAULT_LIMIT, MAX_LIMIT } from "../hogql/compile";
import { sha256Hex } from "../lib/crypto";
import { validationError } from "../lib/errors";
import type { Project } from "../projects/service";
import { analyticsEngine } from "../analytics";
import type { Cell } from "../analytics/queries";
import { enableMaterialization, materializerFor } from "./materialization";
import { classifyStubError, queryFailureError } from "./query-errors";
import { compileQuery, isBindable, isList, variablesByCode } from "./query";
import type { InsightRunResponse, RunResponse } from "./response-schemas";
import { type HogQLQuery, isHogQL } from "./saved-query-schema";
import { runInsightVersion } from "./insight-run";
import { type EndpointRow, touchLastExecuted, type VersionRow } from "./service";
import { cacheTimes, checkRun, DEFAULT_CACHE_AGE_SECONDS, type RunRequest, type RunTarget } from "./run-target";

/** Run a saved query: checks in PostHog's order, binds variables, the endpoint's Durable Object executes. */
export async function runEndpoint(
  env: Env,
  db: Db,
  project: Project,
  name: string,
  req: RunRequest,
): Promise<RunResponse | InsightRunResponse> {
  const started = Date.now();
  const target = await checkRun(db, project.id, name, req);
  if (!isHogQL(target.version.query)) return runInsightVersion(env, db, project, target, req, started);
  const plan = await currentPlan(env, db, project, target.endpoint, target.version);
  const version = target.version;
  const bound = bindVariables(version.query as HogQLQuery, plan, req.variables ?? {}, version.isMaterialized);
  const execution = await execute(env, db, project, target, plan, bound);
  const response = runResponse(project, target, plan, execution);
  const debug = req.debug === true || req.debug === "true";
  return debug ? { ...response, ...debugFields(target, plan, execution, started) } : response;
}

/** The values a run binds: each variable's by name, and the materialized table's when the version has one. */
interface BoundVariables {
  values: Record<string, unknown>;
  materialized: Cell[] | null;
}

/**
 * Checks the request's variables against the saved ones and takes each one's value: the request's,
 * else the stored one. The engine binds them as parameters (src/analytics/); a variable compared
 * with IN takes a list, or a scalar as a one-element list.
 */
export function bindVariables(
  query: HogQLQuery,
  plan: CompiledQuery,
  requested: Record<string, unknown>,
  materialized: boolean,
): BoundVariables {
  const definitions = variablesByCode(query);
  const unknown = Object.keys(requested)
    .filter((k) => !definitions.has(k))
    .sort();
  if (unknown.length) throw validationError(`Unknown variable(s): ${unknown.join(", ")}`, "variables");
  const lists = new Set(plan.lists);
  for (const [key, value] of Object.entries(requested)) {
    if (lists.has(key) ? !isBindable(value) && !isList(value) : !isBindable(value)) {
      throw validationError(
        `Variable ${key} must be a string, number, boolean or null${lists.has(key) ? ", or a list of them" : ""}.`,
        "variables",
      );
    }
  }
  const valueOf = (code: string): unknown => {
    const value = code in requested ? requested[code] : (definitions.get(code)?.value ?? null);
    if (Array.isArray(value) && !lists.has(code))
      throw validationError(`Variable ${code} holds a list; compare it with IN.`, "variables");
    return value;
  };
  const values = Object.fromEntries(plan.variables.map((code) => [code, valueOf(code)]));
  const table = plan.materialization;
  // The stored table holds values as the engines answer them: booleans as 1/0. (Its variables are the query's.)
  const stored = (code: string) => (typeof values[code] === "boolean" ? Number(values[code]) : values[code]) as Cell;
  return { values, materialized: materialized && "sql" in table ? table.variables.map(stored) : null };
}

/** The endpoint's Durable Object runs the plan (or reads its cache or materialized table). */
async function execute(
  env: Env,
  db: Db,
  project: Project,
  { endpoint, version, requestedLimit, refresh }: RunTarget,
  plan: CompiledQuery,
  bound: BoundVariables,
) {
  const limit = Math.min(requestedLimit ?? plan.limit ?? DEFAULT_LIMIT, plan.limit ?? MAX_LIMIT, MAX_LIMIT);
  const cacheAgeSeconds = version.cacheAgeSeconds ?? DEFAULT_CACHE_AGE_SECONDS;
  const values = plan.variables.map((code) => bound.values[code]);
  const cacheKey = await sha256Hex(JSON.stringify([plan.engine, version.version, values, limit, plan.offset]));
  const context = `endpoint ${endpoint.id} v${version.version} run`;
  const outcome = await materializerFor(env, endpoint.id)
    .run({
      version: version.version,
      statement: { sql: plan.sql, variables: plan.variables, lists: plan.lists, variableParams: plan.variableParams },
      // One row past the limit says whether there are more.
      run: {
        projectId: project.id,
        timezone: project.timezone,
        values: bound.values,
        limit: limit + 1,
        offset: plan.offset,
      },
      limit,
      cacheKey,
      cacheAgeSeconds,
      refresh,
      materialized: bound.materialized,
    })
    .catch((error: unknown) => {
      // The Durable Object itself failed (overloaded, reset, unreachable): a 5xx, retryable when it says so.
      throw queryFailureError(classifyStubError(error), context);
    });
  await touchLastExecuted(db, endpoint.id, endpoint.lastExecutedAt);
  if ("failure" in outcome) throw queryFailureError(outcome.failure, context);
  return { output: outcome, limit, cacheKey, cacheAgeSeconds };
}

/** A run's rows (as the Durable Object's RPC delivers them) and the settings that produced them. */
type Execution = Awaited<ReturnType<typeof execute>>;

/** PostHog's HogQL query response, plus the endpoint's version (and materialization) fields. */
function runResponse(project: Project, { version }: RunTarget, plan: CompiledQuery, execution: Execution): RunResponse {
  const { output, limit, cacheAgeSeconds } = execution;
  return {
    results: output.results,
    columns: output.columns,
    types: output.types,
    hasMore: output.hasMore,
    limit,
    offset: plan.offset,
    is_cached: output.is_cached,
    last_refresh: output.last_refresh,
    ...cacheTimes(output.last_refresh, cacheAgeSeconds),
    timezone: project.timezone,
    query_status: null,
    error: null,
    metadata: null,
    query_metadata: null,
    endpoint_version: version.version,
    endpoint_version_created_at: version.createdAt,
    ...(output.materialized_at
      ? { endpoint_materialized: true, endpoint_materialized_at: output.materialized_at }
      : {}),
  };
}

/** What `debug` adds: the cache key, the HogQL and its SQL, timings and why the result was computed. */
function debugFields({ version, refresh }: RunTarget, plan: CompiledQuery, execution: Execution, started: number) {
  const { output, cacheKey } = execution;
  return {
    cache_key: cacheKey,
    hogql: (version.query as HogQLQuery).query,
    sql: plan.sql,
    timings: [
      { k: output.materialized_at ? "./read_materialized" : "./execute", t: output.execute_ms / 1000 },
      { k: "./endpoint_run", t: (Date.now() - started) / 1000 },
    ],
    calculation_trigger: output.is_cached ? null : refresh === "cache" ? ("cache_miss" as const) : refresh,
  } satisfies Partial<RunResponse>;
}

/**
 * The version's plan, recompiled once (and saved, with the materialization re-pointed) when it was
 * produced by an older compiler or for the other engine: versions are immutable, the SQL they
 * compile to may improve, and a deployment may move its events to ClickHouse.
 */
async function currentPlan(
  env: Env,
  db: Db,
  project: Project,
  endpoint: EndpointRow,
  version: VersionRow,
): Promise<CompiledQuery> {
  const stored = version.compiled;
  const engine = analyticsEngine(env);
  if (stored?.compiler === COMPILER_VERSION && stored.engine === engine) return stored;
  const compiled = await compileQuery(version.query as HogQLQuery, engine);
  await db.update(endpointVersions).set({ compiled }).where(eq(endpointVersions.id, version.id));
  const updated = { ...version, compiled };
  if (version.isMaterialized && "sql" in compiled.materialization)
    await enableMaterialization(env, endpoint, updated, version.syncFrequency, project);
  return compiled;
}
