// Starts local-clickhouse (ClickHouse's HTTP interface over chdb, local-clickhouse/server.mjs) as a child
// process, for the ClickHouse test suite and the benchmarks. `npm run clickhouse:install` must have run.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SERVER = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "local-clickhouse", "server.mjs");

/**
 * Starts the server on `port` (0: a free one) over `dataDir` and resolves once it listens (its start line
 * names the URL). `env` adds variables, e.g. CLICKHOUSE_PASSWORD. `stop()` sends SIGTERM, as Ctrl-C does,
 * and waits for the process to end.
 */
export function startLocalClickHouse(dataDir, env = {}, port = 0) {
  const child = spawn(process.execPath, [SERVER, "--port", String(port), "--data", dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const exited = new Promise((resolve) => child.once("exit", () => resolve()));
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`local-clickhouse did not start within 60 s:\n${output}`));
    }, 60_000);
    child.stderr.on("data", (chunk) => (output += chunk));
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/\S+?),/.exec(output)?.[1];
      if (!url) return;
      clearTimeout(timer);
      resolve({
        url,
        stop: async () => {
          if (child.exitCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`local-clickhouse exited with ${code} before listening:\n${output}`));
    });
  });
}
