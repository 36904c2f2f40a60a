import type { ClickHouseClient } from "@clickhouse/client-web";
import type { TrendsAggregate, TrendsQuestion, TrendsRow } from "../queries";
import { analysisEvents, seriesCondition } from "./analysis-events";
import { analysisRows } from "./analysis-run";
import { ClickHouseParams } from "./params";
import { periodIndex, periodStart } from "./periods";
import { type ClickHouseCohorts, jsonText } from "./property-filters";

/**
 * A trends series on ClickHouse, answering as D1 (d1/trends.ts). Events are grouped by their period
 * (`k`: the start of the local day, week, ... by ClickHouse's zone functions, or 0 for one window over
 * the whole range), and only the grouped rows are matched to the question's buckets, so the per-event
 * work is the scan, the filter and the aggregate. Events are read with or without a person, through
 * the merge overrides unless the person is never read.
 */
export async function trendsRowsOnClickHouse(
  client: ClickHouseClient,
  question: TrendsQuestion,
  cohorts: ClickHouseCohorts,
): Promise<TrendsRow[]> {
  const { aggregate, breakdown, windows, bucketing } = question;
  const params = new ClickHouseParams(question.projectId);
  const from = windows[0][0];
  const to = windows[windows.length - 1][1];
  const { events, condition, eventMatch, value } = seriesOnClickHouse(question, params, cohorts, { from, to });
  const zone = bucketing ? params.text(bucketing.timezone) : "";
  /** The period of an event at `timestamp` (the windows are its periods, or there is one window). */
  const period = bucketing ? periodStart(bucketing.interval, "timestamp", zone, bucketing.weekStart) : "0";
  /**
   * A period's bucket (0-based), over grouped rows only: its window, or with rolling windows the
   * bucket whose last window it is (the first rolling − 1 windows only feed later buckets).
   */
  const bucketOfPeriod = bucketing
    ? `${periodIndex(bucketing, "k", params)} + 1 - ${params.bind(question.rolling ?? 1, "Int64")}`
    : "0";
  // Distinct persons: a person's id, or for an event stored without one its distinct id (as a UUID).
  const actor = "ifNull(pid, reinterpretAsUUID(sipHash128(distinct_id)))";
  const parts: Parts = { params, events, condition, eventMatch, value, period, actor, from, to };
  const perPeriod = aggregateSql(aggregate, parts, question);
  const agg = `SELECT ${bucketOfPeriod} AS bucket, bv, v FROM (${perPeriod})`;
  // Breakdown values ranked (real values, then none; larger totals first; then by value) by window
  // functions over the grouped rows, which are computed once (a CTE read twice would be computed twice).
  const limit = breakdown && params.bind(breakdown.limit, "UInt64");
  const sql = breakdown?.shown
    ? `SELECT bucket, bv AS value, empty(bv) AS other, v FROM (${agg})`
    : breakdown
      ? `SELECT bucket, if(r <= ${limit}, bv, []) AS value, r > ${limit} AS other, sum(v) AS v FROM (
        SELECT bucket, bv, v, dense_rank() OVER (ORDER BY arrayAll(x -> isNull(x), bv), total DESC, bv) AS r FROM (
          SELECT bucket, bv, v, sum(v) OVER (PARTITION BY bv) AS total FROM (${agg})))
      GROUP BY bucket, value, other`
      : `SELECT bucket, v FROM (${agg})`;
  const rows = await analysisRows<{ bucket: number; v: number | null; value?: (string | null)[]; other?: number }>(
    client,
    sql,
    params,
  );
  return rows.map((r) => ({
    bucket: Number(r.bucket),
    value: r.v !== null && Number.isFinite(Number(r.v)) ? Number(r.v) : 0,
    ...(breakdown ? { breakdown: r.other ? undefined : r.value, other: !!r.other } : {}),
  }));
}

/**
 * What every statement of a series reads: the events of `range` (every earlier one too for
 * first-time math), the series' condition on them (`eventMatch`: its event name only), and an
 * event's breakdown value. `persons`: the statement answers persons, so each event's person is read
 * through the merge overrides whatever the math.
 */
export function seriesOnClickHouse(
  question: TrendsQuestion,
  params: ClickHouseParams,
  cohorts: ClickHouseCohorts,
  range: { from: string; to: string },
  persons = false,
) {
  const { aggregate, breakdown } = question;
  const { condition, withPerson } = seriesCondition(params, cohorts, question.series, question.properties);
  const byPerson = breakdown?.type === "person";
  const readsPerson =
    persons || withPerson || byPerson || aggregate.kind === "actors" || aggregate.kind === "firstTime";
  const events = analysisEvents(
    params,
    // First-time math looks at every earlier event.
    { from: aggregate.kind === "firstTime" ? "1970-01-01T00:00:00Z" : range.from, to: range.to },
    { personProperties: withPerson || byPerson, personless: true, anonymous: !readsPerson },
  );
  const source = byPerson ? "person_properties" : "properties";
  const text = (key: string) => {
    const raw = `nullIf(${jsonText(source, params.text(key))}, '')`;
    return breakdown?.normalizeUrl ? `if(empty(trimRight(${raw}, '/?#')), '/', trimRight(${raw}, '/?#'))` : raw;
  };
  const raw = breakdown ? `[${breakdown.keys.map(text).join(", ")}]` : "CAST(NULL AS Nullable(String))";
  // With the values already ranked, any other value is the empty list (a value has one part per key).
  const value = breakdown?.shown
    ? `if(has(${params.bind(breakdown.shown, "Array(Array(Nullable(String)))")}, ${raw}), ${raw}, [])`
    : raw;
  const eventMatch = question.series.event === null ? "1" : `event = ${params.text(question.series.event)}`;
  return { events, condition, eventMatch, value };
}

interface Parts {
  params: ClickHouseParams;
  /** The events read (analysisEvents), `condition` the series' filter on them, `eventMatch` its event name only. */
  events: string;
  condition: string;
  eventMatch: string;
  /** The breakdown value, an event's period (`k`) and its actor, as expressions over the events. */
  value: string;
  period: string;
  actor: string;
  /** The bounds of the windows (ISO 8601 UTC). */
  from: string;
  to: string;
}

/**
 * A statement answering `(k, bv, v)`: the aggregate per period and breakdown value (for rolling
 * windows, `k` is the period of the bucket's last window).
 */
function aggregateSql(aggregate: TrendsAggregate, p: Parts, question: TrendsQuestion): string {
  const grouped = (v: string) =>
    `SELECT ${p.period} AS k, ${p.value} AS bv, ${v} AS v FROM ${p.events} WHERE ${p.condition} GROUP BY k, bv`;
  switch (aggregate.kind) {
    case "events":
      return grouped("count()");
    case "sessions":
      // An event without one counts as the session '' (PostHog's column is an empty text then).
      return grouped("uniqExact(JSONExtractString(properties, '$session_id'))");
    case "actors": {
      if (question.rolling) return rollingSql(grouped(`uniqExactState(${p.actor})`), p, question);
      if (!aggregate.firstBucketOnly) return grouped(`uniqExact(${p.actor})`);
      const seen = `SELECT ${p.period} AS k, ${p.value} AS bv, ${p.actor} AS actor FROM ${p.events} WHERE ${p.condition} GROUP BY k, bv, actor`;
      return `SELECT k, bv, count() AS v FROM (SELECT min(k) AS k, bv FROM (${seen}) GROUP BY actor, bv) GROUP BY k, bv`;
    }
    case "firstTime": {
      const firsts = firstEventsSql(p, !!aggregate.matchingFilters);
      return `SELECT ${p.period} AS k, bv, count() AS v FROM (${firsts})
        WHERE timestamp >= ${p.params.time(p.from)} AND timestamp < ${p.params.time(p.to)} GROUP BY k, bv`;
    }
    case "property": {
      const key = p.params.text(aggregate.property);
      const numeric =
        `multiIf(JSONType(properties, ${key}) IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(properties, ${key}),` +
        ` JSONType(properties, ${key}) = 'String', toFloat64OrNull(trimBoth(JSONExtractString(properties, ${key}))), NULL)`;
      const fn =
        aggregate.fn === "quantile"
          ? `quantile(${p.params.bind(aggregate.level ?? 0.5, "Float64")})(${numeric})`
          : aggregate.fn === "sum"
            ? `sumOrNull(${numeric})`
            : `${aggregate.fn}OrNull(${numeric})`;
      return grouped(fn);
    }
  }
}

/**
 * Weekly or monthly active users from each period's set of actors (`states`: `(k, bv, v)` with v a
 * uniqExact state): window w's set joins the buckets w − rolling + 1 to w, whose sets are merged;
 * each bucket is keyed by the period of its last window.
 */
function rollingSql(states: string, p: Parts, question: TrendsQuestion): string {
  const bucketing = question.bucketing!;
  const rolling = question.rolling!;
  const starts = p.params.bind(bucketing.starts, "Array(Int64)");
  const zone = p.params.text(bucketing.timezone);
  const window = periodIndex(bucketing, "k", p.params);
  // Bucket b (0-based) is window b + rolling − 1; it is keyed by that window's period start.
  const spread = `SELECT w - arrayJoin(range(${p.params.bind(rolling, "UInt64")})) AS b, bv, v
    FROM (SELECT ${window} AS w, bv, v FROM (${states}))`;
  const buckets = question.windows.length - rolling + 1;
  return `SELECT toDateTime(intDiv(${starts}[b + ${p.params.bind(rolling, "Int64")}], 1000), ${zone}) AS k, bv, uniqExactMerge(v) AS v
    FROM (${spread}) WHERE b >= 0 AND b < ${p.params.bind(buckets, "Int64")} GROUP BY k, bv`;
}

/**
 * `(pid, timestamp, bv)`: each person's first event of the series' name of all time (with
 * `matchingFilters`, the first passing its filters), in the events' order, kept if it passes the
 * filters (any event at that first moment may, as PostHog compares the first time passing the
 * filters with the first time): it counts where it falls (first_time_for_user,
 * first_matching_event_for_user).
 */
export function firstEventsSql(
  p: { events: string; condition: string; eventMatch: string; value: string },
  matchingFilters: boolean,
): string {
  const match = matchingFilters ? p.condition : p.eventMatch;
  // At the first moment, an event passing the filters comes first.
  const first = `(t, NOT ifNull(${p.condition}, 0), ord)`;
  return `SELECT pid, min(timestamp) AS timestamp, argMin(${p.value}, ${first}) AS bv FROM ${p.events}
    WHERE pid IS NOT NULL AND ${match} GROUP BY pid HAVING argMin(${p.condition}, ${first})`;
}
