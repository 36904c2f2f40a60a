// The ClickHouse suite's server, handed to the tests with vitest's provide/inject:
//   inject("clickhouseUrl")    the server's URL
//   inject("clickhouseLocal")  true when it is local-clickhouse started here (tests that restart a server or start
//                              one with other options run only then)
// With CLICKHOUSE_URL set, the suite runs against that server (e.g. a real ClickHouse) and starts nothing; otherwise
// it starts local-clickhouse (`npm run clickhouse:install` first) on a free port over a fresh temporary directory.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startLocalClickHouse } from "./local-server";

declare module "vitest" {
  export interface ProvidedContext {
    clickhouseUrl: string;
    clickhouseLocal: boolean;
  }
}

export default async function setup(project: TestProject) {
  const external = process.env.CLICKHOUSE_URL;
  if (external) {
    project.provide("clickhouseUrl", external);
    project.provide("clickhouseLocal", false);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), "edgehog-clickhouse-"));
  const server = await startLocalClickHouse(dataDir);
  project.provide("clickhouseUrl", server.url);
  project.provide("clickhouseLocal", true);
  return async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
