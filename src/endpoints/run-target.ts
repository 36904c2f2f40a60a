import type { Db } from "../db/client";
import { MAX_LIMIT } from "../hogql/compile";
import { notFound, validationError } from "../lib/errors";
import type { SavedQuery } from "./saved-query-schema";
import { type EndpointRow, findRunTarget, parseVersionParam, type VersionRow } from "./service";

/**
 * A run of an endpoint version, HogQL (run.ts) or insight (insight-run.ts): the request, its checks in
 * PostHog's order, and the cache timing both answer with.
 */

/** PostHog's default staleness for results when the version sets no cache age. */
export const DEFAULT_CACHE_AGE_SECONDS = 6 * 3600;
export const REFRESH_MODES = ["cache", "force", "direct"] as const;

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

export type RefreshMode = (typeof REFRESH_MODES)[number];
const isRefreshMode = (mode: string): mode is RefreshMode => (REFRESH_MODES as readonly string[]).includes(mode);

/** The endpoint and version to run, with the run's options, once every check has passed. */
export interface RunTarget {
  endpoint: EndpointRow;
  version: VersionRow;
  requestedLimit: number | undefined;
  refresh: RefreshMode;
}

/** The request's checks, in PostHog's order (its tests pin which error wins). */
export async function checkRun(db: Db, projectId: number, name: string, req: RunRequest): Promise<RunTarget> {
  const requestedVersion = parseVersionParam(req.version);
  const target = await findRunTarget(db, projectId, name, requestedVersion);
  if (!target?.endpoint.isActive) throw notFound();
  const { endpoint, version } = target;
  if (req.query_override !== undefined && req.query_override !== null)
    throw validationError("query_override is not allowed. Use variables instead.", "query_override");
  const kind = version ? (version.query as SavedQuery).kind : undefined;
  if (req.filters_override !== undefined && req.filters_override !== null && kind === "HogQLQuery") {
    throw validationError(
      "filters_override is not supported for HogQL endpoints. Use variables instead.",
      "filters_override",
    );
  }
  if (!version) throw notFound(`Version ${requestedVersion} not found for endpoint '${endpoint.name}'`);
  if (!version.isActive)
    throw validationError(`Version ${version.version} is inactive and cannot be executed.`, "version");
  if (kind !== "HogQLQuery" && req.limit !== undefined && req.limit !== null && req.limit !== "")
    throw validationError(`Limit parameter is only supported for HogQLQuery, not ${kind}`, "limit");
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

/** When a result computed at `lastRefresh` may be asked for again: a minute later. */
export const nextAllowedRefresh = (lastRefresh: string) => new Date(Date.parse(lastRefresh) + 60_000).toISOString();

/** When a result computed at `lastRefresh` may be asked for again, and when it stops being served from the cache. */
export function cacheTimes(lastRefresh: string, cacheAgeSeconds: number) {
  return {
    next_allowed_client_refresh: nextAllowedRefresh(lastRefresh),
    cache_target_age: new Date(Date.parse(lastRefresh) + cacheAgeSeconds * 1000).toISOString(),
  };
}
