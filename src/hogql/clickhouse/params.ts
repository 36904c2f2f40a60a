import type { ClickHouseQuery } from "./compile";
import { variableParam } from "./sql";
import { bindVariable } from "./variables";

export interface ClickHouseRun {
  /** The project: every catalog table is confined to it. */
  teamId: number;
  /** The project's IANA time zone: timestamps are read in it. */
  timezone: string;
  /** The rows to return (the run's limit, at most the query's own LIMIT and MAX_LIMIT). */
  limit: number;
  /** The rows to skip; the query's own OFFSET when unset (materialization pages set it). */
  offset?: number;
  /** The variables' values by name (the request's, else the stored ones); missing ones bind NULL. */
  values: Record<string, unknown>;
}

/** The query parameters of one run of a compiled query (client.query's `query_params`). */
export function clickhouseParams(
  query: Pick<ClickHouseQuery, "variables" | "variableParams" | "offset">,
  run: ClickHouseRun,
): Record<string, unknown> {
  const params: Record<string, unknown> = {
    team_id: run.teamId,
    timezone: run.timezone,
    limit: run.limit,
    offset: run.offset ?? query.offset,
  };
  for (const name of query.variables)
    params[variableParam(name)] = bindVariable(name, query.variableParams[name], run.values[name] ?? null);
  return params;
}
