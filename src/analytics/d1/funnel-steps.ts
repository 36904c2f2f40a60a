import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import type {
  FunnelConversionQuery,
  FunnelConversionTimes,
  FunnelStepsQuery,
  FunnelStepsRow,
  FunnelTrendsQuery,
  FunnelTrendsRow,
} from "../queries";
import { funnelCtes } from "./funnel-sql";
import { runAll } from "./run";

/** Seconds from one ISO time to a later one, to the millisecond. */
const seconds = (from: string, to: string) => `(round((julianday(${to}) - julianday(${from})) * 86400000.0) / 1000.0)`;

/**
 * The median of `value` per `keys` from a CTE `source(keys…, value)`: the middle value, or the mean
 * of the two middle values (as ClickHouse's interpolating quantiles).
 */
const medians = (source: string, keys: string) => `SELECT ${keys}, avg(value) AS value FROM (
    SELECT ${keys}, value, row_number() OVER (PARTITION BY ${keys} ORDER BY value) AS i, count(*) OVER (PARTITION BY ${keys}) AS c
    FROM ${source}) WHERE i IN ((c + 1) / 2, (c + 2) / 2) GROUP BY ${keys}`;

/**
 * A funnel's steps per breakdown value (analytics/queries.ts FunnelStepsQuery): the breakdown values
 * ranked and cut to the limit, then per final value the persons by furthest step and the conversion
 * times' mean and median per step, all in one statement over the funnel the persons drill-down reads.
 */
export async function funnelSteps(
  d1: D1Client,
  query: FunnelStepsQuery,
  cohorts: CohortSql,
): Promise<FunnelStepsRow[]> {
  const { funnel } = query;
  const n = funnel.steps.length;
  const params = new Params();
  const ctes = funnelCtes({ ...funnel, cohorts }, params);
  const steps = Array.from({ length: n }, (_, k) => k + 1);
  const byFurthest = [...steps].reverse().map((k) => `c${k} DESC`);
  const other = funnel.breakdown?.list ? JSON.stringify(["Other"]) : "Other";
  const final = funnel.breakdown
    ? `CASE WHEN r.rn <= ${params.bind(query.breakdownLimit)} THEN f.bd ELSE ${params.bind(other)} END`
    : "f.bd";
  const gaps = steps
    .slice(1)
    .map((k) => `SELECT fb, ${k} AS k, ${seconds(`t${k - 1}`, `t${k}`)} AS value FROM fp WHERE t${k} IS NOT NULL`);
  const sql = `${ctes},
    ranked AS MATERIALIZED (SELECT bd, row_number() OVER (ORDER BY ${byFurthest.join(", ")}, bd) AS rn
      FROM (SELECT bd, ${steps.map((k) => `sum(steps = ${k}) AS c${k}`).join(", ")} FROM funnel GROUP BY bd)),
    fp AS MATERIALIZED (SELECT f.*, ${final} AS fb, r.rn FROM funnel f JOIN ranked r ON r.bd IS f.bd),
    gaps AS MATERIALIZED (${gaps.length ? gaps.join(" UNION ALL ") : "SELECT NULL AS fb, NULL AS k, NULL AS value WHERE 0"}),
    positive AS (SELECT * FROM gaps WHERE value > 0)
    SELECT 'n' AS kind, fb, steps AS k, count(*) AS value, min(rn) AS rank FROM fp GROUP BY fb, steps
    UNION ALL SELECT 'avg', fb, k, avg(value), NULL FROM positive GROUP BY fb, k
    UNION ALL SELECT 'median', fb, k, value, NULL FROM (${medians("positive", "fb, k")})`;
  const rows = await runAll<{ kind: string; fb: string | null; k: number; value: number; rank: number | null }>(
    d1,
    sql,
    params,
  );
  const byValue = new Map<string | null, FunnelStepsRow & { rank: number }>();
  const rowOf = (fb: string | null) => {
    let row = byValue.get(fb);
    if (!row) {
      row = {
        breakdown: fb === null ? null : funnel.breakdown?.list ? (JSON.parse(fb) as string[]) : fb,
        furthest: new Array<number>(n).fill(0),
        averageSeconds: new Array<number | null>(n).fill(null),
        medianSeconds: new Array<number | null>(n).fill(null),
        rank: Infinity,
      };
      byValue.set(fb, row);
    }
    return row;
  };
  for (const r of rows) {
    const row = rowOf(r.fb);
    if (r.kind === "n") {
      row.furthest[r.k - 1] = r.value;
      row.rank = Math.min(row.rank, r.rank ?? Infinity);
    } else if (r.kind === "avg") row.averageSeconds[r.k - 1] = r.value;
    else row.medianSeconds[r.k - 1] = r.value;
  }
  return [...byValue.values()].sort((a, b) => a.rank - b.rank).map(({ rank: _, ...row }) => row);
}

/**
 * The binned seconds from step `fromStep` to `toStep` of the persons who reached `toStep`
 * (FunnelConversionQuery), in one statement: the bounds, the bin count (the least k with k³ ≥ the
 * persons, the cube root rounded up without floating point) and width, then the persons per bin.
 */
export async function funnelConversionTimes(
  d1: D1Client,
  query: FunnelConversionQuery,
  cohorts: CohortSql,
): Promise<FunnelConversionTimes> {
  const params = new Params();
  const count =
    query.binCount !== undefined
      ? params.bind(query.binCount)
      : `coalesce((SELECT min(value) FROM json_each(${params.bind(JSON.stringify(AUTO_BIN_COUNTS))}) WHERE value * value * value >= n), ${AUTO_BIN_COUNTS.length})`;
  const sql = `${funnelCtes({ ...query.funnel, cohorts }, params)},
    times AS MATERIALIZED (SELECT ${seconds(`t${query.fromStep + 1}`, `t${query.toStep + 1}`)} AS value
      FROM funnel WHERE steps >= ${query.toStep + 1}),
    bounds AS MATERIALIZED (SELECT count(*) AS n, coalesce(CAST(min(value) AS INTEGER), 0) AS lo,
      coalesce(CAST(max(value) AS INTEGER) + (max(value) > CAST(max(value) AS INTEGER)), 0) AS hi, avg(value) AS average FROM times),
    sized AS (SELECT *, CAST(${count} AS INTEGER) AS k FROM bounds),
    binning AS MATERIALIZED (SELECT *, CASE WHEN (hi - lo + k - 1) / k > 0 THEN (hi - lo + k - 1) / k ELSE 60 END AS width FROM sized)
    SELECT lo, width, k, average,
      (SELECT value FROM (${medians("(SELECT 1 AS one, value FROM times)", "one")})) AS median,
      (SELECT json_group_array(json_array(bin, persons)) FROM (
        SELECT CAST((t.value - g.lo) / g.width AS INTEGER) AS bin, count(*) AS persons FROM times t GROUP BY bin)) AS bins
    FROM binning g`;
  const [summary] = await runAll<{
    lo: number;
    width: number;
    k: number;
    average: number | null;
    median: number | null;
    bins: string;
  }>(d1, sql, params);
  const persons = new Map(JSON.parse(summary.bins) as [number, number][]);
  return {
    averageSeconds: summary.average,
    medianSeconds: summary.median,
    bins: Array.from({ length: summary.k + 1 }, (_, i) => [summary.lo + i * summary.width, persons.get(i) ?? 0]),
  };
}

/** The automatic bin counts: 1 to 60, the least whose cube reaches the number of persons. */
const AUTO_BIN_COUNTS = Array.from({ length: 60 }, (_, i) => i + 1);

/** Funnel trends (FunnelTrendsQuery): per entrance period, the persons who entered and who converted. */
export async function funnelTrends(
  d1: D1Client,
  query: FunnelTrendsQuery,
  cohorts: CohortSql,
): Promise<FunnelTrendsRow[]> {
  const params = new Params();
  const { funnel } = query;
  const ctes = funnelCtes({ ...funnel, cohorts }, params, { periodStarts: query.periodStarts });
  const n = funnel.steps.length;
  const sql = `${ctes}
    SELECT period, bd, count(*) AS entered, sum(steps = ${n}) AS converted FROM funnel
    WHERE period >= 0 AND steps >= ${query.fromStep + 1} GROUP BY period, bd ORDER BY period`;
  const rows = await runAll<{ period: number; bd: string | null; entered: number; converted: number }>(d1, sql, params);
  return rows.map(({ bd, ...row }) =>
    funnel.breakdown
      ? { ...row, breakdown: funnel.breakdown.list ? (JSON.parse(bd ?? "[]") as string[]) : (bd ?? "") }
      : row,
  );
}
