// The ClickHouse suite's server, handed to the Node tests with vitest's provide/inject:
//   inject("clickhouseUrl")    the server's URL
//   inject("clickhouseLocal")  true when it is local-clickhouse started here (tests that restart a server or start
//                              one with other options run only then)
// With CLICKHOUSE_URL set, the suite runs against that server (e.g. a real ClickHouse) and starts nothing; otherwise
// it starts local-clickhouse (`npm run clickhouse:install` first) over a fresh temporary directory, on the port
// vitest.clickhouse.config.ts chose, which the worker project's bindings name. Both projects list this setup: the
// first to run starts the server, the other finds it answering. It also creates the worker tests' database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { migrate } from "../../scripts/lib/clickhouse-migrations.mjs";
import { startLocalClickHouse } from "./local-server";
import { CLICKHOUSE_TEST_SERVER } from "./test-server";

declare module "vitest" {
  export interface ProvidedContext {
    clickhouseUrl: string;
    clickhouseLocal: boolean;
  }
}

// Process-wide: vitest loads this module once per project (each with its own module graph), so a
// module variable would let the second project start another server on the same port.
const shared = globalThis as { edgehogClickHouseStarted?: Promise<void> };

export default async function setup(project: TestProject) {
  const { url, local, workerDatabase } = CLICKHOUSE_TEST_SERVER;
  project.provide("clickhouseUrl", url);
  project.provide("clickhouseLocal", local);
  if (shared.edgehogClickHouseStarted) return shared.edgehogClickHouseStarted;
  let stop = async () => {};
  const started = (shared.edgehogClickHouseStarted = (async () => {
    if (local) {
      const dataDir = mkdtempSync(join(tmpdir(), "edgehog-clickhouse-"));
      const server = await startLocalClickHouse(dataDir, {}, Number(new URL(url).port));
      stop = async () => {
        await server.stop();
        rmSync(dataDir, { recursive: true, force: true });
      };
    }
    await migrate({ url, database: workerDatabase });
  })());
  await started;
  return async () => {
    await stop();
    stop = async () => {};
  };
}
