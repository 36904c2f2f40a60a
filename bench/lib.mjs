// Shared by the capture and persons benchmarks: a fresh `wrangler dev` with its own local state,
// a project, and autocannon runs summarised the same way.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { applyMigrations, executeSql, startWorker } from "../scripts/lib/local-worker.mjs";

export const ROOT_KEY = "phx_bench_root_key_for_local_benchmarks";

/** `config` and `vars` go to wrangler dev (another config file, more variables). */
export async function startBenchWorker({ config, vars = {} } = {}) {
  const state = mkdtempSync(join(tmpdir(), "edgehog-bench-"));
  applyMigrations({ persistTo: state, quiet: true });
  const worker = await startWorker({ persistTo: state, config, vars: { ...vars, ROOT_API_KEY: ROOT_KEY } });
  const res = await fetch(`${worker.url}/api/projects/`, {
    method: "POST",
    headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench" }),
  });
  const project = await res.json();
  return {
    url: worker.url,
    project,
    /** Runs SQL against the worker's local D1 (to check what was really stored). */
    sql: (query) => executeSql(query, { persistTo: state }),
    async stop() {
      await worker.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** Runs autocannon and returns the figures we report (non-2xx responses are counted, never hidden). */
export async function load(options) {
  const result = await autocannon({ connections: 8, duration: 10, ...options });
  return {
    title: options.title,
    requestsPerSec: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99 },
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export const machine = () =>
  `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
