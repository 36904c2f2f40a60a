// The ClickHouse suite's server, handed to the Node tests with vitest's provide/inject:
//   inject("clickhouseUrl")    the server's URL
//   inject("clickhouseLocal")  true when it is local-clickhouse started here (tests that restart a server or start
//                              one with other options run only then)
// With CLICKHOUSE_URL set, the suite runs against that server (e.g. a real ClickHouse) and starts nothing; otherwise
// it starts local-clickhouse (`npm run clickhouse:install` first) over a fresh temporary directory, on the port
// vitest.clickhouse.config.ts chose, which the worker project's bindings name. Both projects list this setup: the
// first to run starts the server, the other finds it answering. The worker project's also creates its database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { migrate } from "../../scripts/lib/clickhouse-migrations.mjs";
import { startLocalClickHouse } from "../../scripts/lib/local-clickhouse.mjs";
import { CLICKHOUSE_TEST_SERVER } from "./test-server";

declare module "vitest" {
  export interface ProvidedContext {
    clickhouseUrl: string;
    clickhouseLocal: boolean;
  }
}

/** Whether a ClickHouse server answers at `url` (ClickHouse's /ping). */
async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/ping`)).ok;
  } catch {
    return false;
  }
}

/**
 * Starts local-clickhouse unless another project's setup has (vitest loads this module once per project, and
 * may run the setups side by side): when the port turns out to be taken, waits for the other one to answer.
 */
async function startOnce(url: string): Promise<(() => Promise<void>) | null> {
  if (await answers(url)) return null;
  const dataDir = mkdtempSync(join(tmpdir(), "edgehog-clickhouse-"));
  try {
    const server = await startLocalClickHouse({ dataDir, port: Number(new URL(url).port), quiet: true });
    return async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    if (!/EADDRINUSE/.test(String(error))) throw error;
    for (let i = 0; i < 600 && !(await answers(url)); i++) await new Promise((r) => setTimeout(r, 100));
    return null;
  }
}

export default async function setup(project: TestProject) {
  const { url, local, workerDatabase, workerDeployment } = CLICKHOUSE_TEST_SERVER;
  project.provide("clickhouseUrl", url);
  project.provide("clickhouseLocal", local);
  const stop = local ? await startOnce(url) : null;
  if (project.name === "clickhouse-worker")
    await migrate({ url, database: workerDatabase, deployment: workerDeployment });
  return stop ?? undefined;
}
