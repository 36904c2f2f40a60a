import type { ClickHouseClient } from "@clickhouse/client-web";
import type { TrendsAggregate, TrendsQuestion, TrendsRow } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { analysisRows } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { periodStart } from "./periods";
import { type ClickHouseCohorts, jsonText } from "./property-filters";

/**
 * A trends series on ClickHouse, answering as D1 (d1/trends.ts): events with or without a person
 * (merges through the overrides, skipped when the person is never read), each event's window found
 * by the zone functions when the windows are plain periods, else by their bounds.
 */
export async function trendsRowsOnClickHouse(
  client: ClickHouseClient,
  question: TrendsQuestion,
  cohorts: ClickHouseCohorts,
): Promise<TrendsRow[]> {
  const { aggregate, breakdown, windows } = question;
  const params = new ClickHouseParams(question.projectId);
  const { condition, withPerson } = seriesCondition(params, cohorts, question.series, question.properties);
  const byPerson = breakdown?.type === "person";
  const first = Date.parse(windows[0][0]);
  const last = Date.parse(windows[windows.length - 1][1]);
  const range = {
    // First-time math looks at every earlier event.
    from: aggregate.kind === "firstTime" ? "1970-01-01T00:00:00Z" : windows[0][0],
    to: windows[windows.length - 1][1],
  };
  const readsPerson = withPerson || byPerson || aggregate.kind === "actors" || aggregate.kind === "firstTime";
  const events = analysisEvents(params, range, {
    personProperties: withPerson || byPerson,
    personless: true,
    anonymous: !readsPerson,
  });
  const source = byPerson ? "person_properties" : "properties";
  const text = (key: string) => {
    const raw = `nullIf(${jsonText(source, params.text(key))}, '')`;
    return breakdown?.normalizeUrl ? `if(empty(trimRight(${raw}, '/?#')), '/', trimRight(${raw}, '/?#'))` : raw;
  };
  const value = breakdown ? `[${breakdown.keys.map(text).join(", ")}]` : "CAST(NULL AS Nullable(String))";
  /** The window (0-based) an event at `time` (UTC ms) falls in, -1 outside them. */
  const windowOf = (time: string) => {
    const b = question.bucketing;
    if (windows.length === 1)
      return `if(${time} >= ${params.bind(first, "Int64")} AND ${time} < ${params.bind(last, "Int64")}, 0, -1)`;
    if (b) {
      const zone = params.text(b.timezone);
      // The period's start as UTC seconds (a week's or month's Date read as midnight in the zone).
      const start = `toUnixTimestamp(toDateTime(${periodStart(b.interval, "timestamp", zone, b.weekStart)}, ${zone}))`;
      // The first window may be cut: an event before its start is out, whatever its period.
      return `if(${time} >= ${params.bind(first, "Int64")} AND ${time} < ${params.bind(last, "Int64")}, indexOf(${params.bind(b.starts, "Array(Int64)")}, ${start} * 1000) - 1, -1)`;
    }
    const ends = params.bind(
      windows.map((w) => Date.parse(w[1])),
      "Array(Int64)",
    );
    return `if(${time} >= ${params.bind(first, "Int64")}, arrayFirstIndex(e -> ${time} < e, ${ends}) - 1, -1)`;
  };
  const actor = "ifNull(toString(pid), concat('d', distinct_id))";
  const inner = (columns: string) =>
    `SELECT ${windowOf("toUnixTimestamp64Milli(timestamp)")} AS bucket, ${value} AS bv${columns} FROM ${events} WHERE ${condition}`;
  const eventMatch = question.series.event === null ? "1" : `event = ${params.text(question.series.event)}`;
  const agg = aggregateSql(
    aggregate,
    { params, inner, value, events, eventMatch, condition, windowOf, actor },
    question,
  );
  const sql = breakdown
    ? `WITH agg AS (${agg}),
        ranked AS (
          SELECT bv, row_number() OVER (ORDER BY arrayAll(x -> isNull(x), bv), sum(v) DESC, bv) AS r FROM agg GROUP BY bv)
      SELECT a.bucket AS bucket, if(r.r <= ${params.bind(breakdown.limit, "UInt64")}, a.bv, []) AS bv,
        r.r > ${params.bind(breakdown.limit, "UInt64")} AS other, sum(a.v) AS v
      FROM agg AS a INNER JOIN ranked AS r ON r.bv = a.bv
      GROUP BY bucket, bv, other`
    : `SELECT bucket, v FROM (${agg})`;
  const rows = await analysisRows<{ bucket: number; v: number | null; bv?: (string | null)[]; other?: number }>(
    client,
    sql,
    params,
  );
  return rows.map((r) => ({
    bucket: Number(r.bucket),
    value: r.v !== null && Number.isFinite(Number(r.v)) ? Number(r.v) : 0,
    ...(breakdown ? { breakdown: r.other ? undefined : r.bv, other: !!r.other } : {}),
  }));
}

interface Parts {
  params: ClickHouseParams;
  /** The matching events with their bucket and breakdown value, plus `columns`. */
  inner: (columns: string) => string;
  value: string;
  events: string;
  eventMatch: string;
  condition: string;
  windowOf: (time: string) => string;
  actor: string;
}

/** A statement answering `(bucket, bv, v)`: the aggregate per bucket and breakdown value. */
function aggregateSql(aggregate: TrendsAggregate, p: Parts, question: TrendsQuestion): string {
  const grouped = (v: string, columns: string) =>
    `SELECT bucket, bv, ${v} AS v FROM (${p.inner(columns)}) WHERE bucket >= 0 GROUP BY bucket, bv`;
  switch (aggregate.kind) {
    case "events":
      return grouped("count()", "");
    case "sessions":
      // An event without one counts as the session '' (PostHog's column is an empty text then).
      return grouped("uniqExact(sid)", ", JSONExtractString(properties, '$session_id') AS sid");
    case "actors": {
      const matched = `SELECT * FROM (${p.inner(`, ${p.actor} AS actor`)}) WHERE bucket >= 0`;
      if (question.rolling) {
        // Each actor once per window, then spread to the `rolling` buckets whose periods include it.
        const buckets = question.windows.length - question.rolling + 1;
        const spread = `SELECT w - arrayJoin(range(${p.params.bind(question.rolling, "UInt64")})) AS bucket, bv, actor
          FROM (SELECT DISTINCT bucket AS w, bv, actor FROM (${matched}))`;
        return `SELECT bucket, bv, uniqExact(actor) AS v FROM (${spread})
          WHERE bucket >= 0 AND bucket < ${p.params.bind(buckets, "Int64")} GROUP BY bucket, bv`;
      }
      if (!aggregate.firstBucketOnly) return grouped("uniqExact(actor)", `, ${p.actor} AS actor`);
      return `SELECT bucket, bv, count() AS v FROM (
          SELECT min(bucket) AS bucket, bv FROM (${matched}) GROUP BY actor, bv)
        GROUP BY bucket, bv`;
    }
    case "firstTime": {
      // Each person's first event of the series' name of all time (in the events' order); it counts
      // where it falls if it also passes the filters.
      const firsts = `SELECT min(timestamp) AS timestamp, argMin(${p.value}, ord) AS bv FROM ${p.events}
        WHERE pid IS NOT NULL AND ${aggregate.matchingFilters ? p.condition : p.eventMatch} GROUP BY pid HAVING argMin(${p.condition}, ord)`;
      return `SELECT bucket, bv, count() AS v FROM (
          SELECT ${p.windowOf("toUnixTimestamp64Milli(timestamp)")} AS bucket, bv FROM (${firsts}))
        WHERE bucket >= 0 GROUP BY bucket, bv`;
    }
    case "property": {
      const key = p.params.text(aggregate.property);
      const numeric =
        `multiIf(JSONType(properties, ${key}) IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(properties, ${key}),` +
        ` JSONType(properties, ${key}) = 'String', toFloat64OrNull(trimBoth(JSONExtractString(properties, ${key}))), NULL)`;
      const fn =
        aggregate.fn === "quantile"
          ? `quantile(${p.params.bind(aggregate.level ?? 0.5, "Float64")})(val)`
          : aggregate.fn === "sum"
            ? "sumOrNull(val)"
            : `${aggregate.fn}OrNull(val)`;
      return grouped(fn, `, ${numeric} AS val`);
    }
  }
}
