import { createClient } from "@clickhouse/client-web";
import { env } from "cloudflare:workers";

/** A client on the worker tests' ClickHouse database (the one the worker's CLICKHOUSE_* bindings name). */
export const clickhouse = () =>
  createClient({
    url: (env as unknown as { CLICKHOUSE_URL: string }).CLICKHOUSE_URL,
    database: (env as unknown as { CLICKHOUSE_DATABASE: string }).CLICKHOUSE_DATABASE,
  });
