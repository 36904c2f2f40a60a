import { createServer } from "node:net";

/**
 * The ClickHouse server of this test run, fixed when vitest.clickhouse.config.ts loads (the worker project's
 * bindings need its URL before any setup runs): CLICKHOUSE_URL when set, else a free local port on which
 * global-setup.ts starts local-clickhouse. `workerDatabase` is the migrated database the worker tests use,
 * bound to the deployment identity `workerDeployment`, which every worker test file's D1 takes (worker/setup.ts).
 */
export interface ClickHouseTestServer {
  url: string;
  local: boolean;
  workerDatabase: string;
  workerDeployment: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const external = process.env.CLICKHOUSE_URL;
const key = "EDGEHOG_TEST_CLICKHOUSE";
// The config and the global setup load this module separately: the first fixes the server in the environment.
process.env[key] ??= JSON.stringify({
  url: external ?? `http://127.0.0.1:${await freePort()}`,
  local: !external,
  workerDatabase: `edgehog_worker_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`,
  workerDeployment: crypto.randomUUID(),
} satisfies ClickHouseTestServer);

export const CLICKHOUSE_TEST_SERVER = JSON.parse(process.env[key]) as ClickHouseTestServer;
