import { analyticsEngine, analyticsStore } from "../analytics";
import type { QueryRows } from "../analytics/queries";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../hogql/compile";
import type { Project } from "../projects/service";
import { compileQuery, normalizeHogQL } from "./query";
import { queryFailureError } from "./query-errors";
import { bindVariables } from "./run";

export interface HogQLAnswer extends QueryRows {
  hasMore: boolean;
  limit: number;
  offset: number;
  hogql: string;
}

/**
 * A HogQL query run once, as PostHog's Query API runs it (not saved): compiled for the deployment's
 * engine, its variables bound to their stored values, at most its LIMIT (else 100) rows, one more
 * read to say whether there are more.
 */
export async function runHogQLQuery(
  env: Env,
  db: Db,
  project: Project,
  raw: Record<string, unknown>,
): Promise<HogQLAnswer> {
  const query = normalizeHogQL(raw);
  const plan = await compileQuery(query, analyticsEngine(env));
  const limit = Math.min(plan.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const { values } = bindVariables(query, plan, {}, false);
  const store = analyticsStore(env, db);
  let rows: QueryRows;
  try {
    rows = await store.runHogQL(
      { sql: plan.sql, variables: plan.variables, lists: plan.lists, variableParams: plan.variableParams },
      { projectId: project.id, timezone: project.timezone, values, limit: limit + 1, offset: plan.offset },
    );
  } catch (error) {
    throw queryFailureError(store.classifyError(error), `query API run for project ${project.id}`);
  }
  return {
    ...rows,
    results: rows.results.slice(0, limit),
    hasMore: rows.results.length > limit,
    limit,
    offset: plan.offset,
    hogql: query.query,
  };
}
