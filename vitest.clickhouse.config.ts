import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { CLICKHOUSE_TEST_SERVER } from "./test/clickhouse/test-server";
import { TEST_ROOT_API_KEY } from "./vitest.config";

// The ClickHouse suite (`npm run test:clickhouse`), against local-clickhouse (chdb, installed apart with
// `npm run clickhouse:install`) or the server named by CLICKHOUSE_URL:
//   clickhouse          Node drives the server through @clickhouse/client-web (schema, HTTP interface, HogQL);
//   clickhouse-worker   the worker in workerd, configured with CLICKHOUSE_URL, on real local D1, KV, Queues and
//                       Durable Objects: capture through the events queue, endpoint runs, persons on ClickHouse.
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "drizzle"));
  const globalSetup = ["./test/clickhouse/global-setup.ts"];
  return {
    test: {
      testTimeout: 60_000,
      hookTimeout: 120_000,
      projects: [
        {
          test: {
            name: "clickhouse",
            include: ["test/clickhouse/**/*.test.ts"],
            exclude: ["test/clickhouse/worker/**", "test/clickhouse/interop/**"],
            environment: "node",
            globalSetup,
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  ROOT_API_KEY: TEST_ROOT_API_KEY,
                  CLICKHOUSE_URL: CLICKHOUSE_TEST_SERVER.url,
                  CLICKHOUSE_DATABASE: CLICKHOUSE_TEST_SERVER.workerDatabase,
                  TEST_DEPLOYMENT_ID: CLICKHOUSE_TEST_SERVER.workerDeployment,
                },
                queueProducers: { EVENTS_QUEUE: { queueName: "edgehog-events" } },
                queueConsumers: {
                  "edgehog-events": {
                    maxBatchSize: 100,
                    maxBatchTimeout: 0,
                    maxRetries: 3,
                    deadLetterQueue: "edgehog-events-dlq",
                  },
                },
              },
            }),
          ],
          test: {
            name: "clickhouse-worker",
            // Tests wait for the events queue to deliver into ClickHouse.
            testTimeout: 60_000,
            // The endpoint suites run here too (all but the two about SQLite itself): the same expectations on ClickHouse.
            include: [
              "test/clickhouse/worker/**/*.test.ts",
              "test/endpoints/run.test.ts",
              "test/endpoints/materialization.test.ts",
              "test/endpoints/crud.test.ts",
              "test/endpoints/concurrency.test.ts",
              "test/endpoints/insights.test.ts",
              // The persons analysis views on ClickHouse must answer as on D1: the same hand-worked,
              // randomized and PostHog conformance suites (their fixtures seed both engines; captures
              // wait for the queue). query-plan.test.ts is about SQLite's plans only.
              "test/persons-analysis/*.test.ts",
              "test/conformance/posthog-funnel.test.ts",
              "test/conformance/posthog-funnel-*.test.ts",
              "test/conformance/posthog-lifecycle*.test.ts",
              "test/conformance/posthog-stickiness*.test.ts",
              "test/conformance/posthog-retention.test.ts",
              "test/conformance/posthog-trends*.test.ts",
              // Insights answer the same numbers on ClickHouse.
              "test/insights/*.test.ts",
              // The persons list reads the persons mirror for searches and filters: the same persons in
              // the same order as on D1 (list-plan.test.ts is about SQLite's plans only).
              "test/persons/read.test.ts",
              "test/persons/search-index.test.ts",
              "test/persons/property-index.test.ts",
              "test/persons/list-count.test.ts",
              "test/cohorts/cohorts.test.ts",
              // Oversized filters and unevaluable cohorts answer 4xx on the ClickHouse paths as well.
              "test/filters/limits.test.ts",
              "test/cohorts/unevaluable.test.ts",
              "test/fuzz/schema-fuzz.test.ts",
            ],
            exclude: ["test/persons-analysis/query-plan.test.ts"],
            setupFiles: ["./test/setup/apply-migrations.ts", "./test/clickhouse/worker/setup.ts"],
            globalSetup,
          },
        },
        {
          // posthog-node against a real `wrangler dev` configured as a ClickHouse deployment (events queue included).
          test: {
            name: "clickhouse-interop",
            include: ["test/clickhouse/interop/**/*.test.ts"],
            environment: "node",
            globalSetup: [...globalSetup, "./test/clickhouse/interop/global-setup.ts"],
            testTimeout: 120_000,
            hookTimeout: 180_000,
          },
        },
      ],
    },
  };
});
