import type { ClickHouseClient } from "@clickhouse/client-web";
import { type ActorEvents, pointWindows, type TrendsActorsQuery } from "../queries";
import { personRowsPage } from "./analysis-persons";
import { analysisRows } from "./analysis-run";
import { ClickHouseParams } from "./params";
import type { ClickHouseCohorts } from "./property-filters";
import { firstEventsSql, seriesOnClickHouse } from "./trends";

/**
 * The persons of one point of a trends series on ClickHouse, as D1 answers them (d1/trends-actors.ts):
 * the series' events (read and matched as trendsRowsOnClickHouse reads them) in the point's windows
 * and breakdown value, grouped by person.
 */
export async function trendsActorsOnClickHouse(
  client: ClickHouseClient,
  query: TrendsActorsQuery,
  cohorts: ClickHouseCohorts,
): Promise<ActorEvents[]> {
  const { question, breakdownValue } = query;
  const params = new ClickHouseParams(question.projectId);
  const windows = pointWindows(query);
  // The point's windows are consecutive: one range.
  const range = { from: windows[0][0], to: windows[windows.length - 1][1] };
  const series = seriesOnClickHouse(question, params, cohorts, range, true);
  const inRange = `timestamp >= ${params.time(range.from)} AND timestamp < ${params.time(range.to)}`;
  const matched =
    question.aggregate.kind === "firstTime"
      ? `SELECT pid, bv FROM (${firstEventsSql(series, !!question.aggregate.matchingFilters)}) WHERE ${inRange}`
      : `SELECT pid, ${series.value} AS bv FROM ${series.events} WHERE pid IS NOT NULL AND ${inRange} AND ${series.condition}`;
  // Breakdown values compare as lists, a null key equal to a null key.
  const inValue = !breakdownValue
    ? "1"
    : "is" in breakdownValue
      ? `bv = ${params.bind(breakdownValue.is, "Array(Nullable(String))")}`
      : `NOT has(${params.bind(breakdownValue.notIn, "Array(Array(Nullable(String)))")}, bv)`;
  const source = `(SELECT pid, count() AS events FROM (${matched}) WHERE ${inValue} GROUP BY pid)`;
  const rows = await analysisRows<{ d1_id: number; events: number }>(
    client,
    personRowsPage(source, ["events"], query.rows, params, query.byEvents ? "events DESC" : undefined),
    params,
  );
  return rows.map((r) => ({ personId: Number(r.d1_id), events: Number(r.events) }));
}
