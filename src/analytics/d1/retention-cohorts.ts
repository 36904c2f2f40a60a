import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import type { EventEntity, RetentionActor, RetentionActorsQuery, RetentionCount, RetentionQuestion } from "../queries";
import { byTime } from "./funnel-sql";
import { eventColumns, jsonText, keyPath, propertiesSql } from "./property-filters";
import { runAll } from "./run";
import { inWindows, windowsCte } from "./windows";

/**
 * Each person's retention cells (`cells`: pid, bv, cohort, k; k = 0 their cohort) and cohorts
 * (`cohorts`: pid, bv, cohort), as PostHog's calendar-mode retention decides them: the events of
 * the periods (one range scan each), per person, value and period, with or without a target event
 * (`t`) and their number of return events (`rc`); a cohort is a
 * period with a target event (or the period of the person's first target event of all time); a
 * return counts in a later period of the cohort's lookahead with enough return events. The table's
 * counts and the cohort's persons both read these.
 */
function cellsSql(question: RetentionQuestion, params: Params, cohorts: CohortSql): string {
  const cols = eventColumns("x");
  const project = params.bind(question.projectId);
  const global = propertiesSql(question.properties, cols, params, "properties", cohorts);
  const nameOf = (entity: EventEntity) => (entity.event === null ? "1" : `x.event = ${params.bind(entity.event)}`);
  const propsOf = (entity: EventEntity, attr: string) => propertiesSql(entity.properties, cols, params, attr, cohorts);
  const targetName = nameOf(question.target);
  const targetProps = propsOf(question.target, "targetEntity");
  const target = `(${targetName} AND ${targetProps})`;
  const returning = `(${nameOf(question.returning)} AND ${propsOf(question.returning, "returningEntity")})`;
  const { breakdown } = question;
  const bv = breakdown
    ? `coalesce(${jsonText(breakdown.type === "person" ? cols.person : cols.event, keyPath(breakdown.key, params))}, '')`
    : "''";
  const names = [question.target.event, question.returning.event];
  const named = names.every((e) => e !== null);
  const eventIn = named ? ` AND x.event IN (${names.map((e) => params.bind(e)).join(", ")})` : "";
  const ctes = [
    windowsCte("periods", question.periods, params),
    // Per person, value and period: whether they did the target, and how many return events.
    `ev AS (
      SELECT x.person_id AS pid, ${bv} AS bv, w.idx AS idx, max(${target}) AS t, sum(${returning}) AS rc
      ${inWindows("periods", named, project, `x.person_id IS NOT NULL${eventIn} AND ${global} AND (${target} OR ${returning})`)}
      GROUP BY 1, 2, 3)`,
  ];
  if (question.first) {
    // The first target event of all time (up to the range's end), within each breakdown value: the
    // first meeting the target's filters, or the first of its name if that one meets them.
    const end = params.bind(question.periods[question.periods.length - 1][1]);
    const anchor = question.first === "ever" ? "CASE WHEN matching = first THEN first END" : "matching";
    ctes.push(`firsts AS (
      SELECT x.person_id AS pid, ${bv} AS bv, min(x.timestamp) AS first, min(CASE WHEN ${targetProps} THEN x.timestamp END) AS matching
      FROM ${byTime(question.target.event !== null)}
      WHERE x.project_id = ${project} AND x.timestamp < ${end} AND x.person_id IS NOT NULL AND ${targetName} AND ${global}
      GROUP BY 1, 2)`);
    // A first-ever occurrence is one event: the person's cohort is in its breakdown value only.
    const candidates =
      question.first === "ever"
        ? "(SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY pid ORDER BY first) AS n FROM firsts) WHERE n = 1)"
        : "firsts";
    ctes.push(`cohorts AS (
      SELECT f.pid AS pid, f.bv AS bv, w.idx AS cohort FROM (SELECT pid, bv, ${anchor} AS anchor FROM ${candidates}) f
      JOIN periods w ON f.anchor >= w.s AND f.anchor < w.e)`);
  } else {
    ctes.push("cohorts AS (SELECT pid, bv, idx AS cohort FROM ev WHERE t)");
  }
  const minimum = params.bind(question.minimumOccurrences ?? 1);
  ctes.push(`returns AS (SELECT pid, bv, idx FROM ev WHERE rc >= ${minimum})`);
  ctes.push(`cells AS (
      SELECT pid, bv, cohort, 0 AS k FROM cohorts
      UNION ALL
      SELECT c.pid, c.bv, c.cohort, r.idx - c.cohort FROM cohorts c
      JOIN returns r ON r.pid = c.pid AND r.bv = c.bv AND r.idx > c.cohort AND r.idx < c.cohort + ${params.bind(question.lookahead)})`);
  return `WITH ${ctes.join(", ")}`;
}

/** Persons per cohort, breakdown value and k (`last`: by the k of their last return). */
export async function retentionCounts(
  d1: D1Client,
  question: RetentionQuestion,
  last: boolean,
  cohorts: CohortSql,
): Promise<RetentionCount[]> {
  const params = new Params();
  const from = last ? "(SELECT pid, bv, cohort, max(k) AS k FROM cells GROUP BY pid, bv, cohort)" : "cells";
  const sql = `${cellsSql(question, params, cohorts)}
    SELECT bv, cohort, k, count(*) AS persons FROM ${from} GROUP BY bv, cohort, k`;
  const rows = await runAll<{ bv: string; cohort: number; k: number; persons: number }>(d1, sql, params);
  return rows.map((r) => ({
    cohort: r.cohort,
    k: r.k,
    persons: r.persons,
    ...(question.breakdown ? { breakdown: r.bv } : {}),
  }));
}

/**
 * The persons of a cohort, or of any (of one breakdown value), with the intervals they are counted
 * at: in id order, or by their number of appearances.
 */
export async function retentionActors(
  d1: D1Client,
  query: RetentionActorsQuery,
  cohorts: CohortSql,
): Promise<RetentionActor[]> {
  const params = new Params();
  const where = [
    query.start === undefined ? "1" : `cohort = ${params.bind(query.start)}`,
    query.breakdownValue === undefined ? "1" : `bv = ${params.bind(query.breakdownValue)}`,
  ].join(" AND ");
  const order = query.byAppearances ? "count(*) DESC, pid" : "pid";
  const sql = `${cellsSql(query.question, params, cohorts)}
    SELECT pid, json_group_array(k) AS ks FROM (SELECT DISTINCT pid, k FROM cells WHERE ${where})
    GROUP BY pid ORDER BY ${order} LIMIT ${params.bind(query.rows.limit)} OFFSET ${params.bind(query.rows.offset)}`;
  return (await runAll<{ pid: number; ks: string }>(d1, sql, params)).map((r) => ({
    personId: r.pid,
    appearances: (JSON.parse(r.ks) as number[]).sort((a, b) => a - b),
  }));
}
