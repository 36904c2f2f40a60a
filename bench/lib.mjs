// Shared by the capture and persons benchmarks: a fresh `wrangler dev` with its own local state,
// a project, and autocannon runs summarised the same way.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { startLocalClickHouse } from "../scripts/lib/local-clickhouse.mjs";
import { applyMigrations, executeSql, ROOT, startWorker } from "../scripts/lib/local-worker.mjs";

export const ROOT_KEY = "phx_bench_root_key_for_local_benchmarks";

/**
 * Seeds a local D1 (`persistTo`) with project 1 and `n` events in one SQL statement (a recursive CTE):
 * spread over the last 90 days, 3 event names, 50k distinct ids, two properties. The ClickHouse
 * benchmark writes the same distribution into ClickHouse.
 */
export function seedD1Events(persistTo, n) {
  executeSql("INSERT INTO projects (name, api_token) VALUES ('bench', 'phc_bench')", { persistTo });
  executeSql(
    `INSERT INTO events (project_id, uuid, event, distinct_id, properties, timestamp)
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})
     SELECT 1, lower(hex(randomblob(16))), CASE i % 5 WHEN 0 THEN 'signup' WHEN 1 THEN 'purchase' ELSE '$pageview' END,
       'user-' || (i % 50000), json_object('$browser', CASE i % 3 WHEN 0 THEN 'Chrome' WHEN 1 THEN 'Safari' ELSE 'Firefox' END, 'amount', i % 100),
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ((i * 7919) % 7776000) || ' seconds') FROM n`,
    { persistTo },
  );
}

/**
 * Migrates the ClickHouse database a benchmark worker uses and binds it to the deployment of the local D1
 * at `persistTo` (the worker refuses a database bound to another), with `npm run clickhouse:migrate` as a
 * user would. In a process of its own: this one may have blocked on synchronous wrangler calls long enough
 * for the server to close its idle keep-alive connections, which a request from here would then reuse.
 */
export function bindClickHouse({ url, database = "default", persistTo }) {
  execFileSync(
    process.execPath,
    [join(ROOT, "scripts", "clickhouse-migrate.mjs"), "--local", "--persist-to", persistTo],
    {
      env: { ...process.env, CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}

/** The size (bytes) of the local D1 database files under a wrangler state directory: the database and its write-ahead log. */
export const d1Bytes = (state) =>
  readdirSync(state, { recursive: true })
    .filter((file) => /\.sqlite(-wal)?$/.test(file) && file.includes("d1"))
    .reduce((bytes, file) => bytes + statSync(join(state, file)).size, 0);

/**
 * Bytes per table and index of the local D1 under `state` (SQLite's dbstat, through the sqlite3
 * command-line shell, which wrangler's local D1 lacks); null without the shell.
 */
function tableBytes(state) {
  const file = readdirSync(state, { recursive: true }).find((f) => /d1.*[\\/][0-9a-f]{64}\.sqlite$/.test(f));
  try {
    const out = execFileSync("sqlite3", [
      "-json",
      join(state, file),
      "SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name",
    ]);
    return Object.fromEntries(JSON.parse(String(out)).map((t) => [t.name, t.bytes]));
  } catch {
    return null;
  }
}

/**
 * How much a fresh local D1 grows when `count` events made by `event(i)` are captured through
 * POST /batch/ (`batch` per request) into a new project: the database measured with the worker
 * stopped before and after (stopping checkpoints the write-ahead log into the file).
 */
export async function captureGrowth(count, batch, event, what) {
  const state = mkdtempSync(join(tmpdir(), "edgehog-size-"));
  try {
    applyMigrations({ persistTo: state, quiet: true });
    let worker = await startWorker({ persistTo: state, vars: { ROOT_API_KEY: ROOT_KEY } });
    const project = await (
      await fetch(`${worker.url}/api/projects/`, {
        method: "POST",
        headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "size" }),
      })
    ).json();
    await worker.stop();
    const before = d1Bytes(state);
    worker = await startWorker({ persistTo: state, vars: { ROOT_API_KEY: ROOT_KEY } });
    const started = Date.now();
    for (let i = 0; i < count; i += batch) {
      const events = Array.from({ length: Math.min(batch, count - i) }, (_, k) => event(i + k));
      const res = await fetch(`${worker.url}/batch/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ api_key: project.api_token, batch: events }),
      });
      if (!res.ok) throw new Error(`capture failed: ${res.status} ${await res.text()}`);
      if ((i / batch) % 40 === 0) process.stderr.write(`  ${i} / ${count} ${what} sent\n`);
    }
    const seconds = (Date.now() - started) / 1000;
    await worker.stop();
    return { growthBytes: d1Bytes(state) - before, seconds, tables: tableBytes(state) };
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** `config` and `vars` go to wrangler dev (another config file, more variables; with CLICKHOUSE_URL, its database is bound to the worker's D1). */
export async function startBenchWorker({ config, vars = {} } = {}) {
  const state = mkdtempSync(join(tmpdir(), "edgehog-bench-"));
  applyMigrations({ persistTo: state, quiet: true });
  if (vars.CLICKHOUSE_URL)
    bindClickHouse({ url: vars.CLICKHOUSE_URL, database: vars.CLICKHOUSE_DATABASE, persistTo: state });
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
    /** The size of the worker's local D1 database files (bytes), for capacity figures. */
    databaseBytes: () => d1Bytes(state),
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

/** Sequential latencies (ms) of `n` calls, sorted. */
export async function latencies(n, fn) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn(i);
    out.push(performance.now() - start);
  }
  return out.sort((a, b) => a - b);
}
/** The `p`th percentile of sorted values. */
export const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
export const ms = (x) => `${x.toFixed(1)} ms`;

/** The ClickHouse benchmarks' server: CLICKHOUSE_URL when set, else local-clickhouse over `state`/clickhouse. */
export async function benchClickHouse(state) {
  const local = process.env.CLICKHOUSE_URL
    ? null
    : await startLocalClickHouse({ dataDir: join(state, "clickhouse"), quiet: true });
  return { url: process.env.CLICKHOUSE_URL ?? local.url, stop: async () => local?.stop() };
}
