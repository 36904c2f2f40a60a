// The persons analysis views on ClickHouse over the analysis data set scaled to 10M events / 500k
// persons, each beside the same view on D1 over 1M events / 50k persons, in the same run, each through
// `wrangler dev`. Usage:
//
//   node bench/analysis-clickhouse.mjs [--events 10000000] [--persons 500000] [--d1-events 1000000] [--d1-persons 50000] [--runs 5] [--views analysis|trends|lifecycle-stickiness|retention|funnels]
//
// `--views trends` times TrendsQuery insights through POST /query/ instead of the persons drill-downs;
// `--views lifecycle-stickiness` LifecycleQuery and StickinessQuery insights; `--views retention` RetentionQuery;
// `--views funnels` FunnelsQuery (steps ordered, by `$browser`, strict, unordered; time to convert).
//
// Needs `npm run clickhouse:install`: starts local-clickhouse (chdb) on a free port over a temporary
// directory, or uses CLICKHOUSE_URL if set (a database of its own, dropped after). The ClickHouse
// deployment's D1 holds the 500k persons too: the views answer D1 ids and hydrate the page from D1.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createClient } from "@clickhouse/client-web";
import { migrate } from "../scripts/lib/clickhouse-migrations.mjs";
import { ROOT, startWorker } from "../scripts/lib/local-worker.mjs";
import {
  ANALYSIS_VIEWS,
  analysisPersons,
  FUNNEL_VIEWS,
  LIFECYCLE_STICKINESS_VIEWS,
  RETENTION_VIEWS,
  personsSql,
  projectSql,
  summarize,
  TRENDS_VIEWS,
} from "./analysis-data.mjs";
import { loadIntoD1 } from "./analysis-load.mjs";
import { benchClickHouse, bindClickHouse, machine, ROOT_KEY } from "./lib.mjs";
import "../scripts/build-assets.mjs";

const { values: args } = parseArgs({
  options: {
    events: { type: "string", default: "10000000" },
    persons: { type: "string", default: "500000" },
    "d1-events": { type: "string", default: "1000000" },
    "d1-persons": { type: "string", default: "50000" },
    runs: { type: "string", default: "5" },
    views: { type: "string", default: "analysis" },
  },
});
const VIEW_SETS = {
  analysis: ANALYSIS_VIEWS,
  trends: TRENDS_VIEWS,
  "lifecycle-stickiness": LIFECYCLE_STICKINESS_VIEWS,
  retention: RETENTION_VIEWS,
  funnels: FUNNEL_VIEWS,
};
const VIEWS = VIEW_SETS[args.views];
if (!VIEWS) throw new Error(`--views must be one of ${Object.keys(VIEW_SETS).join(", ")}, not ${args.views}`);
const RUNS = Number(args.runs);
const DATABASE = `edgehog_analysis_bench_${Date.now().toString(36)}`;
const INSERT_ROWS = 100_000;
/** Microseconds since the epoch as ClickHouse's DateTime64(6) text (what ingestion writes as created_at). */
const microsText = (micros) =>
  `${new Date(Math.floor(micros / 1000)).toISOString().slice(0, 23)}${String(micros % 1000).padStart(3, "0")}Z`;
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/**
 * The data set into ClickHouse as ingestion stores it (events with their person's uuid and created_at
 * in generation order; the persons mirror with D1 ids and distinct ids), and its persons as SQL for the
 * deployment's D1 (written to `sqlDir`).
 */
async function loadClickHouse(client, sqlDir) {
  const started = performance.now();
  const base = Date.now() * 1000;
  let events = [];
  let persons = [];
  let count = 0;
  const flush = async (table, rows) => {
    if (rows.length)
      await client.insert({
        table,
        values: rows,
        format: "JSONEachRow",
        clickhouse_settings: { date_time_input_format: "best_effort" },
      });
  };
  const personRows = [];
  for (const person of analysisPersons({ events: Number(args.events), persons: Number(args.persons) })) {
    for (const e of person.events)
      events.push({
        uuid: e.uuid,
        team_id: 1,
        event: e.event,
        distinct_id: person.distinctId,
        properties: e.properties,
        timestamp: e.timestamp,
        created_at: microsText(base + count++),
        person_id: person.uuid,
      });
    persons.push(person);
    personRows.push({ ...person, events: undefined });
    if (events.length >= INSERT_ROWS) {
      await flush("events", events);
      events = [];
      process.stdout.write(`\rClickHouse: ${count} events, ${personRows.length} persons (${seconds(started)})`);
    }
    if (persons.length >= INSERT_ROWS) {
      await flushPersons(flush, persons);
      persons = [];
    }
  }
  await flush("events", events);
  await flushPersons(flush, persons);
  process.stdout.write("\n");
  // Parts merged as a long-running deployment's would be.
  await client.command({ query: "OPTIMIZE TABLE events FINAL" });
  console.log(`ClickHouse: ${count} events, ${personRows.length} persons loaded in ${seconds(started)}`);
  mkdirSync(sqlDir, { recursive: true });
  writeFileSync(join(sqlDir, "000-persons.sql"), [projectSql(1), personsSql(1, personRows)].join("\n"));
  return { events: count, persons: personRows.length };
}

async function flushPersons(flush, persons) {
  await flush(
    "person",
    persons.map((p) => ({
      id: p.uuid,
      d1_id: p.id,
      team_id: 1,
      created_at: p.createdAt,
      properties: p.properties,
      is_identified: 1,
      version: 0,
    })),
  );
  await flush(
    "person_distinct_id2",
    persons.map((p) => ({ team_id: 1, distinct_id: p.distinctId, person_id: p.uuid, version: 0 })),
  );
}

/** Each view: one warm-up request, then RUNS sequential ones; median, min and max, and what the page held. */
async function measure(label, state, vars) {
  const worker = await startWorker({ persistTo: state, vars: { ROOT_API_KEY: ROOT_KEY, ...vars } });
  try {
    const get = async (path, request) => {
      const t0 = performance.now();
      const res = await fetch(`${worker.url}${path}`, {
        method: request ? "POST" : "GET",
        headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" },
        body: request ? JSON.stringify(request) : undefined,
      });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`${label} ${path}: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - t0, body };
    };
    const results = new Map();
    for (const [name, path, body] of [["bare route (/_health)", "/_health"], ...VIEWS]) {
      const first = await get(path, body);
      const times = [];
      for (let i = 0; i < RUNS; i++) times.push((await get(path, body)).ms);
      times.sort((a, b) => a - b);
      results.set(name, { median: times[Math.floor(times.length / 2)], min: times[0], summary: summarize(first.body) });
      process.stdout.write(`${label}: ${name} ${results.get(name).median.toFixed(0)} ms\n`);
    }
    return results;
  } finally {
    await worker.stop();
  }
}

const state = mkdtempSync(join(tmpdir(), "edgehog-bench-analysis-ch-"));
const server = await benchClickHouse(state);
const { url } = server;
const client = createClient({ url, database: DATABASE, request_timeout: 900_000 });
try {
  await migrate({ url, database: DATABASE });
  const sizes = await loadClickHouse(client, join(state, "ch-sql"));
  let t = performance.now();
  loadIntoD1(join(state, "d1-for-clickhouse"), join(state, "ch-sql"));
  bindClickHouse({ url, database: DATABASE, persistTo: join(state, "d1-for-clickhouse") });
  console.log(`D1 of the ClickHouse deployment: ${sizes.persons} persons loaded in ${seconds(t)}`);
  t = performance.now();
  const d1Sql = join(state, "d1-sql");
  execFileSync(
    process.execPath,
    [
      join(ROOT, "bench/analysis-generate.mjs"),
      ...["--events", args["d1-events"], "--persons", args["d1-persons"], "--out", d1Sql],
    ],
    { stdio: "inherit" },
  );
  loadIntoD1(join(state, "d1"), d1Sql);
  console.log(`D1: loaded in ${seconds(t)}`);

  const d1 = await measure("D1", join(state, "d1"), {});
  const ch = await measure("ClickHouse", join(state, "d1-for-clickhouse"), {
    CLICKHOUSE_URL: url,
    CLICKHOUSE_DATABASE: DATABASE,
  });

  const command = `node bench/analysis-clickhouse.mjs --events ${args.events} --persons ${args.persons} --d1-events ${args["d1-events"]} --d1-persons ${args["d1-persons"]} --runs ${RUNS} --views ${args.views}`;
  console.log(`\n\`${command}\` — ${machine()}`);
  console.log(
    `\nClickHouse: ${sizes.events} events, ${sizes.persons} persons; D1: the same generator at ${args["d1-events"]} / ${args["d1-persons"]}. One warm-up, then ${RUNS} sequential requests per view through wrangler dev.\n`,
  );
  console.log(
    "| view | D1 median ms (min) | ClickHouse median ms (min) | ClickHouse ÷ D1 | D1 page | ClickHouse page |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const [name, a] of d1) {
    const b = ch.get(name);
    console.log(
      `| ${name} | ${a.median.toFixed(0)} (${a.min.toFixed(0)}) | ${b.median.toFixed(0)} (${b.min.toFixed(0)}) | ${(b.median / a.median).toFixed(2)} | ${a.summary} | ${b.summary} |`,
    );
  }
} finally {
  await client.command({ query: `DROP DATABASE IF EXISTS ${DATABASE}` }).catch(() => {});
  await client.close();
  await server.stop();
  rmSync(state, { recursive: true, force: true });
}
