// The ClickHouse interop tests' worker: a real `wrangler dev` configured as a ClickHouse deployment (the
// events queue's producer and consumer, CLICKHOUSE_URL on the suite's server and a database of its own), as
// `npm run dev -- --clickhouse` runs it, handed to the tests as test/interop/client.ts expects it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@clickhouse/client-web";
import type { TestProject } from "vitest/node";
import { migrate } from "../../../scripts/lib/clickhouse-migrations.mjs";
// @ts-expect-error -- a plain ESM script shared with the setup and dev scripts
import { withEventQueues } from "../../../scripts/lib/wrangler-config.mjs";
// @ts-expect-error -- a plain ESM script shared with `npm run dev`
import { applyMigrations, deploymentIdentity, ROOT, startWorker } from "../../../scripts/lib/local-worker.mjs";
import { CLICKHOUSE_TEST_SERVER } from "../test-server";

const ROOT_KEY = "phx_interop_root_key_for_the_clickhouse_interop_tests";

declare module "vitest" {
  export interface ProvidedContext {
    workerUrl: string;
    rootKey: string;
  }
}

export default async function setup(project: TestProject) {
  const { url, workerDatabase } = CLICKHOUSE_TEST_SERVER;
  const database = `${workerDatabase}_interop`;
  const state = mkdtempSync(join(tmpdir(), "edgehog-clickhouse-interop-"));
  applyMigrations({ persistTo: state, quiet: true });
  // The database is this deployment's: bound to its D1's identity, as npm run clickhouse:migrate does.
  await migrate({ url, database, deployment: deploymentIdentity({ persistTo: state }) });
  // At the root, so the paths in it (src/, drizzle/, public/) resolve as in wrangler.toml.
  const config = join(ROOT, "wrangler.clickhouse-interop.toml");
  writeFileSync(config, withEventQueues(readFileSync(join(ROOT, "wrangler.toml"), "utf8")));
  const worker = await startWorker({
    persistTo: state,
    config,
    vars: { ROOT_API_KEY: ROOT_KEY, CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database },
  });
  project.provide("workerUrl", worker.url);
  project.provide("rootKey", ROOT_KEY);
  return async () => {
    await worker.stop();
    rmSync(config, { force: true });
    rmSync(state, { recursive: true, force: true });
    const client = createClient({ url });
    await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client.close();
  };
}
