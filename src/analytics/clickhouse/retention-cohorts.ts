import type { ClickHouseClient } from "@clickhouse/client-web";
import type { RetentionActorsQuery, RetentionCount, RetentionQuestion } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { personPage } from "./analysis-persons";
import { analysisRows, runAnalysis } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { periodIndex, periodStart } from "./periods";
import { type ClickHouseCohorts, jsonText } from "./property-filters";

/**
 * Each person's cohorts and the intervals they count at (`pid`, `bv`, `cohort`, `ks`; 0 first), as
 * on D1 (d1/retention-cohorts.ts): events grouped by person, breakdown value and local period, then
 * per person the periods with a target event (the cohorts; or the period of their first target
 * event of all time) and with enough return events (the returns), each cohort's k the later
 * returns within its lookahead.
 */
function cellsSql(question: RetentionQuestion, params: ClickHouseParams, cohorts: ClickHouseCohorts): string {
  const { periods, bucketing, breakdown } = question;
  const target = seriesCondition(params, cohorts, question.target, question.properties);
  // The target's name (and the global filters) without its own filters: its first-ever occurrence.
  const named = seriesCondition(params, cohorts, { ...question.target, properties: undefined }, question.properties);
  const returning = seriesCondition(params, cohorts, question.returning, question.properties);
  const byPerson = breakdown?.type === "person";
  const events = analysisEvents(
    params,
    // The first target event of all time is looked for before the range too.
    { from: question.first ? "1970-01-01T00:00:00Z" : periods[0][0], to: periods[periods.length - 1][1] },
    { personProperties: target.withPerson || returning.withPerson || byPerson },
  );
  const bv = breakdown
    ? `ifNull(${jsonText(byPerson ? "person_properties" : "properties", params.text(breakdown.key))}, '')`
    : "''";
  const zone = params.text(bucketing.timezone);
  const grouped = `SELECT pid, ${bv} AS bv, ${periodStart(bucketing.interval, "timestamp", zone, bucketing.weekStart)} AS k,
      countIf(${target.condition}) AS tc, countIf(${returning.condition}) AS rc, countIf(${named.condition}) AS nc,
      minIf(timestamp, ${target.condition}) AS first, minIf(timestamp, ${named.condition}) AS first_named
    FROM ${events} WHERE (${named.condition}) OR ((${returning.condition}) AND timestamp >= ${params.time(periods[0][0])})
    GROUP BY pid, bv, k`;
  const minimum = params.bind(question.minimumOccurrences ?? 1, "UInt64");
  const perPerson = `SELECT pid, bv, groupArrayIf(idx, tc > 0 AND idx >= 0) AS starts,
      groupArrayIf(idx, rc >= ${minimum} AND idx >= 0) AS returns, if(countIf(tc > 0) > 0, argMinIf(idx, first, tc > 0), -1) AS anchor,
      if(countIf(tc > 0) > 0 AND minIf(first, tc > 0) = minIf(first_named, nc > 0), argMinIf(idx, first_named, nc > 0), -1) AS anchor_ever,
      if(countIf(nc > 0) > 0, minIf(first_named, nc > 0), NULL) AS fn
    FROM (SELECT pid, bv, ${periodIndex(bucketing, "k", params)} AS idx, tc, rc, nc, first, first_named FROM (${grouped}))
    GROUP BY pid, bv`;
  // A first-ever occurrence is one event: the person's cohort is in its breakdown value only.
  const persons =
    question.first === "ever"
      ? `SELECT * FROM (SELECT *, minIf(tuple(fn, bv), isNotNull(fn)) OVER (PARTITION BY pid) AS earliest FROM (${perPerson}))
        WHERE tuple(fn, bv) = earliest`
      : perPerson;
  const anchor = question.first === "ever" ? "anchor_ever" : "anchor";
  const cohortsOf = question.first ? `if(${anchor} >= 0, [${anchor}], [])` : "starts";
  const lookahead = params.bind(question.lookahead, "Int64");
  return `(SELECT pid, bv, cohort, arrayConcat([0], arrayFilter(x -> x > 0 AND x < ${lookahead}, arrayMap(x -> x - cohort, returns))) AS ks
    FROM (${persons}) ARRAY JOIN ${cohortsOf} AS cohort)`;
}

/** Persons per cohort, breakdown value and k (`last`: by the k of their last return). */
export async function retentionCountsOnClickHouse(
  client: ClickHouseClient,
  question: RetentionQuestion,
  last: boolean,
  cohorts: ClickHouseCohorts,
): Promise<RetentionCount[]> {
  const params = new ClickHouseParams(question.projectId);
  const cells = cellsSql(question, params, cohorts);
  const sql = last
    ? `SELECT bv, cohort, arrayMax(ks) AS k, count() AS persons FROM ${cells} GROUP BY bv, cohort, k`
    : `SELECT bv, cohort, k, count() AS persons FROM ${cells} ARRAY JOIN ks AS k GROUP BY bv, cohort, k`;
  const rows = await analysisRows<{ bv: string; cohort: number; k: number; persons: number }>(client, sql, params);
  return rows.map((r) => ({
    cohort: Number(r.cohort),
    k: Number(r.k),
    persons: Number(r.persons),
    ...(question.breakdown ? { breakdown: r.bv } : {}),
  }));
}

/** The persons of a cohort, or of any (of one breakdown value): D1 ids in id order. */
export async function retentionActorIdsOnClickHouse(
  client: ClickHouseClient,
  query: RetentionActorsQuery,
  cohorts: ClickHouseCohorts,
): Promise<number[]> {
  const params = new ClickHouseParams(query.question.projectId);
  const where = [
    query.start === undefined ? "1" : `cohort = ${params.bind(query.start, "Int64")}`,
    query.breakdownValue === undefined ? "1" : `bv = ${params.text(query.breakdownValue)}`,
  ].join(" AND ");
  const selected = `(SELECT pid FROM ${cellsSql(query.question, params, cohorts)} WHERE ${where})`;
  return runAnalysis(client, personPage(selected, query.rows, params), params);
}
