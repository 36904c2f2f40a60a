import { analyticsEngine, analyticsStore } from "../analytics";
import type { Db } from "../db/client";
import { queryFailureError } from "../endpoints/query-errors";
import { compileQuery, normalizeHogQL, variablesByCode } from "../endpoints/query";
import type { Env } from "../env";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../hogql/compile";
import { type InsightContext } from "../insights/context";
import { applyDashboardFilters } from "../insights/dashboard-filters";
import { parseInsightQuery } from "../insights/parse";
import { runTrends } from "../insights/trends/runner";
import { ApiError, validationError } from "../lib/errors";
import { isObject } from "../lib/json";
import type { Project } from "../projects/service";
import { weekStartOf } from "../projects/service";
import type { QueryResponse } from "./schema";

/** Wrapper nodes of PostHog's app and agent toolkit: the query is their `source` (PostHog's get_query_runner unwraps them). */
const WRAPPERS = new Set(["InsightVizNode", "DataVisualizationNode", "DataTableNode"]);

export interface QueryRequestInput {
  query: Record<string, unknown>;
  filters_override?: Record<string, unknown> | null;
}

/**
 * PostHog's Query API, synchronously: a HogQL query or an insight, unwrapped from its wrapper node,
 * run on the project's analytics store, answered with PostHog's response fields.
 */
export async function runQuery(env: Env, db: Db, project: Project, input: QueryRequestInput): Promise<QueryResponse> {
  let node: unknown = input.query;
  let attr = "query";
  for (let depth = 0; isObject(node) && WRAPPERS.has(String(node.kind)); depth++) {
    if (depth > 2 || !isObject(node.source))
      throw validationError(`${String(node.kind)} needs a source query.`, `${attr}__source`);
    node = node.source;
    attr = `${attr}__source`;
  }
  if (!isObject(node) || typeof node.kind !== "string")
    throw validationError("The query needs a kind.", `${attr}__kind`);
  const store = analyticsStore(env, db);
  const refreshed = new Date();
  const common = {
    is_cached: false,
    last_refresh: refreshed.toISOString(),
    next_allowed_client_refresh: new Date(refreshed.getTime() + 60_000).toISOString(),
    timezone: project.timezone,
    timings: null,
    query_status: null,
    modifiers: {},
  };

  if (node.kind === "HogQLQuery") {
    if (input.filters_override)
      throw validationError("filters_override applies to insight queries only.", "filters_override");
    const query = normalizeHogQL(node);
    const plan = await compileQuery(query, analyticsEngine(env));
    const limit = Math.min(plan.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    const defined = variablesByCode(query);
    const values = Object.fromEntries(plan.variables.map((code) => [code, defined.get(code)?.value ?? null]));
    const statement = {
      sql: plan.sql,
      variables: plan.variables,
      lists: plan.lists,
      variableParams: plan.variableParams,
    };
    let rows;
    try {
      // One row past the limit says whether there are more.
      rows = await store.runHogQL(statement, {
        projectId: project.id,
        timezone: project.timezone,
        values,
        limit: limit + 1,
        offset: plan.offset,
      });
    } catch (error) {
      throw queryFailureError(store.classifyError(error), `query API run for project ${project.id}`);
    }
    return {
      ...common,
      results: rows.results.slice(0, limit),
      columns: rows.columns,
      types: rows.types,
      hasMore: rows.results.length > limit,
      limit,
      offset: plan.offset,
      hogql: query.query,
      error: null,
    };
  }

  const query = parseInsightQuery(
    input.filters_override ? applyDashboardFilters(node, input.filters_override) : node,
    attr,
  );
  const ctx: InsightContext = {
    projectId: project.id,
    timezone: project.timezone,
    weekStart: weekStartOf(project),
    testAccountFilters: project.testAccountFilters,
    now: refreshed.getTime(),
    store,
  };
  // The runner names fields of the query itself.
  const answer = await runTrends(ctx, query).catch((error: unknown) => {
    throw error instanceof ApiError ? error.under(attr) : error;
  });
  return { ...common, ...answer, hogql: null, error: "" };
}
