import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export const TEST_ROOT_API_KEY = "phx_test_root_key_for_vitest_only";
/** The one origin the worker tests' deployment lets browsers call the management API from. */
export const TEST_ADMIN_ORIGIN = "https://admin.example";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "drizzle"));
  return {
    test: {
      testTimeout: 60_000,
      hookTimeout: 120_000,
      // The conformance table (test/conformance/) is printed after every run that includes those suites.
      reporters: ["default", "./test/conformance/reporter.ts"],
      projects: [
        {
          // Worker tests: inside workerd, against real local D1, KV and Durable Objects.
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  ROOT_API_KEY: TEST_ROOT_API_KEY,
                  CORS_ALLOWED_ORIGINS: TEST_ADMIN_ORIGIN,
                },
              },
            }),
          ],
          test: {
            name: "worker",
            include: ["test/**/*.test.ts"],
            // Node-side suites: scripts and interop (below), ClickHouse (vitest.clickhouse.config.ts).
            exclude: ["test/interop/**", "test/scripts/**", "test/clickhouse/**"],
            setupFiles: ["./test/setup/apply-migrations.ts"],
          },
        },
        {
          // The operator scripts (scripts/), run as a user runs them, in Node.
          test: { name: "scripts", include: ["test/scripts/**/*.test.ts"], environment: "node" },
        },
        {
          // Interop tests: Node drives a real `wrangler dev` with official clients.
          test: {
            name: "interop",
            include: ["test/interop/**/*.test.ts"],
            environment: "node",
            globalSetup: ["./test/interop/global-setup.ts"],
            testTimeout: 120_000,
            hookTimeout: 180_000,
          },
        },
      ],
    },
  };
});
