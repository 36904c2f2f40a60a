import type { CohortSql } from "../../shared/filters";
import type { Params } from "../../lib/sql";
import type { EventEntity } from "../queries";
import { byTime } from "./funnel-sql";
import { eventColumns, propertiesSql } from "./property-filters";

/**
 * What trends, lifecycle, stickiness and retention read on D1: a series' events in each of a question's
 * windows. The windows go to SQL as one JSON parameter of UTC bounds and drive the join, one range
 * scan of the event index per window, so every event is read once.
 */

/** The windows as a common table expression `name(idx, s, e)`. */
export function windowsCte(name: string, windows: [string, string][], params: Params): string {
  return `${name} AS (
      SELECT CAST(key AS INTEGER) AS idx, json_extract(value, '$[0]') AS s, json_extract(value, '$[1]') AS e
      FROM json_each(${params.bind(JSON.stringify(windows))}))`;
}

/** A series' condition on `events x`: its event name (`eventMatch`), and that with the global and the series' filters (`match`). */
export function seriesMatch(series: EventEntity, properties: unknown, params: Params, cohorts: CohortSql) {
  const cols = eventColumns("x");
  const eventMatch = series.event === null ? "1" : `x.event = ${params.bind(series.event)}`;
  const match = [
    eventMatch,
    propertiesSql(properties, cols, params, "properties", cohorts),
    propertiesSql(series.properties, cols, params, "series", cohorts),
  ].join(" AND ");
  return { eventMatch, match };
}

/**
 * `FROM <windows> w CROSS JOIN events x ... WHERE ...`: the project's events of window `w` meeting
 * `match` (CROSS JOIN keeps the windows as the outer loop).
 */
export function inWindows(windows: string, named: boolean, project: string, match: string): string {
  return `FROM ${windows} w CROSS JOIN ${byTime(named)}
      WHERE x.project_id = ${project} AND x.timestamp >= w.s AND x.timestamp < w.e AND ${match}`;
}
