import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import type { FunnelActorsQuery } from "../queries";
import { breakdownCondition, funnelCtes } from "./funnel-sql";
import { runAll } from "./run";

/** SQL condition on `funnel.steps` for a bucket: listed furthest steps, or a `funnel_step` selector. */
function bucketCondition(bucket: FunnelActorsQuery["bucket"]): string {
  if ("customSteps" in bucket) return `steps IN (${bucket.customSteps.join(", ")})`;
  return bucket.step > 0 ? `steps >= ${bucket.step}` : `steps = ${-bucket.step - 1}`;
}

/** The ids of one funnel bucket's persons, in id order (once each: all_events and step attribution give a person a row per value). */
export async function funnelActorIds(d1: D1Client, query: FunnelActorsQuery, cohorts: CohortSql): Promise<number[]> {
  const { funnel, rows } = query;
  const params = new Params();
  const ctes = funnelCtes({ ...funnel, cohorts }, params, { periodStarts: query.entrance?.periodStarts });
  const conditions = [bucketCondition(query.bucket)];
  if (query.entrance) conditions.push(`period = ${params.bind(query.entrance.period)}`);
  if (query.breakdownValue !== undefined && funnel.breakdown)
    conditions.push(breakdownCondition(funnel.breakdown, query.breakdownValue, params));
  const sql = `${ctes}
    SELECT DISTINCT pid FROM funnel WHERE ${conditions.join(" AND ")}
    ORDER BY pid LIMIT ${params.bind(rows.limit)} OFFSET ${params.bind(rows.offset)}`;
  return (await runAll<{ pid: number }>(d1, sql, params)).map((r) => r.pid);
}
