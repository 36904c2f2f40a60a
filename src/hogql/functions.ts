import { quoteString } from "../lib/sql";
import { refuse } from "./errors";

/**
 * The function catalog: every HogQL function a query may call, with its SQLite translation.
 * Anything missing here is refused at compile time. Timestamps are ISO 8601 UTC text, so date
 * functions produce the same text form (comparable with stored timestamps) or integers.
 */
type Translate = (args: string[]) => string;
interface FunctionDef {
  min: number;
  max: number;
  sql: Translate;
}

const ISO = "'%Y-%m-%dT%H:%M:%fZ'";
const iso = (x: string, ...mods: string[]) => `strftime(${[ISO, x, ...mods].join(", ")})`;
const part = (fmt: string) => (a: string[]) => `CAST(strftime('${fmt}', ${a[0]}) AS INTEGER)`;
const fixed = (n: number, sql: Translate): FunctionDef => ({ min: n, max: n, sql });
const range = (min: number, max: number, sql: Translate): FunctionDef => ({ min, max, sql });
/** Sunday-based (ClickHouse mode 0) unless the mode argument asks for Monday. */
const weekStart = (a: string[]) => {
  const back = a[1] === undefined || a[1] === "0" ? `strftime('%w', ${a[0]})` : `((strftime('%w', ${a[0]}) + 6) % 7)`;
  return `strftime('%Y-%m-%dT00:00:00.000Z', ${a[0]}, '-' || ${back} || ' days')`;
};
const epoch = (unitSeconds: number, fmt: string) => (x: string) =>
  `(CAST(strftime('%s', strftime('${fmt}', ${x})) AS INTEGER) / ${unitSeconds})`;
/** ClickHouse's dateDiff counts unit boundaries crossed between the two times. */
const DATE_DIFF: Record<string, (x: string) => string> = {
  second: epoch(1, "%Y-%m-%d %H:%M:%S"),
  minute: epoch(60, "%Y-%m-%d %H:%M:00"),
  hour: epoch(3600, "%Y-%m-%d %H:00:00"),
  day: (x) => `CAST(julianday(date(${x})) AS INTEGER)`,
  week: (x) => `CAST((julianday(date(${x}, '-' || strftime('%w', ${x}) || ' days')) + 0.5) / 7 AS INTEGER)`,
  month: (x) => `(CAST(strftime('%Y', ${x}) AS INTEGER) * 12 + CAST(strftime('%m', ${x}) AS INTEGER))`,
  quarter: (x) => `(CAST(strftime('%Y', ${x}) AS INTEGER) * 4 + (CAST(strftime('%m', ${x}) AS INTEGER) - 1) / 3)`,
  year: (x) => `CAST(strftime('%Y', ${x}) AS INTEGER)`,
};
/**
 * ClickHouse's optional time-zone argument: buckets and times here are UTC (docs/compatibility.md),
 * so only a UTC zone is accepted; any other would be silently wrong.
 */
const utcOnly = (name: string, zone: string | undefined) => {
  if (zone !== undefined && !/^'(UTC|Etc\/UTC|GMT|Etc\/GMT|Z)'$/i.test(zone))
    refuse(`${name}: only the UTC time zone is supported (dates and times are UTC)`);
};
const text = (x: string) => `ifnull(CAST(${x} AS TEXT), '')`;

export const SCALAR_FUNCTIONS: Record<string, FunctionDef> = {
  // time
  now: fixed(0, () => iso("'now'")),
  today: fixed(0, () => "date('now')"),
  yesterday: fixed(0, () => "date('now', '-1 day')"),
  todate: fixed(1, (a) => `date(${a[0]})`),
  todatetime: range(1, 2, (a) => (utcOnly("toDateTime", a[1]), iso(a[0]))),
  tostartofminute: fixed(1, (a) => `strftime('%Y-%m-%dT%H:%M:00.000Z', ${a[0]})`),
  tostartofhour: fixed(1, (a) => `strftime('%Y-%m-%dT%H:00:00.000Z', ${a[0]})`),
  tostartofday: range(1, 2, (a) => (utcOnly("toStartOfDay", a[1]), `strftime('%Y-%m-%dT00:00:00.000Z', ${a[0]})`)),
  tostartofweek: range(1, 2, weekStart),
  tomonday: fixed(1, (a) => `date(${a[0]}, '-' || ((strftime('%w', ${a[0]}) + 6) % 7) || ' days')`),
  tostartofmonth: fixed(1, (a) => `strftime('%Y-%m-01T00:00:00.000Z', ${a[0]})`),
  tostartofquarter: fixed(
    1,
    (a) => `strftime('%Y-%m-01T00:00:00.000Z', ${a[0]}, '-' || ((strftime('%m', ${a[0]}) - 1) % 3) || ' months')`,
  ),
  tostartofyear: fixed(1, (a) => `strftime('%Y-01-01T00:00:00.000Z', ${a[0]})`),
  toyear: fixed(1, part("%Y")),
  tomonth: fixed(1, part("%m")),
  todayofmonth: fixed(1, part("%d")),
  todayofyear: fixed(1, part("%j")),
  tohour: fixed(1, part("%H")),
  tominute: fixed(1, part("%M")),
  tosecond: fixed(1, part("%S")),
  todayofweek: fixed(1, (a) => `(((CAST(strftime('%w', ${a[0]}) AS INTEGER) + 6) % 7) + 1)`),
  tounixtimestamp: fixed(1, (a) => `CAST(strftime('%s', ${a[0]}) AS INTEGER)`),
  // conditionals
  if: fixed(3, (a) => `(CASE WHEN ${a[0]} THEN ${a[1]} ELSE ${a[2]} END)`),
  multiif: range(3, 99, (a) => {
    if (a.length % 2 === 0) refuse("multiIf needs an odd number of arguments (conditions, values and a default)");
    let sql = "(CASE";
    for (let i = 0; i + 1 < a.length; i += 2) sql += ` WHEN ${a[i]} THEN ${a[i + 1]}`;
    return `${sql} ELSE ${a.at(-1)} END)`;
  }),
  _casewithexpression: range(3, 99, (a) => {
    const [subject, ...rest] = a;
    let sql = `(CASE ${subject}`;
    for (let i = 0; i + 1 < rest.length; i += 2) sql += ` WHEN ${rest[i]} THEN ${rest[i + 1]}`;
    return `${sql}${rest.length % 2 ? ` ELSE ${rest.at(-1)}` : ""} END)`;
  }),
  coalesce: range(1, 99, (a) => (a.length === 1 ? a[0] : `coalesce(${a.join(", ")})`)),
  ifnull: fixed(2, (a) => `ifnull(${a[0]}, ${a[1]})`),
  nullif: fixed(2, (a) => `nullif(${a[0]}, ${a[1]})`),
  isnull: fixed(1, (a) => `(${a[0]} IS NULL)`),
  isnotnull: fixed(1, (a) => `(${a[0]} IS NOT NULL)`),
  not: fixed(1, (a) => `(NOT ${a[0]})`),
  and: range(2, 99, (a) => `(${a.join(" AND ")})`),
  or: range(2, 99, (a) => `(${a.join(" OR ")})`),
  // type conversion
  tostring: fixed(1, (a) => `CAST(${a[0]} AS TEXT)`),
  toint: fixed(1, (a) => `CAST(${a[0]} AS INTEGER)`),
  tointornull: fixed(1, (a) => `CAST(${a[0]} AS INTEGER)`),
  tofloat: fixed(1, (a) => `CAST(${a[0]} AS REAL)`),
  tofloatornull: fixed(1, (a) => `CAST(${a[0]} AS REAL)`),
  tobool: fixed(1, (a) => `(CASE WHEN ${a[0]} IN ('true', 1) THEN 1 WHEN ${a[0]} IN ('false', 0) THEN 0 END)`),
  jsonextractstring: range(2, 20, (a) => `CAST(json_extract(${a[0]}, ${jsonArgsPath(a.slice(1))}) AS TEXT)`),
  jsonextractint: range(2, 20, (a) => `CAST(json_extract(${a[0]}, ${jsonArgsPath(a.slice(1))}) AS INTEGER)`),
  jsonextractfloat: range(2, 20, (a) => `CAST(json_extract(${a[0]}, ${jsonArgsPath(a.slice(1))}) AS REAL)`),
  jsonextractraw: range(2, 20, (a) => `json_quote(json_extract(${a[0]}, ${jsonArgsPath(a.slice(1))}))`),
  // strings (concat is null-safe in HogQL)
  lower: fixed(1, (a) => `lower(${a[0]})`),
  upper: fixed(1, (a) => `upper(${a[0]})`),
  length: fixed(1, (a) => `length(${a[0]})`),
  concat: range(1, 99, (a) => `(${a.map(text).join(" || ")})`),
  substring: range(2, 3, (a) => `substr(${a.join(", ")})`),
  replaceall: fixed(3, (a) => `replace(${a.join(", ")})`),
  replace: fixed(3, (a) => `replace(${a.join(", ")})`),
  trim: fixed(1, (a) => `trim(${a[0]})`),
  trimleft: fixed(1, (a) => `ltrim(${a[0]})`),
  trimright: fixed(1, (a) => `rtrim(${a[0]})`),
  position: fixed(2, (a) => `instr(${a[0]}, ${a[1]})`),
  startswith: fixed(2, (a) => `(substr(${a[0]}, 1, length(${a[1]})) = ${a[1]})`),
  endswith: fixed(2, (a) => `(substr(${a[0]}, -length(${a[1]})) = ${a[1]})`),
  empty: fixed(1, (a) => `(ifnull(length(${a[0]}), 0) = 0)`),
  notempty: fixed(1, (a) => `(ifnull(length(${a[0]}), 0) > 0)`),
  // math
  abs: fixed(1, (a) => `abs(${a[0]})`),
  round: range(1, 2, (a) => `round(${a.join(", ")})`),
  floor: fixed(1, (a) => `floor(${a[0]})`),
  ceil: fixed(1, (a) => `ceil(${a[0]})`),
  sqrt: fixed(1, (a) => `sqrt(${a[0]})`),
  pow: fixed(2, (a) => `pow(${a[0]}, ${a[1]})`),
  power: fixed(2, (a) => `pow(${a[0]}, ${a[1]})`),
  exp: fixed(1, (a) => `exp(${a[0]})`),
  log: fixed(1, (a) => `ln(${a[0]})`),
  log10: fixed(1, (a) => `log10(${a[0]})`),
  intdiv: fixed(2, (a) => `CAST(${a[0]} / ${a[1]} AS INTEGER)`),
  greatest: range(2, 99, (a) => `max(${a.join(", ")})`),
  least: range(2, 99, (a) => `min(${a.join(", ")})`),
  // date difference: the unit is a string literal, checked in the printer
  datediff: fixed(3, (a) => {
    const unit = DATE_DIFF[a[0].replace(/^'|'$/g, "").toLowerCase()];
    if (!unit)
      return refuse(`dateDiff unit ${a[0]} is not supported (second, minute, hour, day, week, month, quarter, year)`);
    return `(${unit(a[2])} - ${unit(a[1])})`;
  }),
};

/** JSONExtract* key arguments are string literals or 1-based integer indexes. */
function jsonArgsPath(keys: string[]): string {
  let path = "$";
  for (const key of keys) {
    if (/^-?\d+$/.test(key)) path += `[${Number(key) - 1}]`;
    else if (/^'([^'"]|'')*'$/.test(key)) path += `."${key.slice(1, -1).replaceAll("''", "'")}"`;
    else refuse("JSONExtract keys must be string or integer literals");
  }
  return quoteString(path);
}

/** Aggregates; each also exists with PostHog's `If` combinator (`countIf`, `sumIf`, `uniqIf`, ...). */
const AGGREGATES: Record<string, (args: string[], distinct: boolean) => string> = {
  count: (a, d) => (a.length === 0 || a[0] === "*" ? "count(*)" : `count(${d ? "DISTINCT " : ""}${a[0]})`),
  uniq: (a) => `count(DISTINCT ${a[0]})`,
  uniqexact: (a) => `count(DISTINCT ${a[0]})`,
  sum: (a, d) => `sum(${d ? "DISTINCT " : ""}${a[0]})`,
  avg: (a, d) => `avg(${d ? "DISTINCT " : ""}${a[0]})`,
  min: (a) => `min(${a[0]})`,
  max: (a) => `max(${a[0]})`,
  any: (a) => `min(${a[0]})`,
  grouparray: (a) => `json_group_array(${a[0]})`,
};

export function isAggregate(name: string): boolean {
  const key = name.toLowerCase();
  return key in AGGREGATES || (key.endsWith("if") && key.slice(0, -2) in AGGREGATES);
}

/** `args` for an -If combinator carry the condition last. */
export function aggregateSql(name: string, args: string[], distinct: boolean): string {
  const key = name.toLowerCase();
  const base = key in AGGREGATES ? key : key.slice(0, -2);
  const conditional = base !== key;
  const valueArgs = conditional ? args.slice(0, -1) : args;
  const expected = base === "count" ? [0, 1] : [1, 1];
  if (valueArgs.length < expected[0] || valueArgs.length > expected[1])
    refuse(`${name} takes ${expected[1]} argument(s)${conditional ? " plus a condition" : ""}`);
  const sql = AGGREGATES[base](valueArgs, distinct);
  return conditional ? `${sql} FILTER (WHERE ${args.at(-1)})` : sql;
}

export function scalarSql(name: string, args: string[]): string {
  const def = SCALAR_FUNCTIONS[name.toLowerCase()];
  if (!def) return refuse(`Unsupported function: ${name}`);
  if (args.length < def.min || args.length > def.max)
    refuse(`${name} takes ${def.min === def.max ? def.min : `${def.min} to ${def.max}`} argument(s)`);
  return def.sql(args);
}

export const INTERVAL_UNITS: Record<string, [number, string]> = {
  tointervalsecond: [1, "seconds"],
  tointervalminute: [1, "minutes"],
  tointervalhour: [1, "hours"],
  tointervalday: [1, "days"],
  tointervalweek: [7, "days"],
  tointervalmonth: [1, "months"],
  tointervalquarter: [3, "months"],
  tointervalyear: [1, "years"],
};
