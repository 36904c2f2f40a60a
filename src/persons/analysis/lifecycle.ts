import { validationError } from "../../lib/errors";
import { parseInstant, resolveDateRange } from "./dates";
import { pageOf } from "./funnel";
import type { ProjectContext } from "./funnel-input";
import { globalFilters, type Input, interval, parseEvents, str } from "./params";
import { eventColumns, propertiesSql } from "./property-filters";
import { actorsPage, type ActorsResponse } from "./response";
import { byTime } from "./funnel-sql";
import { Params, runAll } from "./sql";
import { addIntervals, iso, startOfInterval } from "./zone";

export const LIFECYCLE_TYPES = ["new", "returning", "resurrecting", "dormant"] as const;
type LifecycleType = (typeof LIFECYCLE_TYPES)[number];

/**
 * PostHog's lifecycle, for the period T containing `target_date` (P = the period before T):
 * - new: active in T, T is the person's first active period of the query window (which starts one
 *   interval before date_from) and the person was created in T;
 * - returning: active in T and in P;
 * - resurrecting: active in T, not in P, and not new;
 * - dormant: active in P, not in T.
 * Periods are the project's local days/weeks/months; their UTC bounds are computed in the worker,
 * so the SQL only compares timestamps (one scan of events_project_event_timestamp_idx).
 */
const STATUS: Record<LifecycleType, string> = {
  new: "at = 1 AND ap = 0 AND early = 0 AND created",
  returning: "at = 1 AND ap = 1",
  resurrecting: "at = 1 AND ap = 0 AND NOT (early = 0 AND created)",
  dormant: "ap = 1 AND at = 0",
};

export async function lifecycleActors(
  d1: D1Database,
  ctx: ProjectContext,
  input: Input,
  requestUrl: string,
): Promise<ActorsResponse> {
  const target = str(input, "target_date");
  if (target === undefined) throw validationError("Must include specified date", "target_date", "required");
  const type = str(input, "lifecycle_type");
  if (type === undefined) throw validationError("Must include lifecycle type", "lifecycle_type", "required");
  if (!(LIFECYCLE_TYPES as readonly string[]).includes(type)) {
    throw validationError(`lifecycle_type must be one of: ${LIFECYCLE_TYPES.join(", ")}.`, "lifecycle_type");
  }
  const series = parseEvents(input, { min: 1, max: 1 })[0];
  const unit = interval(input);
  const page = pageOf(input);
  const zone = ctx.timezone;
  const range = await resolveDateRange(
    { date_from: str(input, "date_from"), date_to: str(input, "date_to") },
    zone,
    ctx.now,
    ctx.earliest,
  );
  const first = startOfInterval(range.from, unit, zone);
  const last = startOfInterval(range.to - 1, unit, zone);
  const T = startOfInterval(parseInstant(target, zone, ctx.now, "target_date"), unit, zone);
  const url = requestUrl;
  if (T < first || T > last) return actorsPage(d1, ctx.projectId, [], page, url);

  const params = new Params();
  const cols = eventColumns("x");
  const Ts = params.bind(iso(T));
  const Te = params.bind(iso(addIntervals(T, 1, unit, zone)));
  const Ps = params.bind(iso(addIntervals(T, -1, unit, zone)));
  const W0 = params.bind(iso(addIntervals(first, -1, unit, zone)));
  const eventMatch = series.event === null ? "1" : `x.event = ${params.bind(series.event)}`;
  const filters = [
    propertiesSql(globalFilters(input, ctx.testAccountFilters), cols, params, "properties", ctx.cohorts),
    propertiesSql(series.properties, cols, params, "events", ctx.cohorts),
  ].join(" AND ");
  const sql = `WITH a AS (
      SELECT x.person_id AS pid,
        max(x.timestamp >= ${Ts}) AS at,
        max(x.timestamp >= ${Ps} AND x.timestamp < ${Ts}) AS ap,
        max(x.timestamp < ${Ps}) AS early
      FROM ${byTime(series.event !== null)}
      WHERE x.project_id = ${params.bind(ctx.projectId)} AND x.timestamp >= ${W0} AND x.timestamp < ${Te}
        AND x.person_id IS NOT NULL AND ${eventMatch} AND ${filters}
      GROUP BY x.person_id
    ), s AS (
      SELECT pid, at, ap, early,
        coalesce((SELECT p.created_at >= ${Ts} AND p.created_at < ${Te} FROM persons p WHERE p.id = a.pid), 0) AS created
      FROM a
    )
    SELECT pid FROM s WHERE ${STATUS[type as LifecycleType]}
    ORDER BY pid LIMIT ${params.bind(page.limit + 1)} OFFSET ${params.bind(page.offset)}`;
  const rows = await runAll<{ pid: number }>(d1, sql, params);
  return actorsPage(
    d1,
    ctx.projectId,
    rows.map((r) => r.pid),
    page,
    url,
  );
}
