import type { Cell, QueryRows } from "../analytics/queries";

/** What the worker sends the endpoint's materializer Durable Object to run a version, and what it answers. */
export interface RunInput {
  version: number;
  sql: string;
  params: Cell[];
  limit: number;
  offset: number;
  cacheKey: string;
  cacheAgeSeconds: number;
  refresh: "cache" | "force" | "direct";
  /** Values of the materialized variables, in config order, when the version is materialized. */
  materialized: Cell[] | null;
}
/** D1 refused the query; the raw message, which the worker classifies (query-errors.ts) before anyone sees it. */
export interface RunFailure {
  error: string;
}
export interface RunOutput extends QueryRows {
  hasMore: boolean;
  is_cached: boolean;
  last_refresh: string;
  materialized_at: string | null;
  /** Milliseconds spent reading the rows (D1 or the stored table); 0 for a cache hit. */
  execute_ms: number;
}
