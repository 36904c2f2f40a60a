import type { CohortSql } from "../../shared/filters";
import { type FunnelBreakdown, type FunnelSpec, noBreakdownValue } from "../queries";
import { eventColumns, jsonText, keyPath, propertiesSql } from "./property-filters";
import type { Params } from "../../lib/sql";

/** A funnel with the cohort membership SQL its filters may need. */
export interface D1Funnel extends FunnelSpec {
  cohorts: CohortSql;
}

/** Per-person lookups name their index: without table statistics SQLite would pick the time index and scan. */
export const BY_PERSON = "events x INDEXED BY events_project_person_timestamp_idx";

/** Range scans over a project's events: by event name when every name is known, else by time. */
export const byTime = (named: boolean) =>
  `events x INDEXED BY ${named ? "events_project_event_timestamp_idx" : "events_project_timestamp_idx"}`;

/** Builds the predicates shared by every lookup on `events x`. */
export function funnelPredicates(spec: D1Funnel, params: Params) {
  const cols = eventColumns("x");
  const P = params.bind(spec.projectId);
  const FROM = params.bind(spec.from);
  const TO = params.bind(spec.to);
  const global = propertiesSql(spec.properties, cols, params, "properties", spec.cohorts);
  const match = spec.steps.map((s) => {
    const name = s.event === null ? "1" : `x.event = ${params.bind(s.event)}`;
    const props = propertiesSql(s.properties, cols, params, "events", spec.cohorts);
    return `(${name} AND ${props})`;
  });
  const anyStep = `(${match.join(" OR ")})`;
  return { P, FROM, TO, global, match, anyStep };
}

/**
 * The per-person funnel, as SQL common table expressions ending in `funnel(pid, steps, t1, tfinal,
 * dl, bd)`: the steps a person reached at their best attempt, that attempt's first and final step
 * timestamps, the end of its conversion window and the person's breakdown value.
 *
 * Each step-1 event in the date range starts an attempt. Later steps are found with correlated
 * lookups on events_project_person_timestamp_idx (one index seek per attempt and step), so the
 * work grows with the number of attempts, not with the project's events.
 */
export function funnelCtes(spec: D1Funnel, params: Params): string {
  const { P, FROM, TO, global, match, anyStep } = funnelPredicates(spec, params);
  const W = params.bind(`+${spec.windowSeconds} seconds`);
  const n = spec.steps.length;
  const ctes: string[] = [];
  const names = spec.steps.map((s) => s.event);
  const named = names.every((e) => e !== null);
  if (spec.order === "unordered") {
    // One pass over the step events: per person, each step's timestamps as a small JSON array
    // (naming the events lets SQLite seek the event index per name). Every step event anchors a
    // window, and the step lookups then read only that person's arrays, not the events table.
    const eventIn = named ? ` AND x.event IN (${names.map((e) => params.bind(e)).join(", ")})` : "";
    const arrays = match.map((m, k) => `json_group_array(x.timestamp) FILTER (WHERE ${m}) AS a${k + 1}`).join(", ");
    ctes.push(`pp AS MATERIALIZED (
      SELECT x.person_id AS pid, ${arrays}
      FROM ${byTime(named)}
      WHERE x.project_id = ${P} AND x.timestamp >= ${FROM} AND x.timestamp < ${TO} AND x.person_id IS NOT NULL
        AND ${anyStep}${eventIn} AND ${global}
      GROUP BY x.person_id)`);
    const all = match.map((_, k) => `p.a${k + 1}`).join(", ");
    ctes.push(`f1 AS MATERIALIZED (
      SELECT p.*, a.value AS t1, strftime('%Y-%m-%dT%H:%M:%fZ', a.value, ${W}) AS dl
      FROM pp p, json_each(json_array(${all})) arrs, json_each(arrs.value) a)`);
  } else {
    ctes.push(`f1 AS MATERIALIZED (
      SELECT x.person_id AS pid, x.timestamp AS t1, x.id AS i1, strftime('%Y-%m-%dT%H:%M:%fZ', x.timestamp, ${W}) AS dl
      FROM ${byTime(spec.steps[0].event !== null)}
      WHERE x.project_id = ${P} AND x.timestamp >= ${FROM} AND x.timestamp < ${TO} AND x.person_id IS NOT NULL
        AND ${match[0]} AND ${global})`);
  }

  const sameCtx = (field: string) =>
    `x.project_id = ${P} AND x.person_id = f.pid AND ${field} AND x.timestamp < ${TO} AND ${global}`;
  let attempt: string;
  if (spec.order === "unordered") {
    // Steps done within [t1, t1 + window] of an anchor step event, in any order.
    const lookups = match.map(
      (_, k) =>
        `(SELECT min(j.value) FROM json_each(f.a${k + 1}) j WHERE j.value >= f.t1 AND j.value <= f.dl) AS s${k + 1}`,
    );
    ctes.push(`fu AS MATERIALIZED (SELECT f.*, ${lookups.join(", ")} FROM f1 f)`);
    const reached = match.map((_, k) => `(s${k + 1} IS NOT NULL)`).join(" + ");
    const final = n === 1 ? "s1" : `max(${match.map((_, k) => `s${k + 1}`).join(", ")})`;
    const done = match.map((_, k) => `coalesce(s${k + 1}, '')`).join(", ");
    attempt = `SELECT pid, t1, dl, ${reached} AS steps, ${final} AS tfinal, ${n === 1 ? "t1" : `max(${done})`} AS tlast FROM fu`;
  } else {
    for (let k = 2; k <= n; k++) {
      const prev = `f.t${k - 1}`;
      let lookup: string;
      if (spec.order === "ordered") {
        // The earliest later event of step k (it may share a timestamp, never an event, with earlier steps).
        const used = Array.from({ length: k - 1 }, (_, j) => `f.i${j + 1}`).join(", ");
        lookup = `(SELECT x.timestamp || '|' || x.id FROM ${BY_PERSON}
          WHERE ${sameCtx(`x.timestamp >= ${prev} AND x.timestamp <= f.dl`)} AND x.id NOT IN (${used}) AND ${match[k - 1]}
          ORDER BY x.timestamp, x.id LIMIT 1)`;
      } else {
        // Strict: the person's very next event (any name) must be step k.
        lookup = `(SELECT (CASE WHEN ${match[k - 1]} AND x.timestamp <= f.dl THEN '1' ELSE '0' END) || x.timestamp || '|' || x.id FROM ${BY_PERSON}
          WHERE ${sameCtx(`x.timestamp >= ${prev} AND (x.timestamp > ${prev} OR x.id > f.i${k - 1})`)}
          ORDER BY x.timestamp, x.id LIMIT 1)`;
      }
      ctes.push(
        `f${k}r AS MATERIALIZED (SELECT f.*, CASE WHEN ${prev} IS NULL THEN NULL ELSE ${lookup} END AS r${k} FROM f${k - 1} f)`,
      );
      const hit = spec.order === "ordered" ? `r${k}` : `CASE WHEN substr(r${k}, 1, 1) = '1' THEN substr(r${k}, 2) END`;
      ctes.push(`f${k} AS MATERIALIZED (SELECT *, substr(h${k}, 1, instr(h${k}, '|') - 1) AS t${k}, CAST(substr(h${k}, instr(h${k}, '|') + 1) AS INTEGER) AS i${k}
        FROM (SELECT *, ${hit} AS h${k} FROM f${k}r))`);
    }
    const reached = ["1", ...Array.from({ length: n - 1 }, (_, j) => `(t${j + 2} IS NOT NULL)`)].join(" + ");
    const last = n === 1 ? "t1" : `coalesce(${Array.from({ length: n }, (_, j) => `t${n - j}`).join(", ")})`;
    attempt = `SELECT pid, t1, dl, ${reached} AS steps, t${n} AS tfinal, ${last} AS tlast FROM f${n}`;
  }
  ctes.push(`att AS (${attempt})`);
  // Best attempt, as PostHog's UDF keeps it: most steps, then the first to get there; on a tie the
  // latest start for ordered funnels (the chain the UDF carries), the earliest window for unordered.
  const tie = spec.order === "unordered" ? "ASC" : "DESC";
  ctes.push(`best AS MATERIALIZED (SELECT pid, steps, t1, tfinal, dl FROM (
    SELECT *, row_number() OVER (PARTITION BY pid ORDER BY steps DESC, tlast ASC, t1 ${tie}) AS rn FROM att) WHERE rn = 1)`);
  ctes.push(
    `funnel AS MATERIALIZED (SELECT pid, steps, t1, tfinal, dl, ${breakdownSql(spec, params, { P, FROM, TO, global, anyStep })} AS bd FROM best f)`,
  );
  return `WITH ${ctes.join(",\n")}`;
}

function breakdownSql(
  spec: D1Funnel,
  params: Params,
  p: { P: string; FROM: string; TO: string; global: string; anyStep: string },
) {
  const bd = spec.breakdown;
  if (!bd) return "NULL";
  const paths = bd.keys.map((key) => keyPath(key, params));
  // A list's value is the JSON list of its properties' texts, from one event (or the person) where
  // any of them is non-empty; without one, a list of as many empty texts (PostHog's default `['', …]`).
  const columnValue = (column: string) =>
    bd.list
      ? `json_array(${paths.map((path) => `coalesce(${jsonText(column, path)}, '')`).join(", ")})`
      : jsonText(column, paths[0]);
  const anySet = (column: string) =>
    `(${paths.map((path) => `coalesce(${jsonText(column, path)}, '') <> ''`).join(" OR ")})`;
  const none = bd.list ? `'${JSON.stringify(noBreakdownValue(bd))}'` : "''";
  if (bd.type === "person") {
    const person = "(SELECT pp.properties FROM persons pp WHERE pp.id = f.pid)";
    return bd.list
      ? `(CASE WHEN ${anySet(person)} THEN ${columnValue(person)} ELSE ${none} END)`
      : `coalesce(${columnValue(person)}, ${none})`;
  }
  // Event breakdowns: the value on the person's first (or last) step event that has it set.
  const direction = bd.attribution === "last_touch" ? "DESC" : "ASC";
  const steps = spec.order === "strict" ? "1" : p.anyStep;
  const isSet = bd.list ? anySet("x.properties") : `json_type(x.properties, ${paths[0]}) NOT IN ('null')`;
  return `coalesce((SELECT ${columnValue("x.properties")} FROM ${BY_PERSON}
    WHERE x.project_id = ${p.P} AND x.person_id = f.pid AND x.timestamp >= ${p.FROM} AND x.timestamp < ${p.TO}
      AND ${steps} AND ${p.global} AND ${isSet}
    ORDER BY x.timestamp ${direction}, x.id ${direction} LIMIT 1), ${none})`;
}

/**
 * SQL condition selecting the persons of one breakdown value (`funnel_step_breakdown`). As PostHog
 * compares `arrayFlatten(array(...))` of both sides, a value and a one-element list are the same.
 */
export function breakdownCondition(breakdown: FunnelBreakdown, values: string[], params: Params): string {
  if (!breakdown.list) return values.length === 1 ? `bd = ${params.bind(values[0])}` : "0";
  return `bd = ${params.bind(JSON.stringify(values))}`;
}

/**
 * The events a funnel person did during their funnel attempt: after step 1 and before the final
 * step (or, without conversion, before the end of the conversion window), inside the date range,
 * excluding the funnel's own step events. PostHog's correlation uses exactly these bounds.
 */
export function attemptEvents(spec: D1Funnel, params: Params) {
  const stepNames = spec.steps.map((s) => s.event).filter((e): e is string => e !== null);
  return `x.project_id = ${params.bind(spec.projectId)} AND x.person_id = f.pid
    AND x.timestamp > f.t1 AND x.timestamp < coalesce(f.tfinal, f.dl)
    AND x.timestamp >= ${params.bind(spec.from)} AND x.timestamp < ${params.bind(spec.to)}
    AND x.event NOT IN ${params.bindList(stepNames)}`;
}
