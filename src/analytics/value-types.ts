import type { Cell } from "./queries";

/**
 * PostHog's type name for a column whose values carry their own type (SQLite's, and a ClickHouse
 * property read as a Dynamic): from its first non-NULL value.
 */
export function typeOfValues(values: Cell[]): string {
  const sample = values.find((v) => v !== null && v !== undefined);
  if (sample === undefined) return "Nullable(Nothing)";
  if (typeof sample === "number") return Number.isInteger(sample) ? "Int64" : "Float64";
  if (typeof sample === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(sample))
    return "DateTime64(3, 'UTC')";
  if (typeof sample === "string" && /^\d{4}-\d\d-\d\d$/.test(sample)) return "Date";
  return "String";
}

/** SQLite values carry their own type; name them as PostHog's types do. */
export const typesOf = (columns: string[], rows: Cell[][]): [string, string][] =>
  columns.map((name, i) => [name, typeOfValues(rows.map((r) => r[i]))]);
