import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import { COUNT_OPERATORS, type StickinessActorsQuery, type StickinessCount, type StickinessQuestion } from "../queries";
import { runAll } from "./run";
import { inWindows, seriesMatch, windowsCte } from "./windows";

/** Each person's number of active windows (`active`: pid, n), over events read once (windows.ts). */
function activeSql(question: StickinessQuestion, params: Params, cohorts: CohortSql): string {
  const { entity, criteria } = question;
  const { match } = seriesMatch(entity, question.properties, params, cohorts);
  const project = params.bind(question.projectId);
  const counted = criteria ? `count(*) ${COUNT_OPERATORS[criteria.operator]} ${params.bind(criteria.value)}` : "1";
  return `${windowsCte("windows", question.windows, params)}, units AS (
      SELECT x.person_id AS pid
      ${inWindows("windows", entity.event !== null, project, `x.person_id IS NOT NULL AND ${match}`)}
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
