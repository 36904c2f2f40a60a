import type { D1Client } from "../../db/client";
import type { CohortSql } from "../../shared/filters";
import { Params } from "../../lib/sql";
import type { TrendsAggregate, TrendsQuestion, TrendsRow } from "../queries";
import { byTime } from "./funnel-sql";
import { eventColumns, jsonText, keyPath } from "./property-filters";
import { runAll } from "./run";
import { inWindows, seriesMatch, windowsCte } from "./windows";

/** The breakdown value standing for every value not shown (a text no value's JSON list can be). */
const OTHER_VALUE = "other";

/**
 * A trends series on D1. The windows go to SQL as one JSON parameter of UTC bounds, each driving a
 * range scan of the events index, so every event is read once; each bucket's value is aggregated per
 * breakdown value, and values past the breakdown limit are summed into one "other" value per bucket.
 * With the values already ranked (`breakdown.shown`), every other value's events are aggregated
 * together instead, as one "other" value.
 */
export async function trendsRows(d1: D1Client, question: TrendsQuestion, cohorts: CohortSql): Promise<TrendsRow[]> {
  const { aggregate, breakdown } = question;
  const params = new Params();
  const parts = seriesParts(question, params, cohorts);
  const windows = windowsCte("windows", question.windows, params);
  const ctes = [windows, ...aggregateCtes(aggregate, parts, question)];
  const sql = breakdown?.shown
    ? `WITH ${ctes.join(", ")} SELECT bucket, NULLIF(bv, '${OTHER_VALUE}') AS bv, bv = '${OTHER_VALUE}' AS other, v FROM agg`
    : breakdown
      ? `WITH ${ctes.join(", ")},
      totals AS (SELECT bv, sum(v) AS total FROM agg GROUP BY bv),
      ranked AS (
        SELECT bv, row_number() OVER (ORDER BY bv = ${params.bind(JSON.stringify(breakdown.keys.map(() => null)))}, total DESC, bv) AS r
        FROM totals)
      SELECT a.bucket AS bucket, CASE WHEN r.r <= ${params.bind(breakdown.limit)} THEN a.bv END AS bv,
        r.r > ${params.bind(breakdown.limit)} AS other, sum(a.v) AS v
      FROM agg a JOIN ranked r ON r.bv = a.bv
      GROUP BY 1, 2, 3`
      : `WITH ${ctes.join(", ")} SELECT bucket, v FROM agg`;
  const rows = await runAll<{ bucket: number; v: number | null; bv?: string | null; other?: number }>(d1, sql, params);
  return rows.map((r) => ({
    bucket: r.bucket,
    value: r.v ?? 0,
    ...(breakdown
      ? { breakdown: r.other ? undefined : (JSON.parse(r.bv!) as (string | null)[]), other: !!r.other }
      : {}),
  }));
}

/** What every statement of a series reads: its match on `events x` and its breakdown value there. */
export function seriesParts(question: TrendsQuestion, params: Params, cohorts: CohortSql): SeriesParts {
  const { series, breakdown } = question;
  const cols = eventColumns("x");
  const { eventMatch, match } = seriesMatch(series, question.properties, params, cohorts);
  const source = breakdown?.type === "person" ? cols.person : cols.event;
  // The breakdown value as a JSON list of texts, one per key (an empty text is no value).
  const text = (key: string) => {
    const raw = `NULLIF(${jsonText(source, keyPath(key, params))}, '')`;
    return breakdown?.normalizeUrl
      ? `CASE WHEN ${raw} IS NULL THEN NULL WHEN rtrim(${raw}, '/?#') = '' THEN '/' ELSE rtrim(${raw}, '/?#') END`
      : raw;
  };
  const raw = breakdown ? `json_array(${breakdown.keys.map(text).join(", ")})` : "NULL";
  // With the values already ranked, any other value is the one value 'other' (not a JSON list).
  const shown =
    breakdown?.shown &&
    `EXISTS (SELECT 1 FROM json_each(${params.bind(JSON.stringify(breakdown.shown))}) s
      WHERE ${breakdown.keys.map((key, i) => `json_extract(s.value, '$[${i}]') IS ${text(key)}`).join(" AND ")})`;
  const value = shown ? `CASE WHEN ${shown} THEN ${raw} ELSE '${OTHER_VALUE}' END` : raw;
  const project = params.bind(question.projectId);
  return { params, project, eventMatch, match, value, named: series.event !== null };
}

export interface SeriesParts {
  params: Params;
  project: string;
  /** The series' condition on `events x`: its event name (`eventMatch`), and that with the filters (`match`). */
  eventMatch: string;
  match: string;
  /** The breakdown value's expression on `events x`. */
  value: string;
  /** Whether the series names its event (the event-name index serves it). */
  named: boolean;
}

/** The common table expressions ending in `agg(bucket, bv, v)`: the aggregate per bucket and breakdown value. */
function aggregateCtes(aggregate: TrendsAggregate, p: SeriesParts, question: TrendsQuestion): string[] {
  const inWindow = (extra: string) => `matched AS (
      SELECT w.idx AS bucket, ${p.value} AS bv${extra}
      ${inWindows("windows", p.named, p.project, p.match)})`;
  const actor = `coalesce('p' || x.person_id, 'd' || x.distinct_id)`;
  switch (aggregate.kind) {
    case "events":
      return [inWindow(""), "agg AS (SELECT bucket, bv, count(*) AS v FROM matched GROUP BY bucket, bv)"];
    case "sessions": {
      // An event without one counts as the session '' (PostHog's column is an empty text then).
      const session = `coalesce(CAST(json_extract(x.properties, ${keyPath("$session_id", p.params)}) AS TEXT), '')`;
      return [
        inWindow(`, ${session} AS sid`),
        "agg AS (SELECT bucket, bv, count(DISTINCT sid) AS v FROM matched GROUP BY bucket, bv)",
      ];
    }
    case "actors":
      if (question.rolling) {
        // Each actor once per window, then each bucket over the `rolling` windows ending with it.
        const buckets = question.windows.length - question.rolling + 1;
        return [
          inWindow(`, ${actor} AS actor`),
          "seen AS MATERIALIZED (SELECT DISTINCT bucket AS w, bv, actor FROM matched)",
          `buckets AS (SELECT value AS bucket FROM json_each(${p.params.bind(JSON.stringify([...Array(buckets).keys()]))}))`,
          `agg AS (SELECT b.bucket AS bucket, s.bv AS bv, count(DISTINCT s.actor) AS v FROM buckets b
            JOIN seen s ON s.w BETWEEN b.bucket AND b.bucket + ${p.params.bind(question.rolling - 1)} GROUP BY 1, 2)`,
        ];
      }
      if (!aggregate.firstBucketOnly)
        return [
          inWindow(`, ${actor} AS actor`),
          "agg AS (SELECT bucket, bv, count(DISTINCT actor) AS v FROM matched GROUP BY bucket, bv)",
        ];
      return [
        inWindow(`, ${actor} AS actor`),
        "firsts AS (SELECT min(bucket) AS bucket, bv FROM matched GROUP BY actor, bv)",
        "agg AS (SELECT bucket, bv, count(*) AS v FROM firsts GROUP BY bucket, bv)",
      ];
    case "firstTime":
      return [
        firstsCte(p, !!aggregate.matchingFilters),
        "agg AS (SELECT w.idx AS bucket, f.bv AS bv, count(*) AS v FROM firsts f JOIN windows w ON f.t >= w.s AND f.t < w.e WHERE f.n = 1 AND f.ok GROUP BY 1, 2)",
      ];
    case "property": {
      const path = keyPath(aggregate.property, p.params);
      const raw = `json_extract(x.properties, ${path})`;
      // Numbers, and texts that spell one (read by SQLite's JSON number grammar); anything else is no value.
      const numeric = `(CASE json_type(x.properties, ${path})
          WHEN 'integer' THEN ${raw} WHEN 'real' THEN ${raw}
          WHEN 'text' THEN CASE WHEN json_valid(trim(${raw})) AND json_type(trim(${raw})) IN ('integer', 'real') THEN CAST(trim(${raw}) AS REAL) END
        END)`;
      const matched = inWindow(`, ${numeric} AS val`);
      if (aggregate.fn !== "quantile") {
        const fn = aggregate.fn === "sum" ? "total" : aggregate.fn;
        return [matched, `agg AS (SELECT bucket, bv, ${fn}(val) AS v FROM matched GROUP BY bucket, bv)`];
      }
      // Linear interpolation between the values around (n - 1) × level, as ClickHouse's quantile.
      const pos = `((n - 1) * ${p.params.bind(aggregate.level ?? 0.5)})`;
      const lo = `CAST(${pos} AS INTEGER)`;
      return [
        matched,
        `ordered AS (
          SELECT bucket, bv, val, row_number() OVER (PARTITION BY bucket, bv ORDER BY val) - 1 AS i,
            count(*) OVER (PARTITION BY bucket, bv) AS n
          FROM matched WHERE val IS NOT NULL)`,
        `around AS (
          SELECT bucket, bv, max(${pos}) - max(${lo}) AS frac,
            max(CASE WHEN i = ${lo} THEN val END) AS below, max(CASE WHEN i = ${lo} + 1 THEN val END) AS above
          FROM ordered WHERE i = ${lo} OR i = ${lo} + 1 GROUP BY bucket, bv)`,
        "agg AS (SELECT bucket, bv, below + (coalesce(above, below) - below) * frac AS v FROM around)",
      ];
    }
  }
}

/**
 * `firsts(pid, t, bv, ok, n)`: each person's events of the series' name (with `matchingFilters`,
 * those passing its filters) numbered in time order, at one time those passing the filters first;
 * the first (`n = 1`) counts where it falls if it passes them (`ok`): any event at the person's first
 * moment may (PostHog compares the first time passing the filters with the first time):
 * first_time_for_user and first_matching_event_for_user.
 */
export function firstsCte(p: SeriesParts, matchingFilters: boolean): string {
  return `firsts AS (
      SELECT pid, t, bv, ok, row_number() OVER (PARTITION BY pid ORDER BY t, CASE WHEN ok THEN 0 ELSE 1 END, id) AS n
      FROM (
        SELECT x.person_id AS pid, x.timestamp AS t, x.id AS id, ${p.value} AS bv, ${p.match} AS ok
        FROM ${byTime(p.named)}
        WHERE x.project_id = ${p.project} AND x.person_id IS NOT NULL AND ${matchingFilters ? p.match : p.eventMatch}))`;
}
