import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import { COUNT_OPERATORS, type StickinessActorsQuery, type StickinessCount, type StickinessQuestion } from "../queries";
import { byTime } from "./funnel-sql";
import { eventColumns, propertiesSql } from "./property-filters";
import { runAll } from "./run";

/**
 * Each person's number of active windows (`active`: pid, n). The windows go to SQL as one JSON
 * parameter of UTC bounds; each drives an index range scan, so events are read once.
 */
function activeSql(question: StickinessQuestion, params: Params, cohorts: CohortSql): string {
  const { entity, criteria } = question;
  const cols = eventColumns("x");
  const eventMatch = entity.event === null ? "1" : `x.event = ${params.bind(entity.event)}`;
  const filters = [
    propertiesSql(question.properties, cols, params, "properties", cohorts),
    propertiesSql(entity.properties, cols, params, "series", cohorts),
  ].join(" AND ");
  const counted = criteria ? `count(*) ${COUNT_OPERATORS[criteria.operator]} ${params.bind(criteria.value)}` : "1";
  // CROSS JOIN keeps `windows` as the outer loop: one index range scan per window.
  return `windows AS (
      SELECT CAST(key AS INTEGER) AS idx, json_extract(value, '$[0]') AS s, json_extract(value, '$[1]') AS e
      FROM json_each(${params.bind(JSON.stringify(question.windows))})
    ), units AS (
      SELECT x.person_id AS pid
      FROM windows w CROSS JOIN ${byTime(entity.event !== null)}
      WHERE x.project_id = ${params.bind(question.projectId)} AND ${eventMatch}
        AND x.timestamp >= w.s AND x.timestamp < w.e AND x.person_id IS NOT NULL AND ${filters}
      GROUP BY x.person_id, w.idx HAVING ${counted}
    ), active AS (SELECT pid, count(*) AS n FROM units GROUP BY pid)`;
}

/** Persons per number of active windows. */
export async function stickinessCounts(
  d1: D1Client,
  question: StickinessQuestion,
  cohorts: CohortSql,
): Promise<StickinessCount[]> {
  const params = new Params();
  const sql = `WITH ${activeSql(question, params, cohorts)} SELECT n AS periods, count(*) AS persons FROM active GROUP BY n`;
  return runAll<StickinessCount>(d1, sql, params);
}

/** The persons active in `operator` `activePeriods` windows, from the same counts as the histogram. */
export async function stickinessActorIds(
  d1: D1Client,
  query: StickinessActorsQuery,
  cohorts: CohortSql,
): Promise<number[]> {
  const params = new Params();
  const sql = `WITH ${activeSql(query.question, params, cohorts)}
    SELECT pid FROM active WHERE n ${COUNT_OPERATORS[query.operator ?? "exact"]} ${params.bind(query.activePeriods)}
    ORDER BY pid LIMIT ${params.bind(query.rows.limit)} OFFSET ${params.bind(query.rows.offset)}`;
  return (await runAll<{ pid: number }>(d1, sql, params)).map((r) => r.pid);
}
