import type { ClickHouseClient } from "@clickhouse/client-web";
import { COUNT_OPERATORS, type StickinessActorsQuery, type StickinessCount, type StickinessQuestion } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { personPage } from "./analysis-persons";
import { analysisRows, runAnalysis } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { periodStart } from "./periods";
import type { ClickHouseCohorts } from "./property-filters";

/**
 * Each person's number of active windows (`pid`, `n`), as on D1 (d1/stickiness.ts). A calendar
 * window is an event's local period (ClickHouse's zone functions); a unit of several intervals is
 * found by searching the windows' starts.
 */
function activeSql(question: StickinessQuestion, params: ClickHouseParams, cohorts: ClickHouseCohorts): string {
  const { entity, windows, bucketing, criteria } = question;
  const { condition, withPerson } = seriesCondition(params, cohorts, entity, question.properties);
  const events = analysisEvents(
    params,
    { from: windows[0][0], to: windows[windows.length - 1][1] },
    { personProperties: withPerson },
  );
  const zone = params.text(bucketing.timezone);
  const calendar = !bucketing.intervalCount;
  const period = periodStart(bucketing.interval, "timestamp", zone, bucketing.weekStart);
  if (calendar && !criteria)
    return `(SELECT pid, uniqExact(${period}) AS n FROM ${events} WHERE ${condition} GROUP BY pid)`;
  // Each person's matching events per window (`k`: the window's key).
  let perWindow = `SELECT pid, ${period} AS k, count() AS c FROM ${events} WHERE ${condition} GROUP BY pid, k`;
  if (!calendar) {
    // Units counted back from the range's end need not start on a local hour or day: each event
    // finds its window among the windows' starts.
    const starts = params.bind(
      windows.map(([s]) => Date.parse(s)),
      "Array(Int64)",
    );
    perWindow = `SELECT pid, arrayCount(s -> s <= toUnixTimestamp64Milli(timestamp), ${starts}) AS k, count() AS c
      FROM ${events} WHERE ${condition} GROUP BY pid, k`;
  }
  const counted = criteria ? `c ${COUNT_OPERATORS[criteria.operator]} ${params.bind(criteria.value, "UInt64")}` : "1";
  return `(SELECT pid, countIf(${counted}) AS n FROM (${perWindow}) GROUP BY pid HAVING n > 0)`;
}

/** Persons per number of active windows. */
export async function stickinessCountsOnClickHouse(
  client: ClickHouseClient,
  question: StickinessQuestion,
  cohorts: ClickHouseCohorts,
): Promise<StickinessCount[]> {
  const params = new ClickHouseParams(question.projectId);
  const sql = `SELECT n AS periods, count() AS persons FROM ${activeSql(question, params, cohorts)} GROUP BY n`;
  const rows = await analysisRows<StickinessCount>(client, sql, params);
  return rows.map((r) => ({ periods: Number(r.periods), persons: Number(r.persons) }));
}

/** The persons active in `operator` `activePeriods` windows (D1 ids in id order), from the same counts as the histogram. */
export async function stickinessActorIdsOnClickHouse(
  client: ClickHouseClient,
  query: StickinessActorsQuery,
  cohorts: ClickHouseCohorts,
): Promise<number[]> {
  const params = new ClickHouseParams(query.question.projectId);
  const selected = `(SELECT pid FROM ${activeSql(query.question, params, cohorts)}
    WHERE n ${COUNT_OPERATORS[query.operator ?? "exact"]} ${params.bind(query.activePeriods, "UInt64")})`;
  return runAnalysis(client, personPage(selected, query.rows, params), params);
}
