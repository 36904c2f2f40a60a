import type { ClickHouseClient } from "@clickhouse/client-web";

/** An ISO 8601 time bound as the parameter `{name:String}` (never spliced) and read as UTC DateTime64. */
export const timeParam = (name: string) => `parseDateTime64BestEffort({${name}:String}, 6, 'UTC')`;

/** The rows of a query with bound parameters, 64-bit integers as JSON numbers (counts, milliseconds). */
export async function queryRows<T>(client: ClickHouseClient, query: string, params: Record<string, unknown>) {
  const result = await client.query({
    query,
    query_params: params,
    format: "JSONEachRow",
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  return result.json<T>();
}
