import type { ClickHouseClient } from "@clickhouse/client-web";
import type {
  FunnelConversionQuery,
  FunnelConversionTimes,
  FunnelStepsQuery,
  FunnelStepsRow,
  FunnelTrendsQuery,
  FunnelTrendsRow,
} from "../queries";
import { analysisRows } from "./analysis-run";
import { funnelSql } from "./funnel";
import { ClickHouseParams } from "./params";
import type { ClickHouseCohorts } from "./property-filters";

/** A number ClickHouse answered, or null for its NaN (an aggregate over nothing). */
const finite = (value: unknown): number | null =>
  value === null || value === undefined || !Number.isFinite(Number(value)) ? null : Number(value);

/** Seconds between two µs times. */
const seconds = (from: string, to: string) => `(${to} - ${from}) / 1e6`;

/**
 * A funnel's steps per breakdown value, as on D1 (d1/funnel-steps.ts): one pass per breakdown value
 * collects the persons by furthest step and the positive conversion times per step; the values are
 * ranked by persons at the last step, then the one before, and so on, the first `breakdownLimit`
 * kept and the rest merged into "Other", whose means and medians are over all their times.
 */
export async function funnelStepsOnClickHouse(
  client: ClickHouseClient,
  query: FunnelStepsQuery,
  cohorts: ClickHouseCohorts,
): Promise<FunnelStepsRow[]> {
  const { funnel } = query;
  const n = funnel.steps.length;
  const params = new ClickHouseParams(funnel.projectId);
  const source = funnelSql({ ...funnel, cohorts }, params);
  const steps = Array.from({ length: n }, (_, k) => k + 1);
  const later = steps.slice(1);
  const perValue =
    `SELECT bd, ${steps.map((k) => `countIf(steps = ${k}) AS c${k}`).join(", ")}` +
    later
      .map((k) => {
        const gap = seconds(`times[${k - 1}]`, `times[${k}]`);
        return `, groupArrayIf(${gap}, steps >= ${k} AND ${gap} > 0) AS d${k}`;
      })
      .join("") +
    ` FROM ${source} GROUP BY bd`;
  const byFurthest = [...steps].reverse().map((k) => `c${k} DESC`);
  const ranked = `SELECT *, row_number() OVER (ORDER BY ${byFurthest.join(", ")}, bd) AS rn FROM (${perValue})`;
  const other = funnel.breakdown?.list ? "['Other']" : "'Other'";
  const final = funnel.breakdown ? `if(rn <= ${params.bind(query.breakdownLimit, "UInt64")}, bd, ${other})` : "bd";
  const sql =
    `SELECT ${final} AS fb, min(rn) AS rank, [${steps.map((k) => `sum(c${k})`).join(", ")}] AS furthest,` +
    ` [NULL${later.map((k) => `, avgArray(d${k})`).join("")}] AS averages,` +
    ` [NULL${later.map((k) => `, quantileExactInclusiveArray(0.5)(d${k})`).join("")}] AS medians` +
    ` FROM (${ranked}) GROUP BY fb ORDER BY rank`;
  const rows = await analysisRows<{
    fb: string | string[] | null;
    furthest: number[];
    averages: unknown[];
    medians: unknown[];
  }>(client, sql, params);
  return rows.map((r) => ({
    breakdown: funnel.breakdown ? r.fb : null,
    furthest: r.furthest.map(Number),
    averageSeconds: r.averages.map(finite),
    medianSeconds: r.medians.map(finite),
  }));
}

/** The binned seconds from step `fromStep` to `toStep` of the persons who reached `toStep`, as on D1, in one statement. */
export async function funnelConversionTimesOnClickHouse(
  client: ClickHouseClient,
  query: FunnelConversionQuery,
  cohorts: ClickHouseCohorts,
): Promise<FunnelConversionTimes> {
  const params = new ClickHouseParams(query.funnel.projectId);
  const source = funnelSql({ ...query.funnel, cohorts }, params);
  const value = seconds(`times[${query.fromStep + 1}]`, `times[${query.toStep + 1}]`);
  const times = `SELECT ${value} AS value FROM ${source} WHERE steps >= ${query.toStep + 1}`;
  // The least k (1 to 60) with k³ ≥ the persons: the cube root rounded up, without floating point.
  const count =
    query.binCount !== undefined
      ? params.bind(query.binCount, "Int64")
      : "toInt64(ifNull(nullIf(arrayFirst(k -> k * k * k >= n, range(1, 61)), 0), 60))";
  const summary =
    `SELECT count() AS n, if(n = 0, 0, toInt64(floor(min(value)))) AS lo, if(n = 0, 0, toInt64(ceil(max(value)))) AS hi,` +
    ` avg(value) AS average, quantileExactInclusive(0.5)(value) AS median, groupArray(value) AS vs FROM (${times})`;
  const sql =
    `SELECT lo, width, k, average, median, arrayMap(b -> countEqual(idx, b), range(0, k + 1)) AS persons FROM (` +
    ` SELECT *, arrayMap(v -> toInt64(floor((v - lo) / width)), vs) AS idx FROM (` +
    ` SELECT *, if(intDiv(hi - lo + k - 1, k) > 0, intDiv(hi - lo + k - 1, k), 60) AS width FROM (` +
    ` SELECT *, ${count} AS k FROM (${summary}))))`;
  const [row] = await analysisRows<{
    lo: number;
    width: number;
    k: number;
    average: unknown;
    median: unknown;
    persons: number[];
  }>(client, sql, params);
  const [lo, width] = [Number(row.lo), Number(row.width)];
  return {
    averageSeconds: finite(row.average),
    medianSeconds: finite(row.median),
    bins: row.persons.map((n, i) => [lo + i * width, Number(n)]),
  };
}

/** Funnel trends, as on D1: per entrance period, the persons who entered and who converted. */
export async function funnelTrendsOnClickHouse(
  client: ClickHouseClient,
  query: FunnelTrendsQuery,
  cohorts: ClickHouseCohorts,
): Promise<FunnelTrendsRow[]> {
  const { funnel } = query;
  const params = new ClickHouseParams(funnel.projectId);
  const source = funnelSql({ ...funnel, cohorts }, params, { periodStarts: query.periodStarts });
  const n = funnel.steps.length;
  const sql =
    `SELECT period, bd AS value, count() AS entered, countIf(steps = ${n}) AS converted FROM ${source}` +
    ` WHERE period >= 0 AND steps >= ${query.fromStep + 1} GROUP BY period, value ORDER BY period`;
  const rows = await analysisRows<{
    period: number;
    value: string | string[] | null;
    entered: number;
    converted: number;
  }>(client, sql, params);
  return rows.map((r) => ({
    period: Number(r.period),
    entered: Number(r.entered),
    converted: Number(r.converted),
    ...(funnel.breakdown ? { breakdown: r.value ?? "" } : {}),
  }));
}
