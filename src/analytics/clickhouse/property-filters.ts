import {
  COMPARISONS,
  filterDate,
  filterNumber,
  filterValues,
  type FilterGroup,
  isGroup,
  parseFilterGroup,
  type PropertyFilter,
  regexGlobs,
} from "../../shared/filters";
import type { ClickHouseParams } from "./params";

/**
 * PostHog property filters compiled to ClickHouse SQL over JSON text columns, with D1's answers
 * (src/shared/filters/compile.ts) for every operator: the same text form of a value, the same
 * treatment of unset properties, the same regular expressions accepted. Keys and values are bound
 * parameters.
 */

/** SQL expressions a filter reads: the event's properties (JSON text), its person's properties (JSON text), the person's uuid. */
export interface ClickHouseFilterColumns {
  event: string;
  person: string;
  personId: string;
  /**
   * Hashes of the person's set property keys and of each key with its text (the mirror's
   * `property_keys` and `property_values`, clickhouse/migrations/0005): when given, `is_set`,
   * `exact`, `in` and their negations read these instead of parsing the JSON.
   */
  personHashes?: { keys: string; values: string };
}

/** "person is in cohort N" over these columns (cohorts.ts). */
export type ClickHouseCohorts = (
  cohortId: number,
  columns: ClickHouseFilterColumns,
  params: ClickHouseParams,
) => string;

/** SQL boolean for a filter list (ANDed) or a `{type, values}` group; `1` when `tree` is undefined. */
export function propertiesSql(
  tree: unknown,
  columns: ClickHouseFilterColumns,
  params: ClickHouseParams,
  attr: string,
  cohorts: ClickHouseCohorts,
): string {
  if (tree === undefined) return "1";
  return groupSql(parseFilterGroup(tree, attr, "event"), columns, params, cohorts);
}

/** A parsed filter group (cohort definitions compile theirs through here too). */
export function groupSql(
  group: FilterGroup,
  columns: ClickHouseFilterColumns,
  params: ClickHouseParams,
  cohorts: ClickHouseCohorts,
): string {
  const parts = group.values.map((node) =>
    isGroup(node) ? groupSql(node, columns, params, cohorts) : filterSql(node, columns, params, cohorts),
  );
  if (!parts.length) return "1";
  return `(${parts.join(group.type === "OR" ? " OR " : " AND ")})`;
}

/** Whether a top-level key is present and not JSON null (ClickHouse's JSONType says Null for both). */
export const jsonIsSet = (column: string, key: string) => `(JSONType(${column}, ${key}) != 'Null')`;

/**
 * PostHog's text form of a top-level key: booleans `true`/`false`, strings as themselves, numbers,
 * objects and arrays as JSON; NULL when missing or JSON null.
 */
export const jsonText = (column: string, key: string) =>
  `multiIf(JSONType(${column}, ${key}) = 'Null', NULL, JSONType(${column}, ${key}) = 'String',` +
  ` JSONExtractString(${column}, ${key}), JSONExtractRaw(${column}, ${key}))`;

function filterSql(
  f: PropertyFilter,
  columns: ClickHouseFilterColumns,
  params: ClickHouseParams,
  cohorts: ClickHouseCohorts,
): string {
  if (f.kind === "cohort") {
    const member = cohorts(f.value as number, columns, params);
    return f.negation ? `NOT ${member}` : member;
  }
  if (f.kind === "person" && columns.personHashes) {
    const hashed = hashedFilterSql(f, columns.personHashes, params);
    if (hashed) return hashed;
  }
  const column = f.kind === "person" ? columns.person : columns.event;
  const key = params.text(f.key);
  const type = `JSONType(${column}, ${key})`;
  const text = jsonText(column, key);
  const isSet = jsonIsSet(column, key);
  const values = filterValues(f);
  // Negative operators also match when the property is not set (PostHog's ifNull(..., 1)).
  const negate = (positive: string) => `(NOT ${isSet} OR NOT ${positive})`;
  const among = () => `has(${params.bind(values, "Array(String)")}, ${text})`;
  // One value inline; several as one array (a term per value would grow the statement past ClickHouse's AST limit).
  const anyValue = (list: string[], test: (value: string) => string) =>
    list.length === 1
      ? test(params.text(list[0]))
      : `arrayExists(filter_value -> ${test("filter_value")}, ${params.bind(list, "Array(String)")})`;
  // SQLite's LIKE, as D1 compares: case-insensitive for ASCII letters only, as positionCaseInsensitive.
  const contains = () => anyValue(values, (v) => `(positionCaseInsensitive(${text}, ${v}) > 0)`);
  // The GLOB patterns D1 runs (the same patterns refused), matched as anchored RE2 expressions.
  const matches = () => anyValue(values.flatMap((v) => regexGlobs(v)).map(globToRegex), (r) => `match(${text}, ${r})`);

  switch (f.operator) {
    case "exact":
    case "in":
      return `(${among()})`;
    case "is_not":
    case "not_in":
      return negate(`(${among()})`);
    case "icontains":
      return contains();
    case "not_icontains":
      return negate(contains());
    case "regex":
      return matches();
    case "not_regex":
      return negate(matches());
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const n = filterNumber(f.operator, values);
      const op = COMPARISONS[f.operator];
      const trimmed = `trimBoth(JSONExtractString(${column}, ${key}))`;
      // Numbers, and text that looks numeric once trimmed (D1: only digits, dots, signs and exponents).
      const numeric =
        `multiIf(${type} IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(${column}, ${key}),` +
        ` ${type} = 'String' AND ${trimmed} != '' AND match(${trimmed}, '^[0-9.eE+-]+$'), toFloat64OrNull(${trimmed}), NULL)`;
      return `(${numeric} ${op} ${params.bind(n, "Float64")})`;
    }
    case "is_set":
      return isSet;
    case "is_not_set":
      return `(NOT ${isSet})`;
    case "is_date_exact":
    case "is_date_before":
    case "is_date_after": {
      const when = filterDate(f.operator, values);
      const raw = `JSONExtractFloat(${column}, ${key})`;
      const textValue = `JSONExtractString(${column}, ${key})`;
      // Numbers are unix seconds (milliseconds when that large); text in the forms SQLite's unixepoch reads.
      const seconds =
        `multiIf(${type} IN ('Int64', 'UInt64', 'Double'), if(${raw} > 100000000000, ${raw} / 1000, ${raw}),` +
        ` ${type} = 'String' AND match(${textValue}, ${params.text(SQLITE_DATE)}),` +
        ` toFloat64(toUnixTimestamp(parseDateTimeBestEffortOrNull(${textValue}, 'UTC'))), NULL)`;
      if (f.operator === "is_date_exact") {
        return when.dateOnly
          ? `(toString(toDate(toDateTime64(${seconds}, 3, 'UTC'))) = ${params.text(when.iso.slice(0, 10))})`
          : `(${seconds} = ${params.bind(Math.floor(when.ms / 1000), "Float64")})`;
      }
      const bound = params.bind(when.ms / 1000, "Float64");
      return f.operator === "is_date_before" ? `(${seconds} < ${bound})` : `(${seconds} > ${bound})`;
    }
  }
}

/**
 * A person filter answered from the property hashes (ClickHouseFilterColumns.personHashes), or
 * undefined for an operator they cannot answer. A hash stands for its key and text exactly but for
 * a collision of 64-bit hashes; D1, reading the persons it shows, re-checks them anyway.
 */
function hashedFilterSql(
  f: PropertyFilter,
  hashes: { keys: string; values: string },
  params: ClickHouseParams,
): string | undefined {
  // Bound only for an operator answered here (one branch below reads it).
  const isSet = () => `has(${hashes.keys}, cityHash64(${params.text(f.key)}))`;
  const among = () =>
    `hasAny(${hashes.values}, arrayMap(filter_value -> cityHash64(${params.text(f.key)}, filter_value), ${params.bind(filterValues(f), "Array(String)")}))`;
  switch (f.operator) {
    case "exact":
    case "in":
      return among();
    case "is_not":
    case "not_in":
      return `(NOT ${among()})`;
    case "is_set":
      return isSet();
    case "is_not_set":
      return `(NOT ${isSet()})`;
    default:
      return undefined;
  }
}

/** The date texts SQLite's unixepoch reads: a date, optionally a time (`T` or space), optionally a zone. */
const SQLITE_DATE = "^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?)?([zZ]|[+-]\\d{2}:\\d{2})?$";

/**
 * A SQLite GLOB pattern as an RE2 expression with the same meaning: anchored at both ends, `*` any
 * run, `?` any one character (newlines included, hence `(?s)`), `[...]` a class, the rest literal.
 */
export function globToRegex(glob: string): string {
  let out = "(?s)^";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      // A class runs to the next `]` that is not its first member (`[]...]` and `[^]...]` hold a `]`).
      let j = i + 1;
      if (glob[j] === "^") j++;
      if (glob[j] === "]") j++;
      while (j < glob.length && glob[j] !== "]") j++;
      const body = glob.slice(i + 1, j);
      const negated = body.startsWith("^");
      const members = (negated ? body.slice(1) : body).replace(/[\\\][^]/g, (m) => `\\${m}`);
      out += `[${negated ? "^" : ""}${members}]`;
      i = j;
    } else out += c.replace(/[\\.+*?()|[\]{}^$]/g, (m) => `\\${m}`);
  }
  return `${out}$`;
}
