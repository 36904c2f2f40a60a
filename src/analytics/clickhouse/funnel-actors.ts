import type { ClickHouseClient } from "@clickhouse/client-web";
import type { FunnelActorsQuery } from "../queries";
import { personPage } from "./analysis-persons";
import { runAnalysis } from "./analysis-run";
import { breakdownCondition, funnelSql } from "./funnel";
import { ClickHouseParams } from "./params";
import type { ClickHouseCohorts } from "./property-filters";

/** The condition on `steps` for a bucket: listed furthest steps, or a `funnel_step` selector (as on D1). */
function bucketCondition(bucket: FunnelActorsQuery["bucket"], params: ClickHouseParams): string {
  if ("customSteps" in bucket) return `steps IN ${params.bind(bucket.customSteps, "Array(UInt32)")}`;
  const step = params.bind(Math.abs(bucket.step), "UInt32");
  return bucket.step > 0 ? `steps >= ${step}` : `steps = ${step} - 1`;
}

/** The D1 ids of one funnel bucket's persons, in id order. */
export async function funnelActorIdsOnClickHouse(
  client: ClickHouseClient,
  query: FunnelActorsQuery,
  cohorts: ClickHouseCohorts,
): Promise<number[]> {
  const { funnel } = query;
  const params = new ClickHouseParams(funnel.projectId);
  const conditions = [bucketCondition(query.bucket, params)];
  if (query.breakdownValue !== undefined && funnel.breakdown)
    conditions.push(breakdownCondition(funnel.breakdown, query.breakdownValue, params));
  if (query.entrance) conditions.push(`period = ${params.bind(query.entrance.period, "Int64")}`);
  const funnelRows = funnelSql({ ...funnel, cohorts }, params, { periodStarts: query.entrance?.periodStarts });
  const source = `(SELECT pid FROM ${funnelRows} WHERE ${conditions.join(" AND ")})`;
  return runAnalysis(client, personPage(source, query.rows, params), params);
}
