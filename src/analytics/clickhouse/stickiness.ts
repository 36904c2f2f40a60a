import type { ClickHouseClient } from "@clickhouse/client-web";
import type { Interval, WeekStart } from "../../lib/time/zone";
import type { StickinessActorsQuery } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { personPage } from "./analysis-persons";
import { runAnalysis } from "./analysis-run";
import { ClickHouseParams } from "./params";
import type { ClickHouseCohorts } from "./property-filters";

/**
 * The local period an event falls in, by ClickHouse's own time-zone functions: the same periods as
 * lib/time/zone.ts's startOfInterval (toStartOfWeek's mode 0 starts weeks on Sunday, 1 on Monday), DST days included.
 */
const PERIOD: Record<Interval, (t: string, zone: string, weekStart: WeekStart) => string> = {
  hour: (t, zone) => `toStartOfHour(${t}, ${zone})`,
  day: (t, zone) => `toStartOfDay(${t}, ${zone})`,
  week: (t, zone, weekStart) => `toStartOfWeek(${t}, ${weekStart}, ${zone})`,
  month: (t, zone) => `toStartOfMonth(${t}, ${zone})`,
};

/** Persons active in exactly N of the range's periods (D1 ids in id order). */
export async function stickinessActorIdsOnClickHouse(
  client: ClickHouseClient,
  query: StickinessActorsQuery,
  cohorts: ClickHouseCohorts,
): Promise<number[]> {
  const { entity } = query;
  const params = new ClickHouseParams(query.projectId);
  const { condition, withPerson } = seriesCondition(params, cohorts, entity, query.properties);
  const range = { from: query.periods[0][0], to: query.periods.at(-1)![1] };
  const events = analysisEvents(params, range, { personProperties: withPerson });
  const period = PERIOD[query.interval]("timestamp", params.text(query.timezone), query.weekStart);
  const active = `(SELECT pid FROM ${events} WHERE ${condition} GROUP BY pid HAVING uniqExact(${period}) = ${params.bind(query.activePeriods, "UInt64")})`;
  return runAnalysis(client, personPage(active, query.rows, params), params);
}
