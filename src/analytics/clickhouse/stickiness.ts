import type { ClickHouseClient } from "@clickhouse/client-web";
import type { StickinessActorsQuery } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { personPage } from "./analysis-persons";
import { runAnalysis } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { periodStart } from "./periods";
import type { ClickHouseCohorts } from "./property-filters";

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
  const period = periodStart(query.interval, "timestamp", params.text(query.timezone), query.weekStart);
  const active = `(SELECT pid FROM ${events} WHERE ${condition} GROUP BY pid HAVING uniqExact(${period}) = ${params.bind(query.activePeriods, "UInt64")})`;
  return runAnalysis(client, personPage(active, query.rows, params), params);
}
