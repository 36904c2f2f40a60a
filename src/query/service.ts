import { analyticsStore } from "../analytics";
import type { Db } from "../db/client";
import { runHogQLQuery } from "../endpoints/hogql-query";
import { nextAllowedRefresh } from "../endpoints/run-target";
import type { Env } from "../env";
import { insightSettingsOf } from "../insights/context";
import { applyDashboardFilters } from "../insights/dashboard-filters";
import { parseInsightQuery } from "../insights/parse";
import { runInsight } from "../insights/insight";
import { runActorsQuery, runInsightActorsQuery } from "./actors";
import { ApiError, validationError } from "../lib/errors";
import { isObject } from "../lib/json";
import type { Project } from "../projects/service";
import type { QueryResponse } from "./schema";

/** Wrapper nodes of PostHog's app and agent toolkit: the query is their `source` (PostHog's get_query_runner unwraps them). */
const WRAPPERS = new Set(["InsightVizNode", "DataVisualizationNode", "DataTableNode"]);
/** The persons of an insight's point, asked on their own (PostHog answers their raw actor ids). */
const ACTORS_SOURCES = new Set(["InsightActorsQuery", "StickinessActorsQuery", "FunnelsActorsQuery"]);

export interface QueryRequestInput {
  query: Record<string, unknown>;
  filters_override?: Record<string, unknown> | null;
}

/**
 * PostHog's Query API, synchronously: a HogQL query, an insight, or the persons of an insight's
 * point (ActorsQuery), unwrapped from its wrapper node, run on the project's analytics store,
 * answered with PostHog's response fields.
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
  const refreshed = new Date();
  const common = {
    is_cached: false,
    last_refresh: refreshed.toISOString(),
    next_allowed_client_refresh: nextAllowedRefresh(refreshed.toISOString()),
    timezone: project.timezone,
    timings: null,
    query_status: null,
    modifiers: {},
  };

  const actors = node.kind === "ActorsQuery" || ACTORS_SOURCES.has(node.kind);
  if (input.filters_override && (actors || node.kind === "HogQLQuery"))
    throw validationError("filters_override applies to insight queries only.", "filters_override");

  if (node.kind === "HogQLQuery") return { ...common, ...(await runHogQLQuery(env, db, project, node)), error: null };

  const ctx = { ...insightSettingsOf(project), now: refreshed.getTime(), store: analyticsStore(env, db) };
  if (actors) {
    const answer =
      node.kind === "ActorsQuery"
        ? await runActorsQuery(ctx, db, node, attr)
        : await runInsightActorsQuery(ctx, db, node, attr);
    return { ...common, ...answer, hogql: null, error: null };
  }

  const query = parseInsightQuery(
    input.filters_override ? applyDashboardFilters(node, input.filters_override) : node,
    attr,
  );
  // The runner names fields of the query itself.
  const answer = await runInsight(ctx, query).catch((error: unknown) => {
    throw error instanceof ApiError ? error.under(attr) : error;
  });
  return { hasMore: false, ...common, ...answer, hogql: null, error: "" };
}
