import { consumeRows } from "./analytics/clickhouse/consumer";
import type { ClickHouseRows } from "./analytics/clickhouse/rows";
import { createApp } from "./app";
import type { Env } from "./env";
import { scheduled } from "./scheduled";

export { EndpointMaterializer } from "./endpoints/materializer";

const app = createApp();

export default {
  fetch: app.fetch,
  scheduled,
  // The events queue (bound only in ClickHouse deployments): its batches go into ClickHouse.
  queue: consumeRows,
} satisfies ExportedHandler<Env, ClickHouseRows>;
