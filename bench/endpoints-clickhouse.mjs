// One HogQL endpoint, a daily count by event over 30 days, run inline (refresh=force) on ClickHouse over
// 10M events and on D1 over 1M events, each through `wrangler dev` beside the bare /_health route of the
// same worker. Usage: node bench/endpoints-clickhouse.mjs [clickhouseEvents=10000000] [d1Events=1000000]
// Needs `npm run clickhouse:install`: it starts local-clickhouse (chdb) on a free port over a temporary
// directory, or uses CLICKHOUSE_URL if set (the events go into a database of their own, dropped after).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createClient } from "@clickhouse/client-web";
import { migrate } from "../scripts/lib/clickhouse-migrations.mjs";
import { applyMigrations, executeSql, startWorker } from "../scripts/lib/local-worker.mjs";
import { benchClickHouse, bindClickHouse, latencies, machine, ms, pct, ROOT_KEY, seedD1Events } from "./lib.mjs";
import "../scripts/build-assets.mjs";

const CLICKHOUSE_EVENTS = Number(process.argv[2] ?? 10_000_000);
const D1_EVENTS = Number(process.argv[3] ?? 1_000_000);
const RUNS = Number(process.env.RUNS ?? 10);
const QUERY =
  "select toStartOfDay(timestamp) as day, event, count() as events from events " +
  "where timestamp >= now() - interval 30 day group by day, event order by day, event";
const DATABASE = `edgehog_bench_${Date.now().toString(36)}`;
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** The same distribution as seedD1Events: 90 days, 3 event names, 50k distinct ids, two properties. */
const SEED_CLICKHOUSE = `INSERT INTO events (uuid, team_id, event, distinct_id, properties, timestamp, created_at)
  SELECT generateUUIDv4(), 1, multiIf(number % 5 = 0, 'signup', number % 5 = 1, 'purchase', '$pageview'),
    concat('user-', toString(number % 50000)),
    concat('{"$browser":"', ['Chrome', 'Safari', 'Firefox'][number % 3 + 1], '","amount":', toString(number % 100), '}'),
    now64(6, 'UTC') - toIntervalSecond((number * 7919) % 7776000), now64(6, 'UTC')
  FROM numbers({from:UInt64}, {n:UInt64})`;
const SEED_CHUNK = 1_000_000;

async function measure(label, vars, persistTo) {
  const worker = await startWorker({ persistTo, vars: { ROOT_API_KEY: ROOT_KEY, ...vars } });
  try {
    const api = async (path, body) => {
      const res = await fetch(`${worker.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (res.status >= 300) throw new Error(`${label} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    await api("/api/environments/1/endpoints/", { name: "daily", query: { kind: "HogQLQuery", query: QUERY } });
    const run = () => api("/api/environments/1/endpoints/daily/run", { refresh: "force" });
    const first = await run(); // warms the isolate and the engine's caches
    const total = first.results.reduce((sum, row) => sum + row[2], 0);
    const runs = await latencies(RUNS, run);
    const health = await latencies(100, () => fetch(`${worker.url}/_health`).then((r) => r.text()));
    return { label, rows: first.results.length, total, runs, health };
  } finally {
    await worker.stop();
  }
}

const state = mkdtempSync(join(tmpdir(), "edgehog-bench-ch-"));
const d1State = join(state, "d1");
const chState = join(state, "d1-for-clickhouse");
const server = await benchClickHouse(state);
const { url } = server;
// Seeding and OPTIMIZE take minutes on a small machine: past the client's default 30 s.
const client = createClient({ url, database: DATABASE, request_timeout: 900_000 });
try {
  let t = performance.now();
  await migrate({ url, database: DATABASE });
  for (let from = 0; from < CLICKHOUSE_EVENTS; from += SEED_CHUNK) {
    const n = Math.min(SEED_CHUNK, CLICKHOUSE_EVENTS - from);
    await client.command({ query: SEED_CLICKHOUSE, query_params: { from, n } });
    process.stdout.write(`\rClickHouse: ${from + n} of ${CLICKHOUSE_EVENTS} events (${seconds(t)})`);
  }
  process.stdout.write("\n");
  // Parts merged as a long-running deployment's would be.
  await client.command({ query: "OPTIMIZE TABLE events FINAL" });
  console.log(`ClickHouse: seeded ${CLICKHOUSE_EVENTS} events in ${seconds(t)}`);
  t = performance.now();
  applyMigrations({ persistTo: d1State, quiet: true });
  seedD1Events(d1State, D1_EVENTS);
  console.log(`D1: seeded ${D1_EVENTS} events in ${seconds(t)}`);
  applyMigrations({ persistTo: chState, quiet: true });
  executeSql("INSERT INTO projects (name, api_token) VALUES ('bench', 'phc_bench')", { persistTo: chState });
  bindClickHouse({ url, database: DATABASE, persistTo: chState });

  const d1 = await measure(`D1, ${D1_EVENTS} events`, {}, d1State);
  const ch = await measure(
    `ClickHouse, ${CLICKHOUSE_EVENTS} events`,
    { CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: DATABASE },
    chState,
  );

  console.log(`\n\`node bench/endpoints-clickhouse.mjs ${CLICKHOUSE_EVENTS} ${D1_EVENTS}\` — ${machine()}`);
  console.log(`\n\`${QUERY}\`, ${RUNS} sequential runs with refresh=force after one warm-up, via wrangler dev\n`);
  console.log("| engine, data | rows | events counted | median | p95 | /_health median (same worker) |");
  console.log("|---|---|---|---|---|---|");
  for (const r of [d1, ch])
    console.log(
      `| ${r.label} | ${r.rows} | ${r.total} | ${ms(pct(r.runs, 50))} | ${ms(pct(r.runs, 95))} | ${ms(pct(r.health, 50))} |`,
    );
  const ratio = pct(d1.runs, 50) / pct(ch.runs, 50);
  console.log(
    `\nClickHouse over ${CLICKHOUSE_EVENTS / D1_EVENTS}× the data: ${ratio >= 1 ? `${ratio.toFixed(1)}× faster` : `${(1 / ratio).toFixed(1)}× slower`} than D1 (median).`,
  );
} finally {
  await client.command({ query: `DROP DATABASE IF EXISTS ${DATABASE}` }).catch(() => {});
  await client.close();
  await server.stop();
  rmSync(state, { recursive: true, force: true });
}
