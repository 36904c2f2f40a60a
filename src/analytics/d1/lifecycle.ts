import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import type { LifecycleActorsQuery, LifecycleType } from "../queries";
import { byTime } from "./funnel-sql";
import { eventColumns, propertiesSql } from "./property-filters";
import { runAll } from "./run";

/** Each status over the flags of a person: active in T (`at`), in P (`ap`), before P (`early`), created in T. */
const STATUS: Record<LifecycleType, string> = {
  new: "at = 1 AND ap = 0 AND early = 0 AND created",
  returning: "at = 1 AND ap = 1",
  resurrecting: "at = 1 AND ap = 0 AND NOT (early = 0 AND created)",
  dormant: "ap = 1 AND at = 0",
};

/**
 * The persons of one lifecycle status. The periods' UTC bounds come computed, so the SQL only
 * compares timestamps (one scan of events_project_event_timestamp_idx).
 */
export async function lifecycleActorIds(
  d1: D1Client,
  query: LifecycleActorsQuery,
  cohorts: CohortSql,
): Promise<number[]> {
  const { series } = query;
  const params = new Params();
  const cols = eventColumns("x");
  const Ts = params.bind(query.targetStart);
  const Te = params.bind(query.targetEnd);
  const Ps = params.bind(query.previousStart);
  const W0 = params.bind(query.windowStart);
  const eventMatch = series.event === null ? "1" : `x.event = ${params.bind(series.event)}`;
  const filters = [
    propertiesSql(query.properties, cols, params, "properties", cohorts),
    propertiesSql(series.properties, cols, params, "events", cohorts),
  ].join(" AND ");
  const sql = `WITH a AS (
      SELECT x.person_id AS pid,
        max(x.timestamp >= ${Ts}) AS at,
        max(x.timestamp >= ${Ps} AND x.timestamp < ${Ts}) AS ap,
        max(x.timestamp < ${Ps}) AS early
      FROM ${byTime(series.event !== null)}
      WHERE x.project_id = ${params.bind(query.projectId)} AND x.timestamp >= ${W0} AND x.timestamp < ${Te}
        AND x.person_id IS NOT NULL AND ${eventMatch} AND ${filters}
      GROUP BY x.person_id
    ), s AS (
      SELECT pid, at, ap, early,
        coalesce((SELECT p.created_at >= ${Ts} AND p.created_at < ${Te} FROM persons p WHERE p.id = a.pid), 0) AS created
      FROM a
    )
    SELECT pid FROM s WHERE ${STATUS[query.status]}
    ORDER BY pid LIMIT ${params.bind(query.rows.limit)} OFFSET ${params.bind(query.rows.offset)}`;
  return (await runAll<{ pid: number }>(d1, sql, params)).map((r) => r.pid);
}
