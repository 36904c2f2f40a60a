import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import type { StickinessActorsQuery } from "../queries";
import { byTime } from "./funnel-sql";
import { eventColumns, propertiesSql } from "./property-filters";
import { runAll } from "./run";

/**
 * Persons active in exactly N periods. The periods go to SQL as one JSON parameter of UTC bounds;
 * each period drives an index range scan, so events are read once.
 */
export async function stickinessActorIds(
  d1: D1Client,
  query: StickinessActorsQuery,
  cohorts: CohortSql,
): Promise<number[]> {
  const { entity } = query;
  const params = new Params();
  const cols = eventColumns("x");
  const eventMatch = entity.event === null ? "1" : `x.event = ${params.bind(entity.event)}`;
  const filters = [
    propertiesSql(query.properties, cols, params, "properties", cohorts),
    propertiesSql(entity.properties, cols, params, "events", cohorts),
  ].join(" AND ");
  // CROSS JOIN keeps `periods` as the outer loop: one index range scan per period.
  const sql = `WITH periods AS (
      SELECT CAST(key AS INTEGER) AS idx, json_extract(value, '$[0]') AS s, json_extract(value, '$[1]') AS e
      FROM json_each(${params.bind(JSON.stringify(query.periods))})
    ), act AS (
      SELECT x.person_id AS pid, count(DISTINCT p.idx) AS n
      FROM periods p CROSS JOIN ${byTime(entity.event !== null)}
      WHERE x.project_id = ${params.bind(query.projectId)} AND ${eventMatch}
        AND x.timestamp >= p.s AND x.timestamp < p.e AND x.person_id IS NOT NULL AND ${filters}
      GROUP BY x.person_id
    )
    SELECT pid FROM act WHERE n = ${params.bind(query.activePeriods)}
    ORDER BY pid LIMIT ${params.bind(query.rows.limit)} OFFSET ${params.bind(query.rows.offset)}`;
  return (await runAll<{ pid: number }>(d1, sql, params)).map((r) => r.pid);
}
