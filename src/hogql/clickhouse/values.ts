import { TIMEZONE_PARAM } from "./sql";

/**
 * What the ClickHouse printer knows of an expression's type. ClickHouse is strictly typed where
 * SQLite is not, so operands are converted where HogQL (and D1) would compare or compute them
 * anyway: a property read against a number is read as a number, a string against a time is parsed
 * as a time, and so on.
 *
 * `json` is a property read: the value's JSON text (`JSONExtractRaw`: `"Chrome"`, `7`, '' when the
 * property is missing). Every form of it is a function of that text, so a query grouped by a
 * property can still select, compare or order by any form of it:
 * - as a string: strings unquoted, other values as their JSON text, missing or null as NULL;
 * - as a number: numbers, numeric strings and booleans (1/0) as Float64, anything else NULL;
 * - as a result column: a Dynamic, so a number comes back a number and a string a string, as D1's
 *   json_extract returns them.
 */
export type ValueType =
  "string" | "number" | "datetime" | "date" | "uuid" | "json" | "array" | "interval" | "null" | "unknown";

export interface Typed {
  sql: string;
  type: ValueType;
}

/** What a context needs of an operand. `raw` keeps a property's JSON text; `value` reads it as a string. */
export type Want = "string" | "number" | "datetime" | "date" | "condition" | "array" | "raw" | "value";

export const jsonAsString = (raw: string) => `JSONExtract(${raw}, 'Nullable(String)')`;
export const jsonAsNumber = (raw: string) => `JSONExtract(${raw}, 'Nullable(Float64)')`;
// A Dynamic or an Array cannot be Nullable: a property of a LEFT JOIN's missing side (NULL) reads as missing ('').
export const jsonAsResult = (raw: string) => `JSONExtract(ifNull(${raw}, ''), 'Dynamic')`;
const jsonAsArray = (raw: string) => `JSONExtract(ifNull(${raw}, ''), 'Array(Nullable(String))')`;
/** Text as a time: ISO 8601 and the usual forms; a time without a zone is in the project's zone. */
export const parseDateTime = (text: string, zone = TIMEZONE_PARAM) =>
  `parseDateTime64BestEffortOrNull(${text}, 6, ${zone})`;

/** `t` as the context wants it. */
export function coerce(t: Typed, want: Want): Typed {
  if (t.type === "null" || t.type === "unknown") return t;
  switch (want) {
    case "raw":
      return t;
    case "value":
      return t.type === "json" ? { sql: jsonAsString(t.sql), type: "string" } : t;
    case "string":
      if (t.type === "json") return { sql: jsonAsString(t.sql), type: "string" };
      return t.type === "string" ? t : { sql: `toString(${t.sql})`, type: "string" };
    case "number":
      if (t.type === "json") return { sql: jsonAsNumber(t.sql), type: "number" };
      return t.type === "string" ? { sql: `toFloat64OrNull(${t.sql})`, type: "number" } : t;
    case "datetime":
      if (t.type === "json") return { sql: parseDateTime(jsonAsString(t.sql)), type: "datetime" };
      return t.type === "string" ? { sql: parseDateTime(t.sql), type: "datetime" } : t;
    case "date": {
      if (t.type !== "json" && t.type !== "string") return t;
      return { sql: `toDate(${coerce(t, "datetime").sql})`, type: "date" };
    }
    case "condition":
      // As SQLite reads a value as a condition: a number is true unless 0; text that is not a number is false.
      return t.type === "json" || t.type === "string"
        ? { sql: `(${coerce(t, "number").sql} != 0)`, type: "number" }
        : t;
    case "array":
      return t.type === "json" ? { sql: jsonAsArray(t.sql), type: "array" } : t;
  }
}

/** A result column: a property read comes back typed (a Dynamic), as D1 returns JSON values. */
export const asResult = (t: Typed): Typed => (t.type === "json" ? { sql: jsonAsResult(t.sql), type: "json" } : t);

const WANT_OF: Partial<Record<ValueType, Want>> = {
  string: "string",
  number: "number",
  datetime: "datetime",
  date: "date",
  array: "array",
};

/**
 * Operands that must share a type (the branches of if/coalesce/multiIf, greatest/least, an IN
 * list): property reads take the type of the others, strings become times next to a time; all
 * properties read as strings.
 */
export function unify(operands: Typed[]): Typed[] {
  const known = operands.find((t) => !["json", "null", "unknown"].includes(t.type));
  const target: Want = (known && WANT_OF[known.type]) ?? "string";
  return operands.map((t) =>
    t.type === "json" || (t.type === "string" && (target === "datetime" || target === "date")) ? coerce(t, target) : t,
  );
}

/**
 * The two sides of a comparison, converted as HogQL compares them: a property against a number is a
 * number, against a time a time; a string against a time is parsed, against a number read as one;
 * a uuid against a string is its text; two properties compare as strings.
 */
export function comparable(left: Typed, right: Typed): [Typed, Typed] {
  const convert = (side: Typed, other: Typed): Typed => {
    if (side.type === "json") {
      if (other.type === "json" || other.type === "uuid") return coerce(side, "string");
      return coerce(side, WANT_OF[other.type] ?? "value");
    }
    if (side.type === "string" && (other.type === "datetime" || other.type === "date")) return coerce(side, other.type);
    if (side.type === "string" && other.type === "number") return coerce(side, "number");
    if (side.type === "uuid" && (other.type === "string" || other.type === "json")) return coerce(side, "string");
    return side;
  };
  return [convert(left, right), convert(right, left)];
}

/**
 * A value as an integer, never failing, as SQLite's CAST(x AS INTEGER) truncates: 2.7 and '7.5' are 2
 * and 7 (ClickHouse's accurate cast alone answers NULL for them); NULL where it is no number.
 */
export function asInteger(t: Typed): Typed {
  if (t.type === "number") return { sql: `accurateCastOrNull(trunc(${t.sql}), 'Int64')`, type: "number" };
  if (t.type !== "string" && t.type !== "json") return { sql: `accurateCastOrNull(${t.sql}, 'Int64')`, type: "number" };
  const s = coerce(t, "string").sql;
  return {
    sql: `ifNull(toInt64OrNull(${s}), accurateCastOrNull(trunc(toFloat64OrNull(${s})), 'Int64'))`,
    type: "number",
  };
}
