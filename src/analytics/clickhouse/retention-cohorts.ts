import type { ClickHouseClient } from "@clickhouse/client-web";
import type { RetentionActor, RetentionActorsQuery, RetentionCount, RetentionQuestion } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { personRowsPage } from "./analysis-persons";
import { analysisRows } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { periodIndex, periodStart } from "./periods";
import { type ClickHouseCohorts, jsonText } from "./property-filters";

/**
 * Each person's cohorts and the intervals they count at (`pid`, `bv`, `cohort`, `ks`; 0 first), as
 * on D1 (d1/retention-cohorts.ts): per person and breakdown value, in one pass over the events
 * (each placed in its local period), the periods with a target event (the cohorts; or the period of
 * their first target event of all time) and with enough return events (the returns), each cohort's
 * k the later returns within its lookahead.
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
  const period = periodStart(bucketing.interval, "timestamp", zone, bucketing.weekStart);
  // Each event's period among the question's (-1 outside them: a first target event before the range).
  const idx = periodIndex(bucketing, period, params);
  const minimum = question.minimumOccurrences ?? 1;
  const returned = `groupArrayIf(idx, (${returning.condition}) AND idx >= 0)`;
  const returns =
    minimum > 1
      ? `arrayFilter(x -> countEqual(${returned}, x) >= ${params.bind(minimum, "UInt64")}, arrayDistinct(${returned}))`
      : `arrayDistinct(${returned})`;
  // First-time cohorts: the first target events, read from all time (returns only from the range).
  const first = question.first
    ? {
        columns: `, if(countIf(${target.condition}) > 0, argMinIf(idx, timestamp, ${target.condition}), -1) AS anchor,
          if(countIf(${target.condition}) > 0 AND minIf(timestamp, ${target.condition}) = minIf(timestamp, ${named.condition}),
            argMinIf(idx, timestamp, ${named.condition}), -1) AS anchor_ever,
          if(countIf(${named.condition}) > 0, minIf(timestamp, ${named.condition}), NULL) AS fn`,
        where: `(${named.condition}) OR ((${returning.condition}) AND timestamp >= ${params.time(periods[0][0])})`,
      }
    : { columns: "", where: `(${target.condition}) OR (${returning.condition})` };
  // One pass: per person and value, the periods with a target event, and those with enough returns.
  const perPerson = `SELECT pid, ${bv} AS bv, arrayDistinct(groupArrayIf(idx, (${target.condition}) AND idx >= 0)) AS starts,
      ${returns} AS returns${first.columns}
    FROM (SELECT *, ${idx} AS idx FROM ${events} WHERE ${first.where}) GROUP BY pid, bv`;
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

/**
 * The persons of a cohort, or of any (of one breakdown value), with the intervals they are counted
 * at: D1 ids in id order, or by their number of appearances.
 */
export async function retentionActorsOnClickHouse(
  client: ClickHouseClient,
  query: RetentionActorsQuery,
  cohorts: ClickHouseCohorts,
): Promise<RetentionActor[]> {
  const params = new ClickHouseParams(query.question.projectId);
  const where = [
    query.start === undefined ? "1" : `cohort = ${params.bind(query.start, "Int64")}`,
    query.breakdownValue === undefined ? "1" : `bv = ${params.text(query.breakdownValue)}`,
  ].join(" AND ");
  const selected = `(SELECT pid, arraySort(groupUniqArrayArray(ks)) AS ks FROM ${cellsSql(query.question, params, cohorts)}
    WHERE ${where} GROUP BY pid)`;
  const page = personRowsPage(
    selected,
    ["ks"],
    query.rows,
    params,
    query.byAppearances ? "length(ks) DESC" : undefined,
  );
  const rows = await analysisRows<{ d1_id: number; ks: number[] }>(client, page, params);
  return rows.map((r) => ({ personId: Number(r.d1_id), appearances: r.ks.map(Number) }));
}
