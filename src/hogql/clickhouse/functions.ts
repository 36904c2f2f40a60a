import { isValidTimeZone } from "../../lib/time/zone";
import type { Node } from "../ast";
import { refuse } from "../errors";
import { quoteString, TIMEZONE_PARAM } from "./sql";
import { asInteger, coerce, type Typed, unify, type ValueType, type Want } from "./values";

/** What a function's printer gets: its arguments, printed on demand as it needs them. */
export interface CallContext {
  /** The name as the query spells it (for messages). */
  name: string;
  /** The argument nodes, for arguments that must be literals (units, zones, formats). */
  nodes: Node[];
  /** Argument `i` printed and converted as `want` says. */
  arg(i: number, want: Want): Typed;
  /** Every argument from `from` on, converted alike. */
  args(want: Want, from?: number): Typed[];
}

interface FunctionDef {
  min: number;
  max: number;
  print(c: CallContext): Typed;
}

const def = (min: number, max: number, print: (c: CallContext) => Typed): FunctionDef => ({ min, max, print });
const typed = (sql: string, type: ValueType): Typed => ({ sql, type });
const list = (ts: Typed[]) => ts.map((t) => t.sql).join(", ");
/** ClickHouse's function `fn` over the arguments, each converted as `want` says. */
const plain = (fn: string, min: number, max: number, want: Want, type: ValueType) =>
  def(min, max, (c) => typed(`${fn}(${list(c.args(want))})`, type));

/**
 * A time-zone argument (ClickHouse needs a constant): a string literal naming an IANA zone, printed
 * as a literal; without one, the project's zone (a query parameter, so a project's zone can change
 * without recompiling). An unknown zone is refused at compile time rather than failing each run.
 */
function zone(c: CallContext, i: number): string {
  const node = c.nodes[i];
  if (!node) return TIMEZONE_PARAM;
  if (node.node !== "Constant" || typeof node.value !== "string")
    return refuse(`${c.name}: the time zone must be a string literal, such as 'Europe/Paris'`);
  if (!isValidTimeZone(node.value)) return refuse(`${c.name}: unknown time zone ${JSON.stringify(node.value)}`);
  return quoteString(node.value);
}
/** The zone argument as ClickHouse's optional last argument: absent when the query gives none. */
const zoneSuffix = (c: CallContext, i: number) => (c.nodes[i] ? `, ${zone(c, i)}` : "");

function literal(c: CallContext, i: number, what: string, allowed?: readonly string[]): string {
  const node = c.nodes[i];
  const value = node?.node === "Constant" ? node.value : undefined;
  if (typeof value !== "string" || (allowed && !allowed.includes(value.toLowerCase())))
    return refuse(`${c.name}: the ${what} must be ${allowed ? `one of ${allowed.join(", ")}` : "a string literal"}`);
  return value;
}

/** A time argument: times as they are, text parsed (in the project's zone when it names none). */
const time = (c: CallContext, i: number) => c.arg(i, "datetime");

/** Parts of a time: `toHour(t[, zone])` and the like, as numbers. */
const part = (fn: string) => def(1, 2, (c) => typed(`${fn}(${time(c, 0).sql}${zoneSuffix(c, 1)})`, "number"));
/** Starts of periods shorter than a week, which ClickHouse answers as times. */
const startOf = (fn: string) => def(1, 2, (c) => typed(`${fn}(${time(c, 0).sql}${zoneSuffix(c, 1)})`, "datetime"));
/**
 * Starts of weeks and longer, which ClickHouse answers as dates: read as the time of that midnight,
 * in the zone of the call, as D1 answers them (a time), so both engines give the same value.
 */
const midnightOf = (fn: string, zoneAt: number, extra: (c: CallContext) => string = () => "") =>
  def(1, zoneAt + 1, (c) =>
    typed(`toDateTime(${fn}(${time(c, 0).sql}${extra(c)}${zoneSuffix(c, zoneAt)}), ${zone(c, zoneAt)})`, "datetime"),
  );

function toDateTime(c: CallContext): Typed {
  const value = c.arg(0, "raw");
  const z = zone(c, 1);
  if (value.type === "datetime") return typed(`toTimeZone(${value.sql}, ${z})`, "datetime");
  if (value.type === "number" || value.type === "date") return typed(`toDateTime64(${value.sql}, 6, ${z})`, "datetime");
  return typed(`parseDateTime64BestEffortOrNull(${coerce(value, "string").sql}, 6, ${z})`, "datetime");
}

/**
 * `toStartOfInterval(t, INTERVAL n unit[, zone])`, any unit (SQLite takes seconds to days only);
 * ClickHouse needs the interval constant. Buckets of a week or longer are dates there: read as the
 * time of that midnight, as toStartOfWeek and longer are.
 */
function startOfInterval(c: CallContext): Typed {
  const interval = c.nodes[1];
  const unit = /^tointerval(second|minute|hour|day|week|month|quarter|year)$/i.exec(String(interval?.name))?.[1];
  const amount = interval?.args?.[0];
  if (
    interval?.node !== "Call" ||
    !unit ||
    amount?.node !== "Constant" ||
    !Number.isInteger(amount.value) ||
    amount.value < 1
  )
    return refuse(`${c.name} takes a time and INTERVAL n unit with a positive integer n`);
  const sql = `toStartOfInterval(${time(c, 0).sql}, ${c.arg(1, "raw").sql}${zoneSuffix(c, 2)})`;
  return /week|month|quarter|year/i.test(unit)
    ? typed(`toDateTime(${sql}, ${zone(c, 2)})`, "datetime")
    : typed(sql, "datetime");
}

const DATE_DIFF_UNITS = ["second", "minute", "hour", "day", "week", "month", "quarter", "year"] as const;

/** Each argument converted to the type the others share (see unify), for if/coalesce/greatest and the like. */
const unified = (c: CallContext, from = 0) => unify(c.args("raw", from));
const typeOf = (ts: Typed[]) => ts.find((t) => t.type !== "null")?.type ?? "null";

function multiIf(c: CallContext): Typed {
  if (c.nodes.length % 2 === 0) refuse("multiIf needs an odd number of arguments (conditions, values and a default)");
  const isValue = (i: number) => i % 2 === 1 || i === c.nodes.length - 1;
  const values = unify(c.nodes.flatMap((_, i) => (isValue(i) ? [c.arg(i, "raw")] : [])));
  const parts: string[] = [];
  let v = 0;
  for (let i = 0; i + 1 < c.nodes.length; i += 2) parts.push(c.arg(i, "condition").sql, values[v++].sql);
  parts.push(values[v].sql);
  return typed(`multiIf(${parts.join(", ")})`, typeOf(values));
}

/** `CASE x WHEN a THEN b ... [ELSE e] END` (the parser's `_caseWithExpression`: x, then pairs, then the default). */
function caseWithExpression(c: CallContext): Typed {
  const pairs = Math.floor((c.nodes.length - 1) / 2);
  const hasElse = (c.nodes.length - 1) % 2 === 1;
  const whens = unify([c.arg(0, "raw"), ...Array.from({ length: pairs }, (_, k) => c.arg(1 + 2 * k, "raw"))]);
  const thens = unify([
    ...Array.from({ length: pairs }, (_, k) => c.arg(2 + 2 * k, "raw")),
    ...(hasElse ? [c.arg(c.nodes.length - 1, "raw")] : []),
  ]);
  let sql = `(CASE ${whens[0].sql}`;
  for (let k = 0; k < pairs; k++) sql += ` WHEN ${whens[k + 1].sql} THEN ${thens[k].sql}`;
  if (hasElse) sql += ` ELSE ${thens[pairs].sql}`;
  return typed(`${sql} END)`, typeOf(thens));
}

/** JSONExtract* keys: string literals or 1-based integer indexes, as HogQL and ClickHouse both read them. */
function jsonKeys(c: CallContext): string {
  return c.nodes
    .slice(1)
    .map((node, i) => {
      if (node.node === "Constant" && typeof node.value === "string") return quoteString(node.value);
      if (node.node === "Constant" && Number.isInteger(node.value)) return c.arg(i + 1, "raw").sql;
      return refuse("JSONExtract keys must be string or integer literals");
    })
    .join(", ");
}
const jsonExtract = (type: string, valueType: ValueType) =>
  def(2, 20, (c) => typed(`JSONExtract(${c.arg(0, "raw").sql}, ${jsonKeys(c)}, '${type}')`, valueType));

/** An array argument and an element to find in it: a property's array reads as strings, so the element does too. */
function inArray(fn: string, type: ValueType) {
  return def(2, 2, (c) => {
    const array = c.arg(0, "array");
    const fromProperty = c.nodes[0] && c.arg(0, "raw").type === "json";
    return typed(`${fn}(${array.sql}, ${c.arg(1, fromProperty ? "string" : "value").sql})`, type);
  });
}

/** Text concatenation is null-safe in HogQL: a NULL part adds nothing. */
const concat = def(1, 99, (c) =>
  typed(
    `concat(${c
      .args("string")
      .map((t) => `ifNull(${t.sql}, '')`)
      .join(", ")})`,
    "string",
  ),
);

/** HogQL's toBool: 'true'/1 and 'false'/0, anything else NULL. */
const toBool = def(1, 1, (c) => {
  const s = c.arg(0, "string").sql;
  return typed(`multiIf(${s} IN ('true', '1'), 1, ${s} IN ('false', '0'), 0, NULL)`, "number");
});

const emptiness = (negate: boolean) =>
  def(1, 1, (c) => {
    const value = c.arg(0, "raw");
    if (value.type === "array") return typed(`${negate ? "notEmpty" : "empty"}(${value.sql})`, "number");
    return typed(`${negate ? "notEmpty" : "empty"}(ifNull(${coerce(value, "string").sql}, ''))`, "number");
  });

const INTERVALS = ["Second", "Minute", "Hour", "Day", "Week", "Month", "Quarter", "Year"];

/**
 * The function catalog on ClickHouse: every HogQL function a query may call, with ClickHouse's own
 * function for it. It holds the SQLite catalog's functions (functions.ts), with the same results on
 * the construct tests, plus what ClickHouse can do and SQLite cannot (the time-zone arguments, arrays,
 * regular expressions; listed in docs/compatibility.md). Anything missing here is refused at compile
 * time: table functions, dictionaries, introspection and system functions are never reachable.
 */
export const CLICKHOUSE_FUNCTIONS: Record<string, FunctionDef> = {
  // time, in the project's zone unless a literal zone is given
  now: def(0, 0, () => typed(`now64(6, ${TIMEZONE_PARAM})`, "datetime")),
  today: def(0, 0, () => typed(`toDate(now(${TIMEZONE_PARAM}))`, "date")),
  yesterday: def(0, 0, () => typed(`(toDate(now(${TIMEZONE_PARAM})) - 1)`, "date")),
  todate: def(1, 2, (c) => typed(`toDate(${time(c, 0).sql}${zoneSuffix(c, 1)})`, "date")),
  todatetime: def(1, 2, toDateTime),
  totimezone: def(2, 2, (c) => typed(`toTimeZone(${time(c, 0).sql}, ${zone(c, 1)})`, "datetime")),
  tostartofminute: startOf("toStartOfMinute"),
  tostartofhour: startOf("toStartOfHour"),
  tostartofday: startOf("toStartOfDay"),
  tostartofweek: midnightOf("toStartOfWeek", 2, (c) => (c.nodes[1] ? `, ${weekMode(c)}` : "")),
  tostartofinterval: def(2, 3, startOfInterval),
  tomonday: def(1, 1, (c) => typed(`toMonday(${time(c, 0).sql})`, "date")),
  tostartofmonth: midnightOf("toStartOfMonth", 1),
  tostartofquarter: midnightOf("toStartOfQuarter", 1),
  tostartofyear: midnightOf("toStartOfYear", 1),
  toyear: part("toYear"),
  tomonth: part("toMonth"),
  todayofmonth: part("toDayOfMonth"),
  todayofyear: part("toDayOfYear"),
  tohour: part("toHour"),
  tominute: part("toMinute"),
  tosecond: part("toSecond"),
  todayofweek: part("toDayOfWeek"),
  tounixtimestamp: def(1, 1, (c) => typed(`toUnixTimestamp(${time(c, 0).sql})`, "number")),
  formatdatetime: def(2, 3, (c) =>
    typed(`formatDateTime(${time(c, 0).sql}, ${quoteString(literal(c, 1, "format"))}${zoneSuffix(c, 2)})`, "string"),
  ),
  datediff: def(3, 4, (c) => {
    const unit = literal(c, 0, "unit", DATE_DIFF_UNITS).toLowerCase();
    return typed(`dateDiff('${unit}', ${time(c, 1).sql}, ${time(c, 2).sql}${zoneSuffix(c, 3)})`, "number");
  }),
  ...Object.fromEntries(
    INTERVALS.map((unit) => [
      `tointerval${unit.toLowerCase()}`,
      def(1, 1, (c) => typed(`toInterval${unit}(${c.arg(0, "number").sql})`, "interval")),
    ]),
  ),
  // conditionals
  if: def(3, 3, (c) => {
    const [a, b] = unified(c, 1);
    return typed(`if(${c.arg(0, "condition").sql}, ${a.sql}, ${b.sql})`, typeOf([a, b]));
  }),
  multiif: def(3, 99, multiIf),
  _casewithexpression: def(3, 99, caseWithExpression),
  coalesce: def(1, 99, (c) => {
    const values = unified(c);
    return values.length === 1 ? coerce(values[0], "value") : typed(`coalesce(${list(values)})`, typeOf(values));
  }),
  ifnull: def(2, 2, (c) => {
    const values = unified(c);
    return typed(`ifNull(${list(values)})`, typeOf(values));
  }),
  nullif: def(2, 2, (c) => {
    const values = unified(c);
    return typed(`nullIf(${list(values)})`, typeOf(values));
  }),
  isnull: def(1, 1, (c) => typed(`isNull(${c.arg(0, "value").sql})`, "number")),
  isnotnull: def(1, 1, (c) => typed(`isNotNull(${c.arg(0, "value").sql})`, "number")),
  not: def(1, 1, (c) => typed(`(NOT ${c.arg(0, "condition").sql})`, "number")),
  and: def(2, 99, (c) =>
    typed(
      `(${c
        .args("condition")
        .map((t) => t.sql)
        .join(" AND ")})`,
      "number",
    ),
  ),
  or: def(2, 99, (c) =>
    typed(
      `(${c
        .args("condition")
        .map((t) => t.sql)
        .join(" OR ")})`,
      "number",
    ),
  ),
  // type conversion (never failing, as SQLite's CAST: NULL where ClickHouse's would throw)
  tostring: def(1, 1, (c) => c.arg(0, "string")),
  toint: def(1, 1, (c) => asInteger(c.arg(0, "raw"))),
  tointornull: def(1, 1, (c) => asInteger(c.arg(0, "raw"))),
  tofloat: def(1, 1, (c) => typed(`accurateCastOrNull(${c.arg(0, "value").sql}, 'Float64')`, "number")),
  tofloatornull: def(1, 1, (c) => typed(`accurateCastOrNull(${c.arg(0, "value").sql}, 'Float64')`, "number")),
  tobool: toBool,
  jsonextractstring: jsonExtract("Nullable(String)", "string"),
  jsonextractint: jsonExtract("Nullable(Int64)", "number"),
  jsonextractfloat: jsonExtract("Nullable(Float64)", "number"),
  jsonextractraw: def(2, 20, (c) => typed(`JSONExtractRaw(${c.arg(0, "raw").sql}, ${jsonKeys(c)})`, "string")),
  jsonhas: def(2, 20, (c) => typed(`JSONHas(${c.arg(0, "raw").sql}, ${jsonKeys(c)})`, "number")),
  jsonlength: def(1, 20, (c) =>
    typed(`JSONLength(${c.arg(0, "raw").sql}${c.nodes.length > 1 ? `, ${jsonKeys(c)}` : ""})`, "number"),
  ),
  // strings (lengths and offsets in characters, as SQLite counts them)
  lower: plain("lower", 1, 1, "string", "string"),
  upper: plain("upper", 1, 1, "string", "string"),
  lowerutf8: plain("lowerUTF8", 1, 1, "string", "string"),
  upperutf8: plain("upperUTF8", 1, 1, "string", "string"),
  length: def(1, 1, (c) => {
    const value = c.arg(0, "raw");
    return value.type === "array"
      ? typed(`length(${value.sql})`, "number")
      : typed(`lengthUTF8(${coerce(value, "string").sql})`, "number");
  }),
  concat,
  substring: def(2, 3, (c) =>
    typed(`substringUTF8(${[c.arg(0, "string"), ...c.args("number", 1)].map((t) => t.sql).join(", ")})`, "string"),
  ),
  replaceall: plain("replaceAll", 3, 3, "string", "string"),
  replace: plain("replaceAll", 3, 3, "string", "string"),
  replaceone: plain("replaceOne", 3, 3, "string", "string"),
  trim: plain("trimBoth", 1, 1, "string", "string"),
  trimleft: plain("trimLeft", 1, 1, "string", "string"),
  trimright: plain("trimRight", 1, 1, "string", "string"),
  position: plain("positionUTF8", 2, 2, "string", "number"),
  startswith: plain("startsWith", 2, 2, "string", "number"),
  endswith: plain("endsWith", 2, 2, "string", "number"),
  empty: emptiness(false),
  notempty: emptiness(true),
  // math
  abs: plain("abs", 1, 1, "number", "number"),
  round: plain("round", 1, 2, "number", "number"),
  floor: plain("floor", 1, 1, "number", "number"),
  ceil: plain("ceil", 1, 1, "number", "number"),
  sqrt: plain("sqrt", 1, 1, "number", "number"),
  pow: plain("pow", 2, 2, "number", "number"),
  power: plain("pow", 2, 2, "number", "number"),
  exp: plain("exp", 1, 1, "number", "number"),
  log: plain("log", 1, 1, "number", "number"),
  log10: plain("log10", 1, 1, "number", "number"),
  intdiv: plain("intDiv", 2, 2, "number", "number"),
  greatest: def(2, 99, (c) => {
    const values = unified(c);
    return typed(`greatest(${list(values)})`, typeOf(values));
  }),
  least: def(2, 99, (c) => {
    const values = unified(c);
    return typed(`least(${list(values)})`, typeOf(values));
  }),
  // lifted on ClickHouse: arrays and tuples
  tuple: def(1, 99, (c) => typed(`tuple(${list(c.args("value"))})`, "unknown")),
  has: inArray("has", "number"),
  indexof: inArray("indexOf", "number"),
  hasany: plain("hasAny", 2, 2, "array", "number"),
  hasall: plain("hasAll", 2, 2, "array", "number"),
  arrayconcat: plain("arrayConcat", 1, 99, "array", "array"),
  arrayslice: def(2, 3, (c) =>
    typed(`arraySlice(${[c.arg(0, "array"), ...c.args("number", 1)].map((t) => t.sql).join(", ")})`, "array"),
  ),
  arrayreverse: plain("arrayReverse", 1, 1, "array", "array"),
  arraysort: plain("arraySort", 1, 1, "array", "array"),
  arraydistinct: plain("arrayDistinct", 1, 1, "array", "array"),
  arrayuniq: plain("arrayUniq", 1, 1, "array", "number"),
  arraystringconcat: def(1, 2, (c) =>
    typed(`arrayStringConcat(${[c.arg(0, "array"), ...c.args("string", 1)].map((t) => t.sql).join(", ")})`, "string"),
  ),
  splitbychar: def(2, 2, (c) =>
    typed(`splitByChar(${quoteString(literal(c, 0, "separator"))}, ${c.arg(1, "string").sql})`, "array"),
  ),
  splitbystring: def(2, 2, (c) =>
    typed(`splitByString(${quoteString(literal(c, 0, "separator"))}, ${c.arg(1, "string").sql})`, "array"),
  ),
  // lifted on ClickHouse: regular expressions (RE2)
  match: plain("match", 2, 2, "string", "number"),
  extract: plain("extract", 2, 2, "string", "string"),
  extractall: plain("extractAll", 2, 2, "string", "array"),
  replaceregexpall: plain("replaceRegexpAll", 3, 3, "string", "string"),
  replaceregexpone: plain("replaceRegexpOne", 3, 3, "string", "string"),
};

/** toStartOfWeek's mode (0: weeks start on Sunday, as by default; 1: on Monday; ClickHouse's modes 0-9). */
function weekMode(c: CallContext): string {
  const node = c.nodes[1];
  if (node?.node !== "Constant" || !Number.isInteger(node.value) || node.value < 0 || node.value > 9)
    return refuse(`${c.name}: the week mode must be an integer literal from 0 to 9`);
  return String(node.value);
}

export function clickhouseCall(c: CallContext): Typed {
  const fn = CLICKHOUSE_FUNCTIONS[c.name.toLowerCase()];
  if (!fn) return refuse(`Unsupported function: ${c.name}`);
  if (c.nodes.length < fn.min || c.nodes.length > fn.max)
    refuse(`${c.name} takes ${fn.min === fn.max ? fn.min : `${fn.min} to ${fn.max}`} argument(s)`);
  return fn.print(c);
}
