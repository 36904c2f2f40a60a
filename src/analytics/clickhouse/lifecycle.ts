import type { ClickHouseClient } from "@clickhouse/client-web";
import type { LifecycleActorsQuery, LifecycleCount, LifecycleQuestion, LifecycleType } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { LATEST_PERSONS, personPage } from "./analysis-persons";
import { analysisRows, runAnalysis } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { periodIndex, periodStart } from "./periods";
import type { ClickHouseCohorts } from "./property-filters";

/**
 * Each person's status in each period (`pid`, `idx`, `status`), decided as on D1 (d1/lifecycle.ts)
 * and as PostHog's runner does, over each person's sorted active periods (events grouped by their
 * local period first) and creation period: the first active period is new when it is the creation
 * period, one right after an active one returning, any other resurrecting; the period after an
 * active one without activity is dormant.
 */
function statusesSql(question: LifecycleQuestion, params: ClickHouseParams, cohorts: ClickHouseCohorts): string {
  const { series, periods, bucketing } = question;
  const { condition, withPerson } = seriesCondition(params, cohorts, series, question.properties);
  const events = analysisEvents(
    params,
    { from: periods[0][0], to: periods[periods.length - 1][1] },
    { personProperties: withPerson },
  );
  const zone = params.text(bucketing.timezone);
  const start = (t: string) => periodStart(bucketing.interval, t, zone, bucketing.weekStart);
  const grouped = `SELECT pid, ${start("timestamp")} AS k FROM ${events} WHERE ${condition} GROUP BY pid, k`;
  const active = `SELECT pid, arraySort(arrayFilter(x -> x >= 0, groupArray(${periodIndex(bucketing, "k", params)}))) AS a
    FROM (${grouped}) GROUP BY pid`;
  // A person without a mirror row reads created_at 0, in no period; a deleted one is created in none
  // either (as on D1, where neither has a row).
  const created = `if(lp.is_deleted = 1, -1, ${periodIndex(bucketing, start("fromUnixTimestamp64Micro(lp.created_at)"), params)})`;
  const count = params.bind(periods.length, "Int64");
  const pairs = `arrayConcat(
      arrayMap(i -> (a[i], multiIf(i = 1 AND a[i] = c, 'new', i > 1 AND a[i - 1] = a[i] - 1, 'returning', 'resurrecting')), arrayEnumerate(a)),
      arrayMap(x -> (x + 1, 'dormant'), arrayFilter((x, i) -> (i = length(a) OR a[i + 1] > x + 1) AND x + 1 < ${count}, a, arrayEnumerate(a))))`;
  return `(SELECT pid, p.1 AS idx, p.2 AS status FROM (
      SELECT ac.pid AS pid, ac.a AS a, ${created} AS c
      FROM (${active}) AS ac LEFT JOIN (${LATEST_PERSONS}) AS lp ON lp.id = ac.pid
    ) ARRAY JOIN ${pairs} AS p)`;
}

/** A lifecycle's persons per period and status. */
export async function lifecycleCountsOnClickHouse(
  client: ClickHouseClient,
  question: LifecycleQuestion,
  cohorts: ClickHouseCohorts,
): Promise<LifecycleCount[]> {
  const params = new ClickHouseParams(question.projectId);
  const sql = `SELECT idx AS period, status, count() AS persons FROM ${statusesSql(question, params, cohorts)}
    WHERE idx >= 1 GROUP BY idx, status`;
  const rows = await analysisRows<{ period: number; status: LifecycleType; persons: number }>(client, sql, params);
  return rows.map((r) => ({ period: Number(r.period), status: r.status, persons: Number(r.persons) }));
}

/** The persons of a status in a period, or in any (D1 ids in id order), from the same statuses as the counts. */
export async function lifecycleActorIdsOnClickHouse(
  client: ClickHouseClient,
  query: LifecycleActorsQuery,
  cohorts: ClickHouseCohorts,
): Promise<number[]> {
  const params = new ClickHouseParams(query.question.projectId);
  const where = [
    query.period === undefined ? "idx >= 1" : `idx = ${params.bind(query.period, "Int64")}`,
    query.status === undefined ? "1" : `status = ${params.text(query.status)}`,
  ].join(" AND ");
  const selected = `(SELECT pid FROM ${statusesSql(query.question, params, cohorts)} WHERE ${where})`;
  return runAnalysis(client, personPage(selected, query.rows, params), params);
}
