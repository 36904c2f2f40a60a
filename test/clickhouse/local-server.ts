import { spawn } from "node:child_process";
import { join } from "node:path";

const SERVER = join(import.meta.dirname, "..", "..", "local-clickhouse", "server.mjs");

export interface LocalClickHouse {
  url: string;
  /** Stops the server as Ctrl-C does (SIGTERM) and waits for the process to end. */
  stop(): Promise<void>;
}

/**
 * Starts `local-clickhouse/server.mjs` on `port` (0: a free one) over `dataDir` and resolves once it listens (its start line
 * names the URL). `env` adds variables, e.g. CLICKHOUSE_PASSWORD.
 */
export function startLocalClickHouse(
  dataDir: string,
  env: Record<string, string> = {},
  port = 0,
): Promise<LocalClickHouse> {
  const child = spawn(process.execPath, [SERVER, "--port", String(port), "--data", dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
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
