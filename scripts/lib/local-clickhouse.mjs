// Serving local ClickHouse (local-clickhouse/server.mjs, chdb) for `npm run dev -- --clickhouse`, the
// ClickHouse test suite and the benchmarks: in a process group of its own like wrangler (local-worker.mjs),
// so stopping dev at any moment stops it too. `npm run clickhouse:install` must have run.
import { join } from "node:path";
import { exitOf, ROOT, spawnGroup, stopper } from "./local-worker.mjs";

const SERVER = join(ROOT, "local-clickhouse", "server.mjs");

/**
 * Starts the server on `port` (0: a free one) over `dataDir` (default `.clickhouse/`) and resolves once it
 * listens, with `{ url, exited, stop }`; its output is echoed to stderr unless `quiet`. `env` adds
 * variables (e.g. CLICKHOUSE_PASSWORD). Rejects with the server's own words when it cannot start (chdb
 * not installed, the port taken). Aborting `signal` stops it.
 */
export async function startLocalClickHouse({ port = 0, dataDir, env, quiet = false, signal } = {}) {
  const child = spawnGroup([SERVER, "--port", String(port), ...(dataDir ? ["--data", dataDir] : [])], {
    stdio: ["ignore", "pipe", "pipe"],
    signal,
    env,
  });
  const stop = stopper(child);
  signal?.addEventListener("abort", stop, { once: true });
  const exited = exitOf(child).then(([code]) => code);
  let output = "";
  const listening = new Promise((resolve, reject) => {
    const read = (chunk) => {
      output += chunk;
      if (!quiet) process.stderr.write(chunk);
      const url = /listening on (http:\/\/\S+?),/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    exited.then((code) => reject(new Error(`local ClickHouse exited with ${code} before listening:\n${output}`)));
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  try {
    return { url: await listening, exited, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
