import type { ClickHouseClient } from "@clickhouse/client-web";
import type { LifecycleActorsQuery, LifecycleType } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { LATEST_PERSONS, personPage } from "./analysis-persons";
import { runAnalysis } from "./analysis-run";
import { ClickHouseParams } from "./params";
import type { ClickHouseCohorts } from "./property-filters";

/** Each status over a person's flags, as on D1: active in T (`at`), in P (`ap`), before P (`early`), created in T. */
const STATUS: Record<LifecycleType, string> = {
  new: "at = 1 AND ap = 0 AND early = 0 AND created",
  returning: "at = 1 AND ap = 1",
  resurrecting: "at = 1 AND ap = 0 AND NOT (early = 0 AND created)",
  dormant: "ap = 1 AND at = 0",
};

/** The persons of one lifecycle status (D1 ids in id order), over the periods' UTC bounds computed by the caller. */
export async function lifecycleActorIdsOnClickHouse(
  client: ClickHouseClient,
  query: LifecycleActorsQuery,
  cohorts: ClickHouseCohorts,
): Promise<number[]> {
  const { series } = query;
  const params = new ClickHouseParams(query.projectId);
  const micros = (iso: string) => params.bind(Date.parse(iso) * 1000, "Int64");
  const [Ts, Te, Ps] = [query.targetStart, query.targetEnd, query.previousStart].map(micros);
  const { condition, withPerson } = seriesCondition(params, cohorts, series, query.properties);
  const events = analysisEvents(
    params,
    { from: query.windowStart, to: query.targetEnd },
    { personProperties: withPerson },
  );
  const flags = `SELECT pid, max(t >= ${Ts}) AS at, max(t >= ${Ps} AND t < ${Ts}) AS ap, max(t < ${Ps}) AS early FROM ${events} WHERE ${condition} GROUP BY pid`;
  // A person without a mirror row was not created in T (D1: no row, not created).
  const statuses = `(SELECT a.pid AS pid, at, ap, early, lp.created_at >= ${Ts} AND lp.created_at < ${Te} AS created FROM (${flags}) AS a LEFT JOIN (${LATEST_PERSONS}) AS lp ON lp.id = a.pid)`;
  const selected = `(SELECT pid FROM ${statuses} WHERE ${STATUS[query.status]})`;
  return runAnalysis(client, personPage(selected, query.rows, params), params);
}
