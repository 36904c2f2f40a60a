import { type ClickHouseClient, createClient } from "@clickhouse/client-web";
import type { ClickHouseConnection } from "../../lib/config";

let cached: { key: string; client: ClickHouseClient } | null = null;

/**
 * The official fetch-based client for the configured server. It holds no connection of its own (each
 * call is a fetch), so one per isolate serves every request; a changed setting makes a new one.
 */
export function clickhouseClient(connection: ClickHouseConnection): ClickHouseClient {
  const key = JSON.stringify(connection);
  if (cached?.key !== key) {
    cached = {
      key,
      client: createClient({
        url: connection.url,
        username: connection.username,
        password: connection.password,
        database: connection.database,
        // Just past HOGQL_SETTINGS' max_execution_time (30 s): the server ends a long query first, with its own error.
        request_timeout: 35_000,
      }),
    };
  }
  return cached.client;
}
