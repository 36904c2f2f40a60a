import { sql, type SQL } from "drizzle-orm";
import { validationError } from "../../lib/errors";
import { containsText } from "../../lib/contains-text";
import { jsonPathKey } from "../../lib/json";
import { quoteString } from "../../lib/sql";
import { excerpt } from "../../lib/text";
import { relativeDate } from "./dates";
import { regexToGlobs, UnsupportedRegex } from "./regex";
import { isGroup, type FilterGroup, type PropertyFilter } from "./types";

/**
 * Where the filters are evaluated. `personProperties` / `eventProperties` are the SQL expressions of
 * the JSON columns (e.g. sql`persons.properties` or sql`e.properties`); a filter whose kind has no
 * column is refused. `personId` is the person id expression cohort filters test membership of.
 */
export interface FilterTarget {
  personProperties?: SQL;
  eventProperties?: SQL;
  personId?: SQL;
}

/** How a cohort filter turns into SQL; supplied by the caller (see cohorts/membership.ts). */
export type CohortSql = (cohortId: number, personId: SQL) => SQL;

export function compileFilterGroup(group: FilterGroup, target: FilterTarget, cohortSql: CohortSql): SQL {
  const parts = group.values.map((node) =>
    isGroup(node) ? compileFilterGroup(node, target, cohortSql) : compileFilter(node, target, cohortSql),
  );
  if (!parts.length) return sql`1`;
  return sql`(${sql.join(parts, group.type === "OR" ? sql` OR ` : sql` AND `)})`;
}

function compileFilter(f: PropertyFilter, target: FilterTarget, cohortSql: CohortSql): SQL {
  if (f.kind === "cohort") {
    if (!target.personId) throw validationError("Cohort filters are not supported here.", "properties");
    const member = cohortSql(f.value as number, target.personId);
    return f.negation ? sql`NOT ${member}` : member;
  }
  const column = f.kind === "person" ? target.personProperties : target.eventProperties;
  if (!column) throw validationError(`Filters on ${f.kind} properties are not supported here.`, "properties");
  // The path as a SQL text literal (not a parameter: it appears several times below).
  const path = sql.raw(quoteString(`$${jsonPathKey(f.key)}`));
  const type = sql`json_type(${column}, ${path})`;
  const raw = sql`json_extract(${column}, ${path})`;
  // The value as text the way PostHog compares it: booleans as true/false, numbers as written.
  const text = sql`(CASE ${type} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(${raw} AS TEXT) END)`;
  const isSet = sql`(${type} IS NOT NULL AND ${type} <> 'null')`;
  const values = filterValues(f);
  // Negative operators also match persons without the property (PostHog wraps them in ifNull(..., 1)).
  const negate = (positive: SQL) => sql`(NOT ${isSet} OR NOT ${positive})`;

  switch (f.operator) {
    case "exact":
    case "in":
      return sql`(${text} IN (SELECT value FROM json_each(${JSON.stringify(values)})))`;
    case "is_not":
    case "not_in":
      return negate(sql`(${text} IN (SELECT value FROM json_each(${JSON.stringify(values)})))`);
    case "icontains":
      return containsAny(text, values);
    case "not_icontains":
      return negate(containsAny(text, values));
    case "regex":
      return globsAny(text, values);
    case "not_regex":
      return negate(globsAny(text, values));
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const n = filterNumber(f.operator, values);
      const op = sql.raw(COMPARISONS[f.operator]);
      const numeric = sql`(CASE WHEN ${type} IN ('integer', 'real') THEN ${raw}
        WHEN ${type} = 'text' AND trim(${raw}) <> '' AND trim(${raw}) NOT GLOB '*[^0-9.eE+-]*' THEN CAST(trim(${raw}) AS REAL) END)`;
      return sql`(${numeric} ${op} ${n})`;
    }
    case "is_set":
      return isSet;
    case "is_not_set":
      return sql`(NOT ${isSet})`;
    case "is_date_exact":
    case "is_date_before":
    case "is_date_after": {
      const when = filterDate(f.operator, values);
      // Numbers are unix timestamps (seconds, or milliseconds when that large); text is parsed by SQLite.
      const seconds = sql`(CASE WHEN ${type} IN ('integer', 'real') THEN (CASE WHEN ${raw} > 100000000000 THEN ${raw} / 1000.0 ELSE ${raw} END)
        WHEN ${type} = 'text' THEN unixepoch(replace(${raw}, ' ', 'T')) END)`;
      if (f.operator === "is_date_exact") {
        return when.dateOnly
          ? sql`(date(${seconds}, 'unixepoch') = ${when.iso.slice(0, 10)})`
          : sql`(${seconds} = ${Math.floor(when.ms / 1000)})`;
      }
      return f.operator === "is_date_before"
        ? sql`(${seconds} < ${when.ms / 1000})`
        : sql`(${seconds} > ${when.ms / 1000})`;
    }
  }
}

/*
 * What every engine's compiler reads from a filter the same way (src/analytics/clickhouse/property-filters.ts
 * compiles for ClickHouse): its values as the texts PostHog compares, and the number or date of a
 * comparison, with the same 400 when there is none.
 */

/** A filter's value(s) as texts: strings as they are, anything else as JSON. */
export const filterValues = (f: PropertyFilter): string[] =>
  (Array.isArray(f.value) ? f.value : [f.value]).map((v) => (typeof v === "string" ? v : JSON.stringify(v)));

export const COMPARISONS = { gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;

/** The number a gt/gte/lt/lte filter compares with. */
export function filterNumber(operator: string, values: string[]): number {
  const n = Number(values[0]);
  if (values[0] === "" || !Number.isFinite(n))
    throw validationError(`The value of a ${operator} filter must be a number.`, "properties");
  return n;
}

/** The date an is_date_* filter compares with (relative dates counted back from now). */
export function filterDate(operator: string, values: string[]) {
  const when = relativeDate(values[0]);
  if (!when) throw validationError(`The value of a ${operator} filter must be a date.`, "properties");
  return when;
}

/*
 * Contains as search boxes do it (containsText: no LIKE pattern, which D1 refuses over 50 bytes).
 * Several values travel as one JSON parameter, whatever their number, since D1 binds at most 100
 * parameters to a statement.
 */
const containsAny = (text: SQL, values: string[]) => anyValue(values, (v) => containsText(text, v));
const globsAny = (text: SQL, values: string[]) =>
  anyValue(
    values.flatMap((v) => regexGlobs(v)),
    (g) => sql`${text} GLOB ${g}`,
  );

function anyValue(values: string[], test: (value: SQL) => SQL): SQL {
  if (values.length === 1) return sql`(${test(sql`${values[0]}`)})`;
  return sql`EXISTS (SELECT 1 FROM json_each(${JSON.stringify(values)}) filter_value WHERE ${test(sql.raw("filter_value.value"))})`;
}

/**
 * A regex filter's pattern as GLOB patterns (regex.ts), or the 400 naming it when it uses what the
 * translation cannot express. Every engine refuses the same patterns, so a filter means the same.
 */
export function regexGlobs(pattern: string): string[] {
  try {
    return regexToGlobs(pattern);
  } catch (err) {
    if (err instanceof UnsupportedRegex) {
      throw validationError(
        `The regular expression "${excerpt(pattern)}" uses a feature this server cannot evaluate (${err.message}).`,
        "properties",
      );
    }
    throw err;
  }
}
