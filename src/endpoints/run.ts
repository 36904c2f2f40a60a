import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { endpoints, endpointVersions } from "../db/schema";
import type { Env } from "../env";
import { COMPILER_VERSION, type CompiledQuery, DEFAULT_LIMIT, MAX_LIMIT } from "../hogql/compile";
import { sha256Hex } from "../lib/crypto";
import { notFound, validationError } from "../lib/errors";
import type { Project } from "../projects/service";
import type { Cell } from "../analytics/queries";
import { enableMaterialization, materializerFor } from "./materialization";
import { classifyQueryError, classifyStubError, queryFailureError } from "./query-errors";
import { compileQuery, isBindable, isList, variablesByCode } from "./query";
import type { RunResponse } from "./response-schemas";
import type { HogQLQuery } from "./saved-query-schema";
import { type EndpointRow, findRunTarget, parseVersionParam, type VersionRow } from "./service";

/** PostHog's default staleness for HogQL results when the version sets no cache age. */
export const DEFAULT_CACHE_AGE_SECONDS = 6 * 3600;
const REFRESH_MODES = ["cache", "force", "direct"] as const;

export interface RunRequest {
  client_query_id?: string;
  debug?: boolean | string;
  filters_override?: unknown;
  limit?: unknown;
  query_override?: unknown;
  refresh?: string;
  variables?: Record<string, unknown>;
  version?: unknown;
}

function parseLimit(raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  const n = typeof raw === "number" ? raw : /^\d+$/.test(String(raw)) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < 1) throw validationError(`Invalid limit parameter: ${String(raw)}`, "limit");
  if (n > MAX_LIMIT) throw validationError(`Invalid limit parameter: ${n} (at most ${MAX_LIMIT})`, "limit");
  return n;
}

/** Run a saved query: checks in PostHog's order, binds variables, the endpoint's Durable Object executes. */
export async function runEndpoint(
  env: Env,
  db: Db,
  project: Project,
  name: string,
  req: RunRequest,
): Promise<RunResponse> {
  const started = Date.now();
  const target = await checkRun(db, project.id, name, req);
  const plan = await currentPlan(env, db, target.endpoint, target.version);
  const bound = bindVariables(target.version, plan, req.variables ?? {});
  const execution = await execute(env, db, project, target, plan, bound);
  const response = runResponse(project, target, plan, execution);
  const debug = req.debug === true || req.debug === "true";
  return debug ? { ...response, ...debugFields(target, plan, execution, started) } : response;
}

type RefreshMode = (typeof REFRESH_MODES)[number];
const isRefreshMode = (mode: string): mode is RefreshMode => (REFRESH_MODES as readonly string[]).includes(mode);

/** The endpoint and version to run, with the run's options, once every check has passed. */
interface RunTarget {
  endpoint: EndpointRow;
  version: VersionRow;
  requestedLimit: number | undefined;
  refresh: RefreshMode;
}

/** The request's checks, in PostHog's order (its tests pin which error wins). */
async function checkRun(db: Db, projectId: number, name: string, req: RunRequest): Promise<RunTarget> {
  const requestedVersion = parseVersionParam(req.version);
  const target = await findRunTarget(db, projectId, name, requestedVersion);
  if (!target?.endpoint.isActive) throw notFound();
  const { endpoint, version } = target;
  if (req.query_override !== undefined && req.query_override !== null)
    throw validationError("query_override is not allowed. Use variables instead.", "query_override");
  if (req.filters_override !== undefined && req.filters_override !== null) {
    throw validationError(
      "filters_override is not supported for HogQL endpoints. Use variables instead.",
      "filters_override",
    );
  }
  if (!version) throw notFound(`Version ${requestedVersion} not found for endpoint '${endpoint.name}'`);
  if (!version.isActive)
    throw validationError(`Version ${version.version} is inactive and cannot be executed.`, "version");
  const requestedLimit = parseLimit(req.limit);
  const refresh = req.refresh ?? "cache";
  if (!isRefreshMode(refresh)) throw validationError(`refresh must be one of: ${REFRESH_MODES.join(", ")}.`, "refresh");
  if (refresh === "direct" && !version.isMaterialized) {
    throw validationError(
      "'direct' refresh mode is only valid for materialized endpoints. Use 'cache' or 'force' instead.",
      "refresh",
    );
  }
  return { endpoint, version, requestedLimit, refresh };
}

/** The values a run binds: the plan's variables, and the materialized table's when the version has one. */
interface BoundVariables {
  values: Cell[];
  materialized: Cell[] | null;
}

/**
 * Checks the request's variables against the saved ones and binds each as a parameter: the
 * request's value, else the stored one; booleans as SQLite integers, lists (for `IN
 * {variables.x}`) as one JSON array.
 */
function bindVariables(version: VersionRow, plan: CompiledQuery, requested: Record<string, unknown>): BoundVariables {
  const definitions = variablesByCode(version.query as HogQLQuery);
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
  const scalar = (v: unknown) => (typeof v === "boolean" ? Number(v) : v) as Cell;
  const cellOf = (code: string): Cell => {
    const value = code in requested ? requested[code] : (definitions.get(code)?.value ?? null);
    if (lists.has(code))
      return JSON.stringify((Array.isArray(value) ? value : value === null ? [] : [value]).map(scalar));
    if (Array.isArray(value)) throw validationError(`Variable ${code} holds a list; compare it with IN.`, "variables");
    return scalar(value);
  };
  const values = plan.variables.map(cellOf);
  const table = plan.materialization;
  return { values, materialized: version.isMaterialized && "sql" in table ? table.variables.map(cellOf) : null };
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
  const cacheKey = await sha256Hex(JSON.stringify([version.version, bound.values, limit, plan.offset]));
  const context = `endpoint ${endpoint.id} v${version.version} run`;
  const outcome = await materializerFor(env, endpoint.id)
    .run({
      version: version.version,
      sql: plan.sql,
      params: [project.id, ...bound.values, limit + 1, plan.offset],
      limit,
      offset: plan.offset,
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
  if ("error" in outcome) throw queryFailureError(classifyQueryError(outcome.error), context);
  return { output: outcome, limit, cacheKey, cacheAgeSeconds };
}

/** A run's rows (as the Durable Object's RPC delivers them) and the settings that produced them. */
type Execution = Awaited<ReturnType<typeof execute>>;

/** PostHog's HogQL query response, plus the endpoint's version (and materialization) fields. */
function runResponse(project: Project, { version }: RunTarget, plan: CompiledQuery, execution: Execution): RunResponse {
  const { output, limit, cacheAgeSeconds } = execution;
  const refreshedAt = Date.parse(output.last_refresh);
  return {
    results: output.results,
    columns: output.columns,
    types: output.types,
    hasMore: output.hasMore,
    limit,
    offset: plan.offset,
    is_cached: output.is_cached,
    last_refresh: output.last_refresh,
    next_allowed_client_refresh: new Date(refreshedAt + 60_000).toISOString(),
    cache_target_age: new Date(refreshedAt + cacheAgeSeconds * 1000).toISOString(),
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
 * produced by an older compiler: versions are immutable, the SQL they compile to may improve.
 */
async function currentPlan(env: Env, db: Db, endpoint: EndpointRow, version: VersionRow): Promise<CompiledQuery> {
  const stored = version.compiled;
  if (stored?.compiler === COMPILER_VERSION) return stored;
  const compiled = await compileQuery(version.query as HogQLQuery);
  await db.update(endpointVersions).set({ compiled }).where(eq(endpointVersions.id, version.id));
  const updated = { ...version, compiled };
  if (version.isMaterialized && "sql" in compiled.materialization)
    await enableMaterialization(env, endpoint, updated, version.syncFrequency);
  return compiled;
}

/** PostHog writes last_executed_at at most once an hour. */
async function touchLastExecuted(db: Db, endpointId: string, last: string | null) {
  if (last && Date.parse(last) > Date.now() - 3600_000) return;
  await db.update(endpoints).set({ lastExecutedAt: new Date().toISOString() }).where(eq(endpoints.id, endpointId));
}
