import type { ClickHouseClient, ClickHouseSettings } from "@clickhouse/client-web";
import type { ClickHouseQuery } from "../../hogql/clickhouse/compile";
import { type ClickHouseRun, clickhouseParams } from "../../hogql/clickhouse/params";
import { HOGQL_SETTINGS } from "../../hogql/clickhouse/settings";
import type { Cell, QueryRows } from "../queries";
import { typeOfValues } from "../value-types";

/** How results come back: times as ISO 8601 in UTC, 64-bit integers as JSON numbers (as D1 answers). */
const OUTPUT_SETTINGS: ClickHouseSettings = {
  date_time_output_format: "iso",
  output_format_json_quote_64bit_integers: 0,
};

/**
 * Runs a HogQL query compiled for ClickHouse (src/hogql/clickhouse/) with its parameters bound
 * (never spliced into the text) and HOGQL_SETTINGS, answering rows in the shape D1's runner gives:
 * times as ISO 8601 UTC with milliseconds, dates as YYYY-MM-DD, booleans as 1/0, numbers as
 * numbers, arrays, maps and tuples as JSON text, a property column typed by its values.
 * Column types are ClickHouse's own, as PostHog reports them (a property column's from its values).
 */
export async function runHogQLOnClickHouse(
  client: ClickHouseClient,
  query: Pick<ClickHouseQuery, "sql" | "variables" | "variableParams" | "offset">,
  run: ClickHouseRun,
  settings: ClickHouseSettings = HOGQL_SETTINGS,
): Promise<QueryRows> {
  const result = await client.query({
    query: query.sql,
    format: "JSONCompact",
    query_params: clickhouseParams(query, run),
    clickhouse_settings: { ...settings, ...OUTPUT_SETTINGS },
  });
  const { meta = [], data } = await result.json<unknown[]>();
  const results = data.map((row) => row.map((value, i) => cellOf(value, meta[i].type)));
  const types = meta.map(({ name, type }, i): [string, string] => [
    name,
    baseType(type) === "Dynamic" ? typeOfValues(results.map((row) => row[i])) : type,
  ]);
  return { columns: meta.map((m) => m.name), types, results };
}

/** The type without Nullable(...) and LowCardinality(...) around it. */
function baseType(type: string): string {
  const wrapped = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(type);
  return wrapped ? baseType(wrapped[1]) : type;
}

/** One value of a JSONCompact result, in the form D1 answers it. */
export function cellOf(value: unknown, type: string): Cell {
  if (value === null || value === undefined) return null;
  const base = baseType(type);
  if (/^DateTime/.test(base)) return isoMilliseconds(String(value));
  if (typeof value === "boolean") return Number(value);
  if (/^(U?Int|Float|Decimal)/.test(base) && typeof value === "string") return Number(value);
  if (typeof value === "object") return JSON.stringify(value);
  return value as Cell;
}

/** `2026-01-05T10:15:00.123456Z` or `2026-01-05T10:15:00Z` (date_time_output_format=iso, always UTC) → `2026-01-05T10:15:00.123Z`. */
function isoMilliseconds(text: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(text);
  return m ? `${m[1]}.${(m[2] ?? "").slice(0, 3).padEnd(3, "0")}Z` : text;
}
