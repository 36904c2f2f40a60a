import type { FunnelBreakdown, FunnelSpec } from "../queries";
import { analysisEvents, eventFilterColumns, readsPerson } from "./analysis-events";
import { LATEST_PERSONS } from "./analysis-persons";
import type { ClickHouseParams } from "./params";
import { type ClickHouseCohorts, jsonIsSet, jsonText, propertiesSql } from "./property-filters";

/** A funnel with the cohorts its filters may name. */
export interface ClickHouseFunnel extends FunnelSpec {
  cohorts: ClickHouseCohorts;
}

/**
 * The per-person funnel on ClickHouse: a subquery of `(pid, steps, t1, tfinal, dl, bd)` plus the
 * `extra` per-person aggregates asked for, with D1's answer (src/analytics/d1/funnel-sql.ts) for
 * every person: the steps reached at the best attempt, its first and final step times (µs; tfinal
 * NULL unless converted), the end of its window and the breakdown value.
 *
 * One pass over the range's events groups each person's funnel events into one array, sorted as D1
 * orders events (time, then insertion); each attempt then runs over that array with array functions:
 * - ordered: every step-1 event starts a chain; step k is the first later-or-simultaneous event of
 *   step k inside the window that the chain has not used yet;
 * - strict: step k must be the chain's very next event, whatever its name;
 * - unordered: from every step event's time, each step's first event inside the window.
 * The best attempt is D1's: most steps, then the earliest last step, then the latest start (ordered,
 * strict) or the earliest (unordered). windowFunnel is not used: its handling of simultaneous events
 * and of events matching several steps is not D1's (nor PostHog's UDF's).
 *
 * `extra.aggregates` are more per-person aggregates over the range's events (correlation's entity
 * done during the attempt); `extra.events` names the events they read, else they may read any, and
 * `extra.readsPerson` says they read the person's properties.
 */
export function funnelSql(
  spec: ClickHouseFunnel,
  params: ClickHouseParams,
  extra: { aggregates?: Record<string, string>; events?: string[]; readsPerson?: boolean } = {},
): string {
  const n = spec.steps.length;
  const filter = (tree: unknown, attr: string) => propertiesSql(tree, eventFilterColumns, params, attr, spec.cohorts);
  const global = filter(spec.properties, "properties");
  const matches = spec.steps.map(
    (s) => `(${s.event === null ? "1" : `event = ${params.text(s.event)}`} AND ${filter(s.properties, "events")})`,
  );
  // After the filters compiled: an invalid one is their 400, naming its parameter.
  const withPerson = extra.readsPerson || readsPerson(spec.properties, ...spec.steps.map((s) => s.properties));
  const source = analysisEvents(params, spec, { personProperties: withPerson, final: copiesMatter(spec) });
  // Strict funnels see every event (the next one must be the next step); the others only step events.
  const inFunnel = spec.order === "strict" ? global : `(${global} AND (${matches.join(" OR ")}))`;
  const mask = matches.map((m, k) => `bitShiftLeft(toUInt32(${m}), ${k})`).join(" + ");
  const names = spec.steps.map((s) => s.event);
  const extraNames = Object.keys(extra.aggregates ?? {});
  // Only the events the funnel and the extra aggregates read, when all of them are named (the sorting key
  // has the event name after the day, so this skips most of the table).
  const narrow = spec.order !== "strict" && names.every((e) => e !== null) && (!extraNames.length || extra.events);
  const read = [...new Set([...(names as string[]), ...(extra.events ?? [])])];
  const where = narrow
    ? `WHERE event IN ${params.bind(read, "Array(String)")}${extraNames.length ? "" : ` AND ${inFunnel}`}`
    : "";
  const aggregates = [
    `groupArrayIf(ord, ${inFunnel}) AS keys`,
    `groupArrayIf(${mask}, ${inFunnel}) AS masks`,
    ...eventBreakdown(spec, params, inFunnel),
    ...Object.entries(extra.aggregates ?? {}).map(([name, aggregate]) => `${aggregate} AS ${name}`),
  ];
  const perPerson = `SELECT pid, ${aggregates.join(", ")} FROM ${source} ${where} GROUP BY pid`;

  const W = params.bind(spec.windowSeconds * 1_000_000, "Int64");
  const carried = ["bd", ...extraNames].join(", ");
  // Each person's events in D1's order, as times `ts` and step bitmasks `ms` (numeric arrays sorted by
  // one number: an array of tuples is several times slower to collect and sort), and the index arrays
  // the chains walk.
  const arrays = [
    "arrayMap(x -> toInt64(bitShiftRight(x, 64)), arraySort(keys)) AS ts",
    "arraySort((m, k) -> k, masks, keys) AS ms",
    "arrayEnumerate(ts) AS ix",
    // The first index of each event's group of simultaneous events.
    "arrayFill(x -> x > 0, arrayMap((t, p, i) -> if(i = 1 OR t != p, i, 0), ts, arrayShiftRight(ts, 1), ix)) AS gs",
    // nx<k>[p]: the first index from p on whose event matches step k (0: none).
    ...spec.steps.map(
      (_, k) => `arrayReverseFill(x -> x > 0, arrayMap((m, i) -> if(bitTest(m, ${k}), i, 0), ms, ix)) AS nx${k + 1}`,
    ),
  ];
  const chain = chainSql(spec.order, n, W);
  const attempts =
    `SELECT pid, ${chain.columns.join(", ")}, ${carried}` +
    ` FROM (SELECT pid, ${arrays.join(", ")}, ${carried} FROM (${perPerson})) ARRAY JOIN ${chain.anchors} AS a`;
  // The best attempt, as D1 ranks them: most steps, then the earliest last step, then the latest start
  // (ordered, strict: the chain PostHog's UDF carries) or the earliest (unordered).
  const tie = spec.order === "unordered" ? "t1" : "-t1";
  const best =
    `SELECT pid, argMin((steps, tlast, t1), (-toInt64(steps), tlast, ${tie})) AS best,` +
    ` ${["bd", ...extraNames].map((c) => `any(${c}) AS ${c}`).join(", ")} FROM (${attempts}) GROUP BY pid`;
  const breakdown = spec.breakdown?.type === "person" ? personBreakdown(spec.breakdown, params) : "bd";
  const join = spec.breakdown?.type === "person" ? ` LEFT JOIN (${LATEST_PERSONS}) AS lp ON lp.id = f.pid` : "";
  return (
    `(SELECT f.pid AS pid, toUInt32(f.best.1) AS steps, f.best.3 AS t1, if(f.best.1 = ${n}, f.best.2, NULL) AS tfinal,` +
    ` f.best.3 + ${W} AS dl, ${breakdown} AS bd${extraNames.map((name) => `, f.${name} AS ${name}`).join("")}` +
    ` FROM (${best}) AS f${join})`
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
 * One attempt per row (ARRAY JOIN over its `anchors`), its steps as scalar columns over the
 * person's arrays: `j<k>`, the index of the event that made step k (0: not reached), then `steps`,
 * `tlast` (the last step's time) and `t1`. Written out step by step: ClickHouse copies every array a
 * lambda reads into each of its calls, which made per-attempt lambdas over the arrays quadratic.
 */
function chainSql(order: FunnelSpec["order"], n: number, W: string): { anchors: string; columns: string[] } {
  const columns = ["a AS j1", "ts[j1] AS t1", `t1 + ${W} AS dl`];
  // A candidate index kept when its event is inside the window (one-element arrayMap: `c` named once).
  const inWindow = (candidate: string) => `arrayMap(c -> if(c > 0 AND ts[c] <= dl, c, 0), [${candidate}])[1]`;
  for (let k = 2; k <= n; k++) {
    const prev = `j${k - 1}`;
    let next: string;
    if (order === "ordered") {
      // The first event of step k at or after the previous step's time (its simultaneous events
      // included, as D1 orders ties), skipping the events the chain has used already.
      const used = `[${Array.from({ length: k - 1 }, (_, j) => `j${j + 1}`).join(", ")}]`;
      let candidate = `nx${k}[gs[${prev}]]`;
      for (let skip = 1; skip < k; skip++)
        candidate = `arrayMap(c -> if(has(${used}, c), nx${k}[c + 1], c), [${candidate}])[1]`;
      next = `if(${prev} > 0, ${inWindow(candidate)}, 0)`;
    } else if (order === "strict") {
      // The chain's very next event, which must be step k.
      next = `if(${prev} > 0 AND bitTest(ms[${prev} + 1], ${k - 1}), ${inWindow(`${prev} + 1`)}, 0)`;
    } else {
      // Unordered: step k's first event from the anchor's time on.
      next = inWindow(`nx${k}[j1]`);
    }
    columns.push(`${next} AS j${k}`);
  }
  if (order === "unordered") {
    // The anchor is any step's event, so step 1 is looked up like the others.
    columns.push(`${inWindow("nx1[j1]")} AS u1`);
    const found = ["u1", ...Array.from({ length: n - 1 }, (_, j) => `j${j + 2}`)];
    columns.push(`toUInt64(${found.map((f) => `(${f} > 0)`).join(" + ")}) AS steps`);
    columns.push(`greatest(${found.map((f) => `if(${f} > 0, ts[${f}], 0)`).join(", ")}) AS tlast`);
    // Anchors: the first event of each group of simultaneous events (every step event's time once).
    return { anchors: "arrayFilter((i, g) -> g = i, ix, gs)", columns };
  }
  columns.push(`toUInt64(1${Array.from({ length: n - 1 }, (_, j) => ` + (j${j + 2} > 0)`).join("")}) AS steps`);
  const last = Array.from({ length: n - 1 }, (_, j) => n - j).map((k) => `j${k} > 0, ts[j${k}]`);
  columns.push(last.length ? `multiIf(${last.join(", ")}, t1) AS tlast` : "t1 AS tlast");
  // Anchors: every step-1 event.
  return { anchors: "arrayFilter((i, m) -> bitTest(m, 0), ix, ms)", columns };
}

/**
 * An event breakdown's value per person, aggregated in the same pass: the value on the person's first
 * (or last) funnel event that has it, as D1 takes it ('' or [] without one).
 */
function eventBreakdown(spec: ClickHouseFunnel, params: ClickHouseParams, inFunnel: string): string[] {
  const bd = spec.breakdown;
  if (!bd || bd.type !== "event") return [`${bd ? "''" : "NULL"} AS bd`];
  const { value, isSet } = breakdownValue(bd, "properties", params);
  const pick = bd.attribution === "last_touch" ? "argMaxIf" : "argMinIf";
  return [`${pick}(${value}, ord, ${inFunnel} AND ${isSet}) AS bd`];
}

/** A person breakdown's value: from the person's latest properties. */
function personBreakdown(bd: FunnelBreakdown, params: ClickHouseParams): string {
  const { value, isSet } = breakdownValue(bd, "lp.properties", params);
  return bd.list ? `if(${isSet}, ${value}, CAST([] AS Array(String)))` : value;
}

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
