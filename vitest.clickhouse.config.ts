import { defineConfig } from "vitest/config";

// The ClickHouse suite (`npm run test:clickhouse`): Node drives local-clickhouse (chdb, installed apart with
// `npm run clickhouse:install`), or the server named by CLICKHOUSE_URL, through @clickhouse/client-web.
export default defineConfig({
  test: {
    name: "clickhouse",
    include: ["test/clickhouse/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/clickhouse/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
