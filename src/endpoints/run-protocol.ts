import type { QueryFailure } from "../analytics/errors";
import type { Cell, HogQLRun, HogQLStatement, QueryRows } from "../analytics/queries";
import type { InsightSettings } from "../insights/context";
import type { InsightQuery, InsightResponse } from "../insights/insight";
import type { ApiError, ErrorBody } from "../lib/errors";
import type { RefreshMode } from "./run-target";

/** What the worker sends the endpoint's materializer Durable Object to run a version, and what it answers. */
export interface RunInput {
  version: number;
  /** The version's plan, compiled for the deployment's engine. */
  statement: HogQLStatement;
  /** Its values; `run.limit` is one past `limit`, which says whether there are more rows. */
  run: HogQLRun;
  /** Rows to return. */
  limit: number;
  cacheKey: string;
  cacheAgeSeconds: number;
  refresh: RefreshMode;
  /** Values of the materialized variables, in config order, when the version is materialized. */
  materialized: Cell[] | null;
}
/** The engine refused the query or failed, as its store classified the error (the worker shapes the envelope). */
export interface RunFailure {
  failure: QueryFailure;
}
export interface RunOutput extends QueryRows {
  hasMore: boolean;
  is_cached: boolean;
  last_refresh: string;
  materialized_at: string | null;
  /** Milliseconds spent reading the rows (the engine or the stored table); 0 for a cache hit. */
  execute_ms: number;
}

/** An insight version's run: the query with the run's overrides applied, computed in the project's settings. */
export interface InsightRunInput {
  version: number;
  query: InsightQuery;
  /** The project's settings now: a stored result computed in others is not read. */
  settings: InsightSettings;
  /** Read from the materialization (when ready): the run overrides nothing, or only names a breakdown value. */
  materialized: { breakdownValue?: string } | null;
  cacheKey: string;
  cacheAgeSeconds: number;
  refresh: RefreshMode;
}
export interface InsightRunOutput {
  response: InsightResponse;
  is_cached: boolean;
  last_refresh: string;
  materialized_at: string | null;
  execute_ms: number;
}
/** The insight refused the request (a 4xx of the runner, or an engine's classified 5xx), as its envelope. */
export interface RunRejected {
  rejected: ErrorBody & { status: ApiError["status"] };
}
