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
    if (!s.firstTime) return `(${name} AND ${props})`;
    // A first-time step: the event is the person's first of its name (passing the filters, for `matching`).
    const yName = s.event === null ? "1" : `y.event = ${params.bind(s.event)}`;
    const yProps =
      s.firstTime === "matching"
        ? ` AND ${propertiesSql(s.properties, eventColumns("y"), params, "events", spec.cohorts)}`
        : "";
    const first = `(SELECT y.id FROM events y INDEXED BY events_project_person_timestamp_idx
      WHERE y.project_id = ${P} AND y.person_id = x.person_id AND y.timestamp < ${TO} AND ${yName}${yProps}
      ORDER BY y.timestamp, y.id LIMIT 1)`;
    return `(${name} AND ${props} AND x.id = ${first})`;
  });
  const anyStep = `(${match.join(" OR ")})`;
  const excluded = (spec.exclusions ?? []).map((e) => {
    const name = e.entity.event === null ? "1" : `x.event = ${params.bind(e.entity.event)}`;
    return `(${name} AND ${propertiesSql(e.entity.properties, cols, params, "exclusions", spec.cohorts)})`;
  });
  return { P, FROM, TO, global, match, anyStep, excluded };
}

/**
 * The per-value attribution of a funnel (all_events, step) with its events' value in SQL, or
 * undefined: a person's funnel is then computed per value (column `bv`).
 */
function perValueOf(spec: D1Funnel, params: Params) {
  const bd = spec.breakdown;
  if (!bd || bd.type !== "event" || (bd.attribution.kind !== "all_events" && bd.attribution.kind !== "step"))
    return undefined;
  const paths = bd.keys.map((key) => keyPath(key, params));
  return { attribution: bd.attribution, value: eventValue(bd, "x.properties", paths) };
}

/** A breakdown's value in a properties column: a list's JSON list of its properties' texts ('' where missing), else the one text. */
function eventValue(bd: FunnelBreakdown, column: string, paths: string[]): string {
  return bd.list
    ? `json_array(${paths.map((path) => `coalesce(${jsonText(column, path)}, '')`).join(", ")})`
    : `coalesce(${jsonText(column, paths[0])}, '')`;
}

/**
 * The per-person funnel, as SQL common table expressions ending in `funnel(pid, period, steps,
 * t1..tn, tfinal, dl, bd)`: the steps a person reached at their best attempt, that attempt's step
 * times (NULL past the steps reached), its final step's time (NULL unless converted), the end of its
 * conversion window and the person's breakdown value. With all_events or step attribution a person
 * has a row per value; with `options.periodStarts` (funnel trends) a row per entrance period
 * (`period`, the index of the period of the attempt's first step; NULL otherwise).
 *
 * Each step-1 event in the date range starts an attempt. Later steps are found with correlated
 * lookups on events_project_person_timestamp_idx (one index seek per attempt and step), so the
 * work grows with the number of attempts, not with the project's events.
 */
export function funnelCtes(spec: D1Funnel, params: Params, options: { periodStarts?: string[] } = {}): string {
  const { P, FROM, TO, global, match, anyStep, excluded } = funnelPredicates(spec, params);
  const W = params.bind(`+${spec.windowSeconds} seconds`);
  const n = spec.steps.length;
  const ctes: string[] = [];
  // With all_events or step attribution, every attempt is of one breakdown value (`bv`): see FunnelAttribution.
  const perValue = perValueOf(spec, params);
  const allEvents = perValue?.attribution.kind === "all_events";
  const valueStep = perValue?.attribution.kind === "step" ? perValue.attribution.step : undefined;
  // The value condition on the events of step k (1-based), if it has one.
  const sameValue = (k: number) =>
    perValue && (allEvents || valueStep === k - 1) ? ` AND ${perValue.value} = f.bv` : "";
  if (spec.order === "unordered") {
    // One pass over the step (and exclusion) events: per person, each step's timestamps as a small
    // JSON array (naming the events lets SQLite seek the event index per name). Every step event
    // anchors a window, and the step lookups then read only that person's arrays, not the events table.
    const names = [...spec.steps, ...(spec.exclusions ?? []).map((e) => e.entity)].map((s) => s.event);
    const named = names.every((e) => e !== null);
    const eventIn = named ? ` AND x.event IN (${names.map((e) => params.bind(e)).join(", ")})` : "";
    const arrays = match.map((m, k) => `json_group_array(x.timestamp) FILTER (WHERE ${m}) AS a${k + 1}`);
    if (excluded.length) arrays.push(`json_group_array(x.timestamp) FILTER (WHERE ${excluded.join(" OR ")}) AS xe`);
    const read = `FROM ${byTime(named)}
      WHERE x.project_id = ${P} AND x.timestamp >= ${FROM} AND x.timestamp < ${TO} AND x.person_id IS NOT NULL
        AND (${[anyStep, ...excluded].join(" OR ")})${eventIn} AND ${global}`;
    // all_events: the arrays per person and value; step 0: attempts begin only at events of the value.
    ctes.push(`pp AS MATERIALIZED (
      SELECT x.person_id AS pid, ${allEvents ? perValue!.value : "NULL"} AS bv, ${arrays.join(", ")}
      ${read}
      GROUP BY x.person_id${allEvents ? ", bv" : ""})`);
    // Every step event anchors an attempt (step 0: every funnel event of the value).
    let anchors = `pp p, json_each(json_array(${match.map((_, k) => `p.a${k + 1}`).join(", ")})) arrs, json_each(arrs.value) a`;
    if (valueStep !== undefined) {
      ctes.push(`pa AS MATERIALIZED (
        SELECT x.person_id AS pid, ${perValue!.value} AS value, json_group_array(x.timestamp) FILTER (WHERE ${anyStep}) AS anchors
        ${read}
        GROUP BY x.person_id, value)`);
      anchors =
        "(SELECT pp.*, pa.value AS pbv, pa.anchors FROM pp JOIN pa ON pa.pid = pp.pid) p, json_each(p.anchors) a";
    }
    // `xt`: the first exclusion event after the attempt's start, inside its window (see below).
    const xt = excluded.length
      ? `(SELECT min(j.value) FROM json_each(p.xe) j WHERE j.value > a.value AND j.value <= strftime('%Y-%m-%dT%H:%M:%fZ', a.value, ${W}))`
      : "NULL";
    ctes.push(`f1 AS MATERIALIZED (
      SELECT p.*, a.value AS t1, strftime('%Y-%m-%dT%H:%M:%fZ', a.value, ${W}) AS dl, ${xt} AS xt
      FROM ${anchors})`);
  } else {
    // The value of each attempt: all_events and step 0, its first step's; step N, each value the
    // person's step-N events have (an attempt per value).
    let bv = "NULL";
    let join = "";
    if (allEvents || valueStep === 0) bv = perValue!.value;
    else if (valueStep !== undefined) {
      bv = "v.value";
      join = ` JOIN (SELECT DISTINCT x.person_id AS vp, ${perValue!.value} AS value FROM ${byTime(spec.steps[valueStep].event !== null)}
        WHERE x.project_id = ${P} AND x.timestamp >= ${FROM} AND x.timestamp < ${TO} AND x.person_id IS NOT NULL
          AND ${match[valueStep]} AND ${global}) v ON v.vp = x.person_id`;
    }
    ctes.push(`f1 AS MATERIALIZED (
      SELECT x.person_id AS pid, ${bv} AS bv, x.timestamp AS t1, x.id AS i1, strftime('%Y-%m-%dT%H:%M:%fZ', x.timestamp, ${W}) AS dl
      FROM ${byTime(spec.steps[0].event !== null)}${join}
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
    const raw = match.map((_, k) => `s${k + 1} AS u${k + 1}`).join(", ");
    // An exclusion event inside an unordered attempt's window wipes it (PostHog's UDF clears its
    // progress before recording it) unless every step was done by then (steps at the same time first).
    const bv = valueStep !== undefined ? "pbv" : "bv";
    attempt = `SELECT * FROM (SELECT pid, ${bv} AS bv, t1, dl, ${reached} AS steps, ${final} AS tfinal, ${n === 1 ? "t1" : `max(${done})`} AS tlast, ${raw}, xt FROM fu)
      WHERE xt IS NULL OR (steps = ${n} AND tfinal <= xt)`;
  } else {
    for (let k = 2; k <= n; k++) {
      const prev = `f.t${k - 1}`;
      let lookup: string;
      if (spec.order === "ordered") {
        // The earliest later event of step k (it may share a timestamp, never an event, with earlier steps).
        const used = Array.from({ length: k - 1 }, (_, j) => `f.i${j + 1}`).join(", ");
        lookup = `(SELECT x.timestamp || '|' || x.id FROM ${BY_PERSON}
          WHERE ${sameCtx(`x.timestamp >= ${prev} AND x.timestamp <= f.dl`)} AND x.id NOT IN (${used}) AND ${match[k - 1]}${sameValue(k)}
          ORDER BY x.timestamp, x.id LIMIT 1)`;
      } else {
        // Strict: the person's very next event (any name; all_events: of the value) must be step k.
        const stream = allEvents ? ` AND ${perValue!.value} = f.bv` : "";
        const hitsStep = `${match[k - 1]}${allEvents ? "" : sameValue(k)}`;
        lookup = `(SELECT (CASE WHEN ${hitsStep} AND x.timestamp <= f.dl THEN '1' ELSE '0' END) || x.timestamp || '|' || x.id FROM ${BY_PERSON}
          WHERE ${sameCtx(`x.timestamp >= ${prev} AND (x.timestamp > ${prev} OR x.id > f.i${k - 1})`)}${stream}
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
    const raw = Array.from({ length: n }, (_, j) => `t${j + 1} AS u${j + 1}`).join(", ");
    attempt = `SELECT pid, bv, t1, dl, ${reached} AS steps, t${n} AS tfinal, ${last} AS tlast, ${raw}, NULL AS xt FROM f${n}`;
  }
  ctes.push(`att0 AS (${attempt})`);
  ctes.push(
    `att1 AS (${excludedAttempts(spec, { P, TO, global, excluded, sameValue: allEvents ? ` AND ${perValue!.value} = a.bv` : "" })})`,
  );
  // Best attempt, as PostHog's UDF keeps it: most steps, then a clean attempt over an excluded one,
  // then the first to get there; on a tie the latest start for ordered funnels (the chain the UDF
  // carries), the earliest window for unordered. A person whose best attempt is excluded is out.
  const tie = spec.order === "unordered" ? "ASC" : "DESC";
  const raw = Array.from({ length: n }, (_, j) => `u${j + 1}`).join(", ");
  // Funnel trends: a best attempt per entrance period (the period of the attempt's first step).
  const period = options.periodStarts
    ? `(SELECT count(*) FROM json_each(${params.bind(JSON.stringify(options.periodStarts))}) s WHERE s.value <= t1) - 1`
    : "NULL";
  ctes.push(`att AS (SELECT *, ${period} AS period FROM att1)`);
  ctes.push(`best AS MATERIALIZED (SELECT pid, bv, period, steps, t1, tfinal, dl, ${raw} FROM (
    SELECT *, row_number() OVER (PARTITION BY pid, bv, period ORDER BY steps DESC, xt IS NOT NULL, tlast ASC, t1 ${tie}) AS rn FROM att)
    WHERE rn = 1 AND xt IS NULL)`);
  const bd = perValue ? "bv" : breakdownSql(spec, params, { P, FROM, TO, global, anyStep });
  ctes.push(
    `funnel AS MATERIALIZED (SELECT pid, period, steps, ${stepTimes(spec)}, tfinal, dl, ${bd} AS bd FROM best f)`,
  );
  return `WITH ${ctes.join(",\n")}`;
}

/**
 * The ordered and strict attempts with their exclusion (`xt`: the time of the first exclusion event
 * that caught them, else NULL). An exclusion catches an attempt that reached its `from` step before
 * the event and had not reached its `to` step by then, the event inside the attempt's window; a
 * caught attempt counts one step past the steps it had reached (PostHog's UDF still advances it once).
 */
function excludedAttempts(
  spec: D1Funnel,
  p: { P: string; TO: string; global: string; excluded: string[]; sameValue: string },
): string {
  const exclusions = spec.exclusions ?? [];
  // Unordered attempts are cut at an exclusion instead (see funnelCtes).
  if (!exclusions.length || spec.order === "unordered") return "SELECT * FROM att0";
  const caught = exclusions.map(
    (e, k) =>
      `(${p.excluded[k]} AND x.timestamp > a.u${e.from + 1} AND (a.u${e.to + 1} IS NULL OR x.timestamp < a.u${e.to + 1}))`,
  );
  const xt = `(SELECT min(x.timestamp) FROM ${BY_PERSON}
    WHERE x.project_id = ${p.P} AND x.person_id = a.pid AND x.timestamp <= a.dl AND x.timestamp < ${p.TO} AND ${p.global}
      AND (${caught.join(" OR ")})${p.sameValue})`;
  const u = Array.from({ length: spec.steps.length }, (_, j) => `u${j + 1}`);
  const before = u.map((t) => `(${t} < xt)`).join(" + ");
  return `SELECT pid, bv, t1, dl, CASE WHEN xt IS NULL THEN steps ELSE min(steps, ${before} + 1) END AS steps, tfinal, tlast,
      ${u.join(", ")}, xt
    FROM (SELECT a.pid, a.bv, a.t1, a.dl, a.steps, a.tfinal, a.tlast, ${u.map((t) => `a.${t}`).join(", ")}, ${xt} AS xt FROM att0 a)`;
}

/**
 * Each step's time in the best attempt, `t1`..`tn` (NULL past the steps reached): an ordered
 * funnel's chain, or an unordered funnel's step times in time order (its k-th step is the k-th it did).
 */
function stepTimes(spec: D1Funnel): string {
  const n = spec.steps.length;
  if (spec.order !== "unordered") return Array.from({ length: n }, (_, j) => `u${j + 1} AS t${j + 1}`).join(", ");
  const all = Array.from({ length: n }, (_, j) => `u${j + 1}`).join(", ");
  const kth = (k: number) =>
    `(SELECT value FROM json_each(json_array(${all})) WHERE value IS NOT NULL ORDER BY value LIMIT 1 OFFSET ${k - 1})`;
  return ["t1", ...Array.from({ length: n - 1 }, (_, j) => `${kth(j + 2)} AS t${j + 2}`)].join(", ");
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
  const direction = bd.attribution.kind === "last_touch" ? "DESC" : "ASC";
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
