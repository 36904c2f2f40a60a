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
        // A failed request is classified and answered (or retried by the queue), never hung on.
        request_timeout: 35_000,
        // Workers has its own connection reuse; the client's keep-alive header is refused by fetch there.
        keep_alive: { enabled: false },
      }),
    };
  }
  return cached.client;
}
