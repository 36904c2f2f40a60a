import { quoteString } from "../../hogql/clickhouse/sql";
import { type FunnelBreakdown, type FunnelSpec, noBreakdownValue } from "../queries";
import { analysisEvents, eventFilterColumns, readsPerson } from "./analysis-events";
import { LATEST_PERSONS } from "./analysis-persons";
import type { ClickHouseParams } from "./params";
import { type ClickHouseCohorts, jsonIsSet, jsonText, propertiesSql } from "./property-filters";

/** A funnel with the cohorts its filters may name. */
export interface ClickHouseFunnel extends FunnelSpec {
  cohorts: ClickHouseCohorts;
}

/**
 * The per-person funnel on ClickHouse: a subquery of `(pid, steps, t1, times, tfinal, dl, bd)` plus
 * the `extra` per-person aggregates asked for, with D1's answer (src/analytics/d1/funnel-sql.ts) for
 * every person: the steps reached at the best attempt, its first step's time, every step's time
 * (µs, `times[k]` for step k, 0 past the steps reached), its final step's time (NULL unless
 * converted), the end of its window and the breakdown value.
 *
 * One pass over the range's events groups each person's funnel events into one array, sorted as D1
 * orders events (time, then insertion); the attempts are then computed with array functions:
 * - ordered: every step-1 event starts a chain; step k is the first later-or-simultaneous event of
 *   step k inside the window that the chain has not used yet;
 * - strict: step k must be the chain's very next event, whatever its name;
 * - unordered: from every step event's time, each step's first event inside the window.
 * The best attempt is D1's: most steps, then the earliest last step, then the latest start (ordered,
 * strict) or the earliest (unordered). windowFunnel is not used: its handling of simultaneous events
 * and of events matching several steps is not D1's (nor PostHog's UDF's).
 *
 * With `all_events` or `step` attribution a person has one row per breakdown value (FunnelAttribution):
 * all_events groups their events per value, `step` computes the funnel once per value of their step's
 * events, that step's bit cleared in the events of another value (unordered: attempts begin only at
 * the value's events).
 *
 * `extra.aggregates` are more per-person aggregates over the range's events (correlation's entity
 * done during the attempt); `extra.events` names the events they read, else they may read any, and
 * `extra.readsPerson` says they read the person's properties. With `extra.periodStarts` (funnel trends)
 * a person has a best attempt, and a row, per entrance period (`period`: the 0-based index of the
 * period of the attempt's first step among these starts).
 */
export function funnelSql(
  spec: ClickHouseFunnel,
  params: ClickHouseParams,
  extra: {
    aggregates?: Record<string, string>;
    events?: string[];
    readsPerson?: boolean;
    periodStarts?: string[];
  } = {},
): string {
  const n = spec.steps.length;
  const filter = (tree: unknown, attr: string) => propertiesSql(tree, eventFilterColumns, params, attr, spec.cohorts);
  const global = filter(spec.properties, "properties");
  // ifNull: a filter on a missing property is NULL (not false), which would drop the event from every step.
  const matches = spec.steps.map((s) => {
    const name = s.event === null ? "1" : `event = ${params.text(s.event)}`;
    const props = filter(s.properties, "events");
    if (!s.firstTime) return `ifNull(${name} AND ${props}, 0)`;
    // A first-time step: the event is the person's first of its name of all time until the funnel's end
    // (passing the filters, for `matching`), found among every earlier event.
    const all = analysisEvents(
      params,
      { from: "1970-01-01T00:00:00Z", to: spec.to },
      { personProperties: readsPerson(s.properties) },
    );
    const firsts = `SELECT min(ord) FROM ${all} WHERE ${name}${s.firstTime === "matching" ? ` AND ${props}` : ""} GROUP BY pid`;
    return `ifNull(${name} AND ${props} AND ord IN (${firsts}), 0)`;
  });
  const exclusions = spec.exclusions ?? [];
  const excluded = exclusions.map(
    (e) =>
      `(${global} AND ${e.entity.event === null ? "1" : `event = ${params.text(e.entity.event)}`} AND ${filter(e.entity.properties, "exclusions")})`,
  );
  // After the filters compiled: an invalid one is their 400, naming its parameter.
  const withPerson =
    extra.readsPerson ||
    readsPerson(spec.properties, ...spec.steps.map((s) => s.properties), ...exclusions.map((e) => e.entity.properties));
  const source = analysisEvents(params, spec, { personProperties: withPerson, final: copiesMatter(spec) });
  // Strict funnels see every event (the next one must be the next step); the others only step events.
  const inFunnel = spec.order === "strict" ? global : `(${global} AND (${matches.join(" OR ")}))`;
  const mask = matches.map((m, k) => `bitShiftLeft(toUInt32(${m}), ${k})`).join(" + ");
  const names = [...spec.steps, ...exclusions.map((e) => e.entity)].map((s) => s.event);
  const extraNames = Object.keys(extra.aggregates ?? {});
  // Only the events the funnel and the extra aggregates read, when all of them are named (the sorting key
  // has the event name after the day, so this skips most of the table).
  const narrow = spec.order !== "strict" && names.every((e) => e !== null) && (!extraNames.length || extra.events);
  const read = [...new Set([...(names as string[]), ...(extra.events ?? [])])];
  const wanted = [inFunnel, ...excluded].join(" OR ");
  const where = narrow
    ? `WHERE event IN ${params.bind(read, "Array(String)")}${extraNames.length ? "" : ` AND (${wanted})`}`
    : "";
  // Each funnel event as one number sorting as D1 orders events (time, then created_at) with its step
  // bitmask in the low bits: one array of numbers is several times faster to collect and sort than
  // an array of tuples or several arrays (times and created_at fit 52 bits each until 2112).
  const packed = `bitShiftLeft(toUInt128(t), 72) + bitShiftLeft(toUInt128(created), 20) + (${mask})`;
  const perValue = valueAttribution(spec, params, matches, inFunnel, packed);
  const aggregates = [
    `arraySort(groupArrayIf(${packed}, ${inFunnel})) AS keys`,
    ...excluded.map((m, e) => `arraySort(groupArrayIf(t, ${m})) AS xs${e}`),
    ...(perValue ? perValue.aggregates : eventBreakdown(spec, params, inFunnel)),
    ...Object.entries(extra.aggregates ?? {}).map(([name, aggregate]) => `${aggregate} AS ${name}`),
  ];
  const perPerson = perValue?.groupBy
    ? `SELECT pid, ${perValue.groupBy} AS bd, ${aggregates.join(", ")} FROM ${source} ${where} GROUP BY pid, bd`
    : `SELECT pid, ${aggregates.join(", ")} FROM ${source} ${where} GROUP BY pid`;
  // step attribution: a row per value (an ARRAY JOIN clause, so lambdas may read `bd`).
  const perValueRows = perValue?.columns ? " ARRAY JOIN vals AS bd" : "";
  const unpacked =
    `SELECT *, ${perValue?.columns ?? ""}arrayMap(x -> toInt64(bitShiftRight(x, 72)), keys) AS ts,` +
    ` ${perValue?.ms ?? `arrayMap(x -> toUInt32(bitAnd(x, ${STEP_BITS})), keys)`} AS ms FROM (${perPerson})${perValueRows}`;

  const W = params.bind(spec.windowSeconds * 1_000_000, "Int64");
  const carried = ["bd", ...extraNames];
  const attempts = [
    ...(spec.order === "ordered"
      ? orderedAttempts(spec, W)
      : scannedAttempts(spec.order, n, W, exclusions.length, perValue?.anchored ?? false)),
    exclusionsChecked(spec, W),
  ];
  // The best attempt, ranked as D1 ranks them: most steps, then a clean attempt over an excluded one,
  // then the earliest last step, then the latest start (ordered and strict: the chain PostHog's UDF
  // carries) or the earliest (unordered). A person whose best attempt is excluded is out.
  const rank = `(-toInt64(a.1), a.5, a.2, ${spec.order === "unordered" ? "" : "-"}a.3)`;
  let scored = `SELECT *, ${attempts.join(", ")} FROM (${unpacked})`;
  let candidates = "checked";
  let period = "";
  if (extra.periodStarts) {
    // Funnel trends: the attempts of each entrance period compete among themselves (ARRAY JOIN in its
    // own level: an arrayJoin alias read inside a lambda of the same SELECT would be joined again).
    const starts = params.bind(
      extra.periodStarts.map((s) => Date.parse(s) * 1000),
      "Array(Int64)",
    );
    scored =
      `SELECT *, period, arrayFilter((a, p) -> p = period, checked, periods) AS mine FROM (` +
      `SELECT *, arrayMap(a -> toInt64(arrayCount(s -> s <= a.3, ${starts})) - 1, checked) AS periods FROM (${scored})` +
      `) ARRAY JOIN arrayDistinct(periods) AS period`;
    candidates = "mine";
    period = ", period";
  }
  const best =
    `SELECT pid, arrayReduce('argMin', ${candidates}, arrayMap(a -> ${rank}, ${candidates})) AS best${period}, ${carried.join(", ")}` +
    ` FROM (${scored}) WHERE notEmpty(${candidates}) AND best.5 = 0`;
  const breakdown =
    !spec.breakdown || perValue
      ? "f.bd"
      : spec.breakdown.type === "person"
        ? personBreakdown(spec.breakdown, params)
        : eventBreakdownOrNone(spec.breakdown);
  const join = spec.breakdown?.type === "person" ? ` LEFT JOIN (${LATEST_PERSONS}) AS lp ON lp.id = f.pid` : "";
  return (
    `(SELECT f.pid AS pid${period ? ", f.period AS period" : ""}, toUInt32(f.best.1) AS steps, f.best.3 AS t1, f.best.4 AS times, if(f.best.1 = ${n}, f.best.2, NULL) AS tfinal,` +
    ` f.best.3 + ${W} AS dl, ${breakdown} AS bd${extraNames.map((name) => `, f.${name} AS ${name}`).join("")}` +
    ` FROM (${best}) AS f${join})`
  );
}

/** A time later than every event (the greatest Int64 µs). */
const NEVER = "toInt64(9223372036854775807)";

/** The low bits of a packed event holding its step bitmask (MAX_FUNNEL_STEPS is 20). */
const STEP_BITS = 0xfffff;

/*
 * Every attempt of a person is computed at once, as arrays over the person's sorted events `ts` and
 * step bitmasks `ms`, ending in `attempts`: one `(steps, last step's time, first step's time, step
 * times)` per attempt. No lambda runs per attempt over the whole arrays: ClickHouse copies an array into every
 * call of a lambda that reads it, which made that quadratic.
 */

/**
 * Strict and unordered funnels, with no lookup that depends on another:
 * - strict: from each step-1 event, steps 2..n must be the very next events, read from the arrays
 *   shifted by 1..n-1 places;
 * - unordered: from the time of each group of simultaneous events (every step event's time once),
 *   each step's first event time, read from `nt<k>`: the time of the next step-k event at or after
 *   each place (arrayReverseFill).
 */
function scannedAttempts(
  order: FunnelSpec["order"],
  n: number,
  W: string,
  exclusions: number,
  anchored: boolean,
): string[] {
  const steps = Array.from({ length: n }, (_, k) => k + 1);
  if (order === "strict") {
    const later = steps.slice(1);
    const arrays = ["ts", ...later.flatMap((k) => [`arrayShiftLeft(ms, ${k - 1})`, `arrayShiftLeft(ts, ${k - 1})`])];
    // Steps 2..k are the next events, each inside the window.
    const reached = (k: number) =>
      later
        .filter((j) => j <= k)
        .map((j) => `bitTest(m${j}, ${j - 1}) AND u${j} <= t0 + ${W}`)
        .join(" AND ");
    const count = later.map((k) => ` + (${reached(k)})`).join("");
    const last = later.length
      ? `multiIf(${[...later]
          .reverse()
          .map((k) => `${reached(k)}, u${k}`)
          .join(", ")}, t0)`
      : "t0";
    const times = `[t0${later.map((k) => `, if(${reached(k)}, u${k}, 0)`).join("")}]`;
    const lambda = `(t0${later.map((k) => `, m${k}, u${k}`).join("")}) -> (toUInt64(1${count}), ${last}, t0, ${times})`;
    return [
      `arrayMap(${lambda}, ${arrays.join(", ")}) AS every`,
      "arrayFilter((x, m) -> bitTest(m, 0), every, ms) AS attempts",
    ];
  }
  const next = (k: number) =>
    `arrayReverseFill(x -> x > 0, arrayMap((m, t) -> if(bitTest(m, ${k - 1}), t, 0), ms, ts))`;
  const found = (k: number) => `(u${k} > 0 AND u${k} <= t0 + ${W})`;
  // An exclusion event inside an unordered attempt's window (`c`, the first after its start; 0: none)
  // wipes it (PostHog's UDF clears its progress before recording it) unless every step was done by
  // then (steps at the same time first).
  const cut = exclusions > 0;
  const kept = cut
    ? `c = 0 OR c > t0 + ${W} OR (${steps.map(found).join(" AND ")} AND greatest(${steps.map((k) => `u${k}`).join(", ")}) <= c)`
    : "1";
  // The step times in the order they were done (an unordered funnel's k-th step is the k-th it did).
  const done = `arraySort(arrayFilter(x -> x > 0, [${steps.map((k) => `if(${found(k)}, u${k}, 0)`).join(", ")}]))`;
  const lambda =
    `(t0${cut ? ", c" : ""}${steps.map((k) => `, u${k}`).join("")}) -> (toUInt64(${steps.map(found).join(" + ")}),` +
    ` greatest(${steps.map((k) => `if(${found(k)}, u${k}, 0)`).join(", ")}), t0, ${done}, ${kept})`;
  // Every exclusion time, sorted once per row (not once per event inside the lambda below).
  const all = Array.from({ length: exclusions }, (_, e) => `xs${e}`).join(", ");
  const cuts = cut ? ", arrayMap(t -> arrayFirst(x -> x > t, xall), ts)" : "";
  // Step-0 attribution: only the times with an event of the row's value (`own`) begin an attempt (the
  // first event of the time, `t != p`, stands for them: the next of the value at or after it is at that time).
  const attempts = anchored
    ? "arrayFilter((x, t, p, v) -> t != p AND v = t AND x.5, every, ts, arrayShiftRight(ts, 1)," +
      " arrayReverseFill(x -> x > 0, arrayMap((o, t) -> if(o, t, 0), own, ts))) AS attempts"
    : "arrayFilter((x, t, p) -> t != p AND x.5, every, ts, arrayShiftRight(ts, 1)) AS attempts";
  return [
    ...(cut ? [`arraySort(arrayConcat(${all})) AS xall`] : []),
    `arrayMap(${lambda}, ts${cuts}, ${steps.map(next).join(", ")}) AS every`,
    attempts,
  ];
}

/**
 * Ordered funnels: from each step-1 event (`a1`, indexes), step k is the first event of step k at or
 * after step k-1's time (its simultaneous events included, as D1 orders ties: `gs` is the first index
 * of each group of simultaneous events, `nx<k>` the next step-k index from each place), inside the
 * window, and not used by the attempt already (only possible when an event can match two steps).
 * Each step reads the arrays at the previous step's indexes: a lookup over the few step events of a
 * person.
 */
function orderedAttempts(spec: FunnelSpec, W: string): string[] {
  const n = spec.steps.length;
  const names = spec.steps.map((s) => s.event);
  const shared = names.includes(null) || new Set(names).size < names.length;
  const columns = [
    "arrayEnumerate(ts) AS ix",
    "arrayFill(x -> x > 0, arrayMap((t, p, i) -> if(i = 1 OR t != p, i, 0), ts, arrayShiftRight(ts, 1), ix)) AS gs",
    "arrayFilter((i, m) -> bitTest(m, 0), ix, ms) AS a1",
    `arrayMap(i -> ts[i] + ${W}, a1) AS dl`,
  ];
  for (let k = 2; k <= n; k++) {
    const used = Array.from({ length: k - 1 }, (_, j) => `a${j + 1}`);
    columns.push(`arrayReverseFill(x -> x > 0, arrayMap((m, i) -> if(bitTest(m, ${k - 1}), i, 0), ms, ix)) AS nx${k}`);
    let candidate = `arrayMap(i -> if(i = 0, 0, nx${k}[gs[i]]), a${k - 1})`;
    if (shared) {
      const args = used.map((_, j) => `u${j + 1}`);
      const isUsed = args.map((u) => `c = ${u}`).join(" OR ");
      for (let skip = 1; skip < k; skip++)
        candidate = `arrayMap((c, ${args.join(", ")}) -> if(c > 0 AND (${isUsed}), nx${k}[c + 1], c), ${candidate}, ${used.join(", ")})`;
    }
    columns.push(`arrayMap((c, d) -> if(c > 0 AND ts[c] <= d, c, 0), ${candidate}, dl) AS a${k}`);
  }
  const indexes = Array.from({ length: n }, (_, j) => `i${j + 1}`);
  const last = indexes
    .slice(1)
    .reverse()
    .map((i) => `${i} > 0, ${i}`);
  const lastIndex = last.length ? `multiIf(${last.join(", ")}, i1)` : "i1";
  const steps = `toUInt64(1${indexes
    .slice(1)
    .map((i) => ` + (${i} > 0)`)
    .join("")})`;
  // ts[0] is 0: a step not reached has time 0.
  const times = `[${indexes.map((i) => `ts[${i}]`).join(", ")}]`;
  columns.push(
    `arrayMap((${indexes.join(", ")}) -> (${steps}, ts[${lastIndex}], ts[i1], ${times}), ${indexes.map((_, j) => `a${j + 1}`).join(", ")}) AS attempts`,
  );
  return columns;
}

/**
 * `checked`: the attempts with their exclusion, `(steps, last step's time, first step's time, step
 * times, excluded)`, as D1 decides it (d1/funnel-sql.ts excludedAttempts): an exclusion event (`xs<e>`,
 * the person's times of exclusion e) after the attempt reached step `from` and before it reached step
 * `to`, inside its window, catches it; a caught attempt counts one step past those it had reached.
 */
function exclusionsChecked(spec: FunnelSpec, W: string): string {
  const exclusions = spec.exclusions ?? [];
  // Unordered attempts are cut at an exclusion instead (scannedAttempts).
  if (!exclusions.length || spec.order === "unordered")
    return "arrayMap(a -> (a.1, a.2, a.3, a.4, 0), attempts) AS checked";
  const caught = exclusions.map((e, k) => {
    const after = `a.4[${e.from + 1}]`;
    const before = `a.4[${e.to + 1}]`;
    return `arrayFirst(x -> ${after} > 0 AND x > ${after} AND x <= a.3 + ${W} AND (${before} = 0 OR x < ${before}), xs${k})`;
  });
  // The first exclusion that caught the attempt, NEVER when none did.
  const first = `arrayMin(arrayMap(x -> if(x = 0, ${NEVER}, x), [${caught.join(", ")}]))`;
  return (
    `arrayMap(a -> (if(a.6 = ${NEVER}, a.1, least(a.1, toUInt64(arrayCount(x -> x > 0 AND x < a.6, a.4) + 1)))` +
    `, a.2, a.3, a.4, a.6 != ${NEVER}), arrayMap(a -> (a.1, a.2, a.3, a.4, 0, ${first}), attempts)) AS checked`
  );
}

/**
 * Whether a copy of an event (stored twice by two inserts) could change the funnel, so the events are
 * read FINAL: when one event can match two steps (repeated names, a step of any event), where the
 * copy could make the second, and in strict funnels, where it would stand between two steps.
 */
function copiesMatter(spec: FunnelSpec): boolean {
  const names = spec.steps.map((s) => s.event);
  return spec.order === "strict" || names.includes(null) || new Set(names).size < names.length;
}

/**
 * An event breakdown's value per person, aggregated in the same pass: the value on the person's first
 * (or last) funnel event that has it ('' without one; a list's `[]`, replaced by eventBreakdownOrNone).
 */
function eventBreakdown(spec: ClickHouseFunnel, params: ClickHouseParams, inFunnel: string): string[] {
  const bd = spec.breakdown;
  if (!bd || bd.type !== "event") return [`${bd ? "''" : "NULL"} AS bd`];
  const { value, isSet } = breakdownValue(bd, "properties", params);
  const pick = bd.attribution.kind === "last_touch" ? "argMaxIf" : "argMinIf";
  return [`${pick}(${value}, ord, ${inFunnel} AND ${isSet}) AS bd`];
}

/**
 * all_events and step attribution (FunnelAttribution), computed per (person, value) row `bd`:
 * - all_events: the per-person pass is grouped by person and value (`groupBy`);
 * - step N: the distinct values of the person's step-N events (`vals`; unordered: of every funnel
 *   event) and each funnel event's value (`bvs`, sorted as `keys`; only step-N events' are read),
 *   one row per value (ARRAY JOIN); ordered and strict clear step N's bit in the events of another
 *   value (`ms`), unordered marks the value's events (`own`), where attempts may begin.
 */
function valueAttribution(
  spec: ClickHouseFunnel,
  params: ClickHouseParams,
  matches: string[],
  inFunnel: string,
  packed: string,
): { groupBy?: string; aggregates: string[]; columns?: string; ms?: string; anchored: boolean } | undefined {
  const bd = spec.breakdown;
  if (!bd || bd.type !== "event") return undefined;
  const { attribution } = bd;
  const { value } = breakdownValue(bd, "properties", params);
  if (attribution.kind === "all_events") return { groupBy: value, aggregates: [], anchored: false };
  if (attribution.kind !== "step") return undefined;
  const unordered = spec.order === "unordered";
  const ofStep = unordered ? inFunnel : `${inFunnel} AND ${matches[attribution.step]}`;
  const none = bd.list ? "CAST([] AS Array(String))" : "''";
  const eventValue = unordered ? value : `if(${matches[attribution.step]}, ${value}, ${none})`;
  const aggregates = [
    `groupUniqArrayIf(${value}, ${ofStep}) AS vals`,
    `arraySort((v, k) -> k, groupArrayIf(${eventValue}, ${inFunnel}), groupArrayIf(${packed}, ${inFunnel})) AS bvs`,
  ];
  if (unordered) return { aggregates, columns: "bd, arrayMap(b -> b = bd, bvs) AS own, ", anchored: true };
  const others = STEP_BITS - 2 ** attribution.step;
  return {
    aggregates,
    columns: "bd, ",
    ms: `arrayMap((x, b) -> toUInt32(bitAnd(x, if(b = bd, ${STEP_BITS}, ${others}))), keys, bvs)`,
    anchored: false,
  };
}

/** A list breakdown with no event value is a list of as many empty texts, as on D1 (PostHog's `['', …]`). */
function eventBreakdownOrNone(bd: FunnelBreakdown): string {
  return bd.list ? `if(notEmpty(f.bd), f.bd, ${noneOf(bd)})` : "f.bd";
}

/** A person breakdown's value: from the person's latest properties. */
function personBreakdown(bd: FunnelBreakdown, params: ClickHouseParams): string {
  const { value, isSet } = breakdownValue(bd, "lp.properties", params);
  return bd.list ? `if(${isSet}, ${value}, ${noneOf(bd)})` : value;
}

const noneOf = (bd: FunnelBreakdown) => `CAST([${noBreakdownValue(bd).map(quoteString).join(", ")}] AS Array(String))`;

/**
 * A breakdown's value in a properties column: one property's text ('' when not set), or for a list
 * breakdown the array of its properties' texts; set when present (one property) or when any text of
 * the list is non-empty, as D1 decides.
 */
function breakdownValue(bd: FunnelBreakdown, column: string, params: ClickHouseParams) {
  const keys = bd.keys.map((key) => params.text(key));
  const text = (key: string) => `ifNull(${jsonText(column, key)}, '')`;
  if (!bd.list) return { value: text(keys[0]), isSet: jsonIsSet(column, keys[0]) };
  const value = `[${keys.map(text).join(", ")}]`;
  return { value, isSet: `arrayExists(x -> x != '', ${value})` };
}

/**
 * The condition selecting one breakdown value (`funnel_step_breakdown`): a value and a one-element
 * list are the same, as PostHog compares flattened arrays.
 */
export function breakdownCondition(breakdown: FunnelBreakdown, values: string[], params: ClickHouseParams): string {
  if (!breakdown.list) return values.length === 1 ? `bd = ${params.text(values[0])}` : "0";
  return `bd = ${params.bind(values, "Array(String)")}`;
}
