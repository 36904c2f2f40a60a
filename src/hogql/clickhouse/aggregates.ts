import { refuse } from "../errors";
import { coerce, jsonAsNumber, jsonAsResult, jsonAsString, type Typed, type ValueType } from "./values";

/**
 * An aggregate call: its arguments (printed raw: each aggregate reads a property as it needs), whether
 * it is DISTINCT, and the condition of an -If combinator (`countIf`, FILTER (WHERE ...)) when it has one.
 */
interface AggregateCall {
  name: string;
  args: Typed[];
  distinct: boolean;
  condition?: string;
}

interface AggregateDef {
  min: number;
  max: number;
  print(c: AggregateCall): Typed;
}

const typed = (sql: string, type: ValueType): Typed => ({ sql, type });
/** `fn(args)` or, with a condition, `fnIf(args, condition)` (ClickHouse's -If combinator). */
function call(fn: string, c: AggregateCall, args: string[], type: ValueType): Typed {
  const all = c.condition === undefined ? args : [...args, c.condition];
  return typed(
    `${fn}${c.condition === undefined ? "" : "If"}(${c.distinct ? "DISTINCT " : ""}${all.join(", ")})`,
    type,
  );
}
const and = (c: AggregateCall, extra: string) => (c.condition === undefined ? extra : `(${extra} AND ${c.condition})`);

/** The aggregate of one value read as `want` (a property as its string form, or as a number). */
const over = (fn: string, want: "value" | "number", type: ValueType): AggregateDef => ({
  min: 1,
  max: 1,
  print: (c) => call(fn, c, [coerce(c.args[0], want).sql], type),
});

/**
 * min/max of a property: SQLite orders JSON values by type (numbers by value, then text), so these
 * pick the raw value with the least/greatest (is text, number, text) key, skipping missing values;
 * the result is still the property's JSON, read as each context needs (a number stays a number).
 */
const extreme = (fn: "min" | "max"): AggregateDef => ({
  min: 1,
  max: 1,
  print: (c: AggregateCall) => {
    const [value] = c.args;
    if (value.type !== "json") return call(fn, c, [value.sql], value.type);
    const n = jsonAsNumber(value.sql);
    const s = jsonAsString(value.sql);
    const key = `(isNull(${n}), ifNull(${n}, 0), ifNull(${s}, ''))`;
    return typed(
      `${fn === "min" ? "argMinIf" : "argMaxIf"}(${value.sql}, ${key}, ${and(c, `isNotNull(${s})`)})`,
      "json",
    );
  },
});

/** The aggregates a query may call, each also with the -If combinator. */
export const CLICKHOUSE_AGGREGATES: Record<string, AggregateDef> = {
  count: {
    min: 0,
    max: 1,
    print: (c) =>
      call(
        "count",
        c,
        c.args.map((t) => coerce(t, "value").sql),
        "number",
      ),
  },
  uniq: over("uniq", "value", "number"),
  uniqexact: over("uniqExact", "value", "number"),
  sum: over("sum", "number", "number"),
  avg: over("avg", "number", "number"),
  min: extreme("min"),
  max: extreme("max"),
  any: {
    min: 1,
    max: 1,
    print: (c) => {
      const [value] = c.args;
      if (value.type !== "json") return call("any", c, [value.sql], value.type);
      return typed(`anyIf(${value.sql}, ${and(c, `isNotNull(${jsonAsString(value.sql)})`)})`, "json");
    },
  },
  // Typed values, as D1's json_group_array keeps them.
  grouparray: {
    min: 1,
    max: 1,
    print: (c) => {
      const [value] = c.args;
      return call("groupArray", c, [value.type === "json" ? jsonAsResult(value.sql) : value.sql], "array");
    },
  },
  // lifted on ClickHouse
  groupuniqarray: over("groupUniqArray", "value", "array"),
  median: over("median", "number", "number"),
  argmin: { min: 2, max: 2, print: (c) => call("argMin", c, argThenKey(c), c.args[0].type) },
  argmax: { min: 2, max: 2, print: (c) => call("argMax", c, argThenKey(c), c.args[0].type) },
};

/** argMin/argMax: the value as it is (a property stays JSON), ordered by the key read as a number or a string. */
const argThenKey = (c: AggregateCall) => [
  c.args[0].sql,
  coerce(c.args[1], c.args[1].type === "json" ? "number" : "value").sql,
];

/** The aggregate `name` names, and whether it carries PostHog's -If combinator. */
export function aggregateOf(name: string): { key: string; conditional: boolean } | undefined {
  const key = name.toLowerCase();
  if (key in CLICKHOUSE_AGGREGATES) return { key, conditional: false };
  if (key.endsWith("if") && key.slice(0, -2) in CLICKHOUSE_AGGREGATES)
    return { key: key.slice(0, -2), conditional: true };
  return undefined;
}

/** Prints an aggregate; for an -If name, the last argument is the condition (already printed as one). */
export function clickhouseAggregate(
  name: string,
  args: Typed[],
  condition: string | undefined,
  distinct: boolean,
): Typed {
  const found = aggregateOf(name) ?? refuse(`Unsupported function: ${name}`);
  const def = CLICKHOUSE_AGGREGATES[found.key];
  if (args.length < def.min || args.length > def.max)
    refuse(
      `${name} takes ${def.min === def.max ? def.min : `${def.min} to ${def.max}`} argument(s)${condition === undefined ? "" : " plus a condition"}`,
    );
  return def.print({ name, args, distinct, condition });
}
