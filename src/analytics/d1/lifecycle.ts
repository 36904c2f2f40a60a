import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import type { LifecycleActorsQuery, LifecycleCount, LifecycleQuestion, LifecycleType } from "../queries";
import { runAll } from "./run";
import { inWindows, seriesMatch, windowsCte } from "./windows";

/**
 * Each person's status in each period (`statuses`: pid, idx, status), as PostHog's lifecycle
 * decides it from a person's sorted active periods: the first is new when it is the person's
 * creation period; a period right after an active one is returning; any other active one
 * resurrecting; the period after an active one without activity is dormant. Events are read once
 * (windows.ts); window functions give each active period its neighbours.
 */
function statusesSql(question: LifecycleQuestion, params: Params, cohorts: CohortSql): string {
  const { series } = question;
  const { match } = seriesMatch(series, question.properties, params, cohorts);
  const project = params.bind(question.projectId);
  return `${windowsCte("periods", question.periods, params)}, act AS (
      SELECT x.person_id AS pid, w.idx AS idx, w.s AS s, w.e AS e
      ${inWindows("periods", series.event !== null, project, `x.person_id IS NOT NULL AND ${match}`)}
      GROUP BY x.person_id, w.idx
    ), seq AS (
      SELECT pid, idx, s, e, lag(idx) OVER w AS prev, lead(idx) OVER w AS next
      FROM act WINDOW w AS (PARTITION BY pid ORDER BY idx)
    ), statuses AS (
      SELECT pid, idx, CASE
          WHEN prev IS NULL AND EXISTS (SELECT 1 FROM persons per WHERE per.id = seq.pid AND per.created_at >= seq.s AND per.created_at < seq.e) THEN 'new'
          WHEN prev = idx - 1 THEN 'returning'
          ELSE 'resurrecting' END AS status
      FROM seq
      UNION ALL
      SELECT pid, idx + 1, 'dormant' FROM seq
      WHERE (next IS NULL OR next > idx + 1) AND idx + 1 < ${params.bind(question.periods.length)}
    )`;
}

/** A lifecycle's persons per period and status. */
export async function lifecycleCounts(
  d1: D1Client,
  question: LifecycleQuestion,
  cohorts: CohortSql,
): Promise<LifecycleCount[]> {
  const params = new Params();
  const sql = `WITH ${statusesSql(question, params, cohorts)}
    SELECT idx AS period, status, count(*) AS persons FROM statuses WHERE idx >= 1 GROUP BY idx, status`;
  return runAll<{ period: number; status: LifecycleType; persons: number }>(d1, sql, params);
}

/** The persons of a status in a period (or in any), from the same statuses as the counts. */
export async function lifecycleActorIds(
  d1: D1Client,
  query: LifecycleActorsQuery,
  cohorts: CohortSql,
): Promise<number[]> {
  const params = new Params();
  const where = [
    query.period === undefined ? "idx >= 1" : `idx = ${params.bind(query.period)}`,
    query.status === undefined ? "1" : `status = ${params.bind(query.status)}`,
  ].join(" AND ");
  const sql = `WITH ${statusesSql(query.question, params, cohorts)}
    SELECT DISTINCT pid FROM statuses WHERE ${where}
    ORDER BY pid LIMIT ${params.bind(query.rows.limit)} OFFSET ${params.bind(query.rows.offset)}`;
  return (await runAll<{ pid: number }>(d1, sql, params)).map((r) => r.pid);
}
