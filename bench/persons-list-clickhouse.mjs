// Persons list latency on a ClickHouse deployment: the requests of bench/persons-list.mjs (first page, deep
// offset, property filters common and rare, search, distinct_id) beside the bare /_health route, over
// 10M persons by default. A search or property filter finds its page in ClickHouse's persons mirror
// (src/analytics/clickhouse/persons-list.ts) and reads the rows from D1 by key; the unfiltered list and
// distinct_id read D1 only. So both hold the same persons: seeded directly (ClickHouse with INSERT ...
// SELECT FROM numbers(), D1 with the sqlite3 shell on its local file) rather than through /batch/, which
// would take hours at this scale.
//
//   node bench/persons-list-clickhouse.mjs [--persons 10000000] [--no-record] [--ordered-uuids]
//
// Needs `npm run clickhouse:install` (local-clickhouse, chdb, over a temporary directory; or CLICKHOUSE_URL
// for another server, in a database of its own, dropped after) and the sqlite3 command-line shell. The
// markdown section it prints goes to the top of bench/RESULTS.md too when --persons is at least 1,000,000
// (smaller runs are trials) and --no-record is not given.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs, promisify } from "node:util";
import { createClient } from "@clickhouse/client-web";
import { applyMigrations, ROOT, startWorker } from "../scripts/lib/local-worker.mjs";
import { benchClickHouse, bindClickHouse, d1Bytes, load, machine, ROOT_KEY } from "./lib.mjs";

const { values: args } = parseArgs({
  options: {
    persons: { type: "string", default: "10000000" },
    "no-record": { type: "boolean", default: false },
    "ordered-uuids": { type: "boolean", default: false },
  },
});
const N = Number(args.persons);
if (!Number.isSafeInteger(N) || N < 1) throw new Error(`--persons must be a positive integer, not ${args.persons}`);
const RECORD = N >= 1_000_000 && !args["no-record"];
const PROJECT = 1;
const DATABASE = `edgehog_persons_bench_${Date.now().toString(36)}`;
const EPOCH = "2026-01-01 00:00:00";
const LIMIT = 100; // the list's default page
const PLANS = ["free", "pro", "enterprise"];

/**
 * The first eight hex digits of person n's uuid. ClickHouse stores persons in uuid order; a real
 * person's uuid (derived from a distinct id, or random) says nothing of when they were created, so by
 * default n is scrambled (Knuth's multiplicative hash, a bijection on 32 bits); `--ordered-uuids` keeps n
 * itself, storing persons in creation order, which is the list's worst case (every row read enters the
 * newest-first page it keeps, as with time-ordered uuids).
 */
const MULTIPLIER = args["ordered-uuids"] ? 1 : 2654435761;
const uuidHead = (n) => Number((BigInt(n) * BigInt(MULTIPLIER)) % 4294967296n);

/** Person n as both stores hold it (the expected side of the checks). */
const person = (n) => ({
  uuid: `${uuidHead(n).toString(16).padStart(8, "0")}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
  properties: JSON.stringify({ email: `user${n}@example.com`, plan: PLANS[n % 3], n }),
  createdAt: new Date(Date.parse(`${EPOCH}Z`) + n * 1000).toISOString(),
  distinctId: `user-${n}`,
});

// The same person n in each SQL dialect; person() above is the reference both are checked against.
const CLICKHOUSE_UUID = `toUUID(concat(leftPad(lower(hex(toUInt32((number * ${MULTIPLIER}) % 4294967296))), 8, '0'), '-0000-4000-8000-',
  leftPad(lower(hex(toUInt64(number))), 12, '0')))`;
const CLICKHOUSE_PERSON = `SELECT ${CLICKHOUSE_UUID}, number + 1, ${PROJECT},
    addSeconds(toDateTime64('${EPOCH}', 6, 'UTC'), number),
    concat('{"email":"user', toString(number), '@example.com","plan":"', ${sqlArray(PLANS)}[number % 3 + 1],
      '","n":', toString(number), '}'),
    0, 0, bitShiftLeft(toUInt64(number + 1), 32)
  FROM numbers(${N})`;
const SQLITE_PERSON = `SELECT n + 1, ${PROJECT}, printf('%08x-0000-4000-8000-%012x', (n * ${MULTIPLIER}) % 4294967296, n),
    '{"email":"user' || n || '@example.com","plan":"' || ${sqliteCase("n % 3", PLANS)} || '","n":' || n || '}',
    0, strftime('%Y-%m-%dT%H:%M:%fZ', '${EPOCH}', '+' || n || ' seconds'), 0
  FROM seq`;

function sqlArray(values) {
  return `[${values.map((v) => `'${v}'`).join(", ")}]`;
}
function sqliteCase(expr, values) {
  return `CASE ${expr} ${values.map((v, i) => `WHEN ${i} THEN '${v}'`).join(" ")} END`;
}

// D1's derived person structures (drizzle/0007_person_search.sql, drizzle/0008_person_property_index.sql),
// kept by triggers on every insert: filling them for 10M persons would take long and most of the disk,
// and a ClickHouse deployment's list does not read them (the mirror answers searches and filters), except
// person_counts (the unfiltered list's count), which is kept and written once.
const DERIVED_TRIGGERS = [
  "person_search_person_renamed",
  "person_search_person_deleted",
  "person_search_id_added",
  "person_search_id_removed",
  "person_search_id_moved",
  "person_property_values_added",
  "person_property_values_changing",
  "person_property_values_changed",
  "person_property_values_removed",
  "person_counts_added",
  "person_counts_removed",
];
const DROP_DERIVED = `DROP VIEW person_search_text; DROP TABLE person_search;
  DROP VIEW person_property_text; DROP TABLE person_property_values;`;

const execFileAsync = promisify(execFile);
const seconds = (since) => (performance.now() - since) / 1000;
const progress = (line) => process.stderr.write(`${line}\n`);

/**
 * Runs `script` in the sqlite3 shell on `file`, stopping at the first error. Asynchronous, so this
 * process keeps serving its sockets meanwhile (see bindClickHouse in bench/lib.mjs on blocking).
 * Bulk-load settings: no fsync, and a 1 GiB page cache for the inserts and index builds.
 */
async function sqlite(file, script, { json = false } = {}) {
  const { stdout } = await execFileAsync(
    "sqlite3",
    ["-bail", ...(json ? ["-json"] : []), file, `PRAGMA synchronous = OFF; PRAGMA cache_size = -1048576; ${script}`],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return json ? JSON.parse(stdout.trim() || "[]") : stdout;
}

/** The local D1's database file under a wrangler state directory (as bench/lib.mjs tableBytes finds it). */
function d1File(state) {
  const file = readdirSync(state, { recursive: true }).find((f) => /d1.*[\\/][0-9a-f]{64}\.sqlite$/.test(f));
  if (!file) throw new Error(`no local D1 database under ${state}`);
  return join(state, file);
}

/** Fills the migrated, empty local D1 at `file` with project 1 and the N persons; returns each step's seconds. */
async function seedD1(file) {
  const timings = {};
  let t = performance.now();
  const triggers = await sqlite(
    file,
    "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('persons', 'person_distinct_ids')",
    { json: true },
  );
  // A trigger this script does not know would be left unfilled (or slow the seed): better to stop.
  const unknown = triggers.map((r) => r.name).filter((name) => !DERIVED_TRIGGERS.includes(name));
  if (unknown.length) throw new Error(`unknown triggers on persons: ${unknown.join(", ")}; update this bench`);
  // The persons' own indexes are built once after the inserts (a sort) rather than row by row.
  const indexes = await sqlite(
    file,
    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('persons', 'person_distinct_ids') AND sql IS NOT NULL",
    { json: true },
  );
  // Out of WAL for the load: a WAL would hold a second copy of every page until the checkpoint.
  await sqlite(
    file,
    `PRAGMA journal_mode = DELETE; BEGIN;
    ${DERIVED_TRIGGERS.map((name) => `DROP TRIGGER ${name};`).join(" ")} ${DROP_DERIVED}
    ${indexes.map((i) => `DROP INDEX ${i.name};`).join(" ")}
    INSERT INTO projects (id, name, api_token) VALUES (${PROJECT}, 'bench', 'phc_bench');
    INSERT INTO person_counts (project_id, persons) VALUES (${PROJECT}, ${N});
    COMMIT;`,
  );
  progress(`D1: persons...`);
  await sqlite(
    file,
    `INSERT INTO persons (id, project_id, uuid, properties, is_identified, created_at, version)
    WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${N - 1}) ${SQLITE_PERSON};`,
  );
  timings.persons = seconds(t);
  progress(`D1: ${N} persons in ${timings.persons.toFixed(1)} s; distinct ids...`);
  t = performance.now();
  await sqlite(
    file,
    `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id, version, created_at)
    SELECT project_id, 'user-' || (id - 1), id, 0, created_at FROM persons ORDER BY id;`,
  );
  timings.distinctIds = seconds(t);
  progress(`D1: distinct ids in ${timings.distinctIds.toFixed(1)} s; indexes...`);
  t = performance.now();
  await sqlite(file, `${indexes.map((i) => `${i.sql};`).join("\n")} PRAGMA journal_mode = WAL;`);
  timings.indexes = seconds(t);
  progress(`D1: ${indexes.length} indexes in ${timings.indexes.toFixed(1)} s`);
  return timings;
}

/** Fills the bound, empty ClickHouse persons mirror with the same N persons, parts merged; each step's seconds. */
async function seedClickHouse(client) {
  const timings = {};
  let t = performance.now();
  progress("ClickHouse: person...");
  await client.command({
    query: `INSERT INTO person (id, d1_id, team_id, created_at, properties, is_identified, is_deleted, version)
      ${CLICKHOUSE_PERSON}`,
  });
  await client.command({
    query: `INSERT INTO person_distinct_id2 (team_id, distinct_id, person_id, is_deleted, version)
      SELECT ${PROJECT}, concat('user-', toString(number)), ${CLICKHOUSE_UUID}, 0, 0 FROM numbers(${N})`,
  });
  timings.insert = seconds(t);
  progress(`ClickHouse: ${N} persons and distinct ids in ${timings.insert.toFixed(1)} s; OPTIMIZE FINAL...`);
  // Parts merged as a long-running deployment's mostly would be.
  t = performance.now();
  await client.command({ query: "OPTIMIZE TABLE person FINAL" });
  await client.command({ query: "OPTIMIZE TABLE person_distinct_id2 FINAL" });
  timings.optimize = seconds(t);
  progress(`ClickHouse: optimized in ${timings.optimize.toFixed(1)} s`);
  return timings;
}

/** Both stores hold N persons, and a few sampled ones exactly as person(n) says, on both sides. */
async function checkSeeds(client, file) {
  const sample = [...new Set([0, 1, 2, 4242, Math.floor(N / 2), N - 1])].filter((n) => n < N);
  const [{ persons, ids }] = await sqlite(
    file,
    "SELECT (SELECT count(*) FROM persons) AS persons, (SELECT count(*) FROM person_distinct_ids) AS ids",
    { json: true },
  );
  const d1 = await sqlite(
    file,
    `SELECT p.id, p.uuid, p.properties, p.created_at, d.distinct_id FROM persons p
    JOIN person_distinct_ids d ON d.person_id = p.id WHERE p.id IN (${sample.map((n) => n + 1)})`,
    { json: true },
  );
  const counts = await rows(
    client,
    `SELECT (SELECT count() FROM person FINAL) AS persons, (SELECT count() FROM person_distinct_id2 FINAL) AS ids`,
  );
  const ch = await rows(
    client,
    `SELECT p.d1_id AS id, toString(p.id) AS uuid, p.properties AS properties,
      toUnixTimestamp64Milli(p.created_at) AS ms, p.version AS version, d.distinct_id AS distinct_id
    FROM person AS p FINAL
    JOIN (SELECT person_id, distinct_id FROM person_distinct_id2 FINAL
      WHERE distinct_id IN (${sample.map((n) => `'${person(n).distinctId}'`)})) AS d ON d.person_id = p.id
    WHERE p.d1_id IN (${sample.map((n) => n + 1)})`,
  );
  const problems = [];
  if (persons !== N || ids !== N) problems.push(`D1 holds ${persons} persons and ${ids} distinct ids`);
  if (Number(counts[0].persons) !== N || Number(counts[0].ids) !== N)
    problems.push(`ClickHouse holds ${counts[0].persons} persons and ${counts[0].ids} distinct ids`);
  for (const n of sample) {
    const want = person(n);
    const a = d1.find((r) => r.id === n + 1);
    const b = ch.find((r) => Number(r.id) === n + 1);
    const d1Row = a && [a.uuid, a.properties, a.created_at, a.distinct_id];
    const chRow = b && [b.uuid, b.properties, new Date(Number(b.ms)).toISOString(), b.distinct_id];
    const wanted = [want.uuid, want.properties, want.createdAt, want.distinctId];
    if (JSON.stringify(d1Row) !== JSON.stringify(wanted)) problems.push(`D1 person ${n}: ${JSON.stringify(d1Row)}`);
    if (JSON.stringify(chRow) !== JSON.stringify(wanted))
      problems.push(`ClickHouse person ${n}: ${JSON.stringify(chRow)}`);
    if (b && BigInt(b.version) !== BigInt(n + 1) << 32n) problems.push(`ClickHouse person ${n}: version ${b.version}`);
  }
  if (problems.length) throw new Error(`the seeded data is not what the bench expects:\n${problems.join("\n")}`);
}

async function rows(client, query) {
  return (await client.query({ query, format: "JSONEachRow" })).json();
}

/** The mirror's bytes on disk per table, or null when the server does not say. */
async function clickhouseBytes(client) {
  try {
    const parts = await rows(
      client,
      `SELECT table, sum(bytes_on_disk) AS bytes FROM system.parts
      WHERE database = currentDatabase() AND active AND table IN ('person', 'person_distinct_id2') GROUP BY table`,
    );
    return Object.fromEntries(parts.map((p) => [p.table, Number(p.bytes)]));
  } catch {
    return null;
  }
}

/**
 * What each list request must answer, computed here from the data set: its `count`, and the distinct id
 * of the page's first person (list order: the newest, i.e. the highest n, first) at its offset.
 */
function expectations(runs) {
  const checked = runs.filter((r) => r.matches);
  const state = checked.map(() => ({ count: 0, first: undefined }));
  for (let n = N - 1; n >= 0; n--)
    checked.forEach((run, i) => {
      if (!run.matches(n)) return;
      if (state[i].count === run.offset) state[i].first = `user-${n}`;
      state[i].count++;
    });
  return new Map(checked.map((run, i) => [run, state[i]]));
}

/** Fetches each run's URL once and throws unless it answers 200 with what expectations() says. */
async function checkAnswers(runs) {
  const expected = expectations(runs);
  const problems = [];
  for (const run of runs) {
    const t = performance.now();
    const res = await fetch(run.url, { headers: run.headers });
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) {
      problems.push(`${run.title}: ${res.status} ${text.slice(0, 500)}`);
      continue;
    }
    const want = expected.get(run);
    if (!want) continue; // /_health
    const body = JSON.parse(text);
    const length = Math.min(LIMIT, Math.max(0, want.count - run.offset));
    const got = { count: body.count, length: body.results.length, first: body.results[0]?.distinct_ids[0] };
    progress(`  ${run.title}: count ${body.count}, ${got.length} on the page (${ms.toFixed(0)} ms)`);
    if (got.count !== want.count || got.length !== length || got.first !== want.first)
      problems.push(
        `${run.title}: answered ${JSON.stringify(got)}, expected ${JSON.stringify({ count: want.count, length, first: want.first })}`,
      );
  }
  if (problems.length) throw new Error(`wrong answers, nothing timed:\n${problems.join("\n")}`);
}

const mb = (bytes) => `${Math.round(bytes / 1e6).toLocaleString("en-US")} MB`;
const s = (x) => `${x.toFixed(1)} s`;

/** The markdown section: how it ran, what seeding took, then one row per request. */
function report({ started, d1Timings, chTimings, d1Size, chSize, server, results }) {
  const command = `node bench/persons-list-clickhouse.mjs --persons ${N}${args["ordered-uuids"] ? " --ordered-uuids" : ""}`;
  const when = `${started.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const lines = [
    `## Persons list on ClickHouse at ${N.toLocaleString("en-US")} persons — \`${command}\``,
    "",
    `${when}, ${machine()}, ClickHouse: ${server}. The ClickHouse deployment's persons mirror and its D1 ` +
      `seeded directly with the same ${N.toLocaleString("en-US")} persons (email, plan of three, a number; the ` +
      `shape of bench/persons-list.mjs), D1 without its search and property indexes (not read on ClickHouse); ` +
      (args["ordered-uuids"]
        ? "uuids in creation order (ClickHouse stores persons newest last: the list's worst case). "
        : "uuids unrelated to creation order, as real ones are. ") +
      `autocannon through wrangler dev: 1 connection for 5 s, then 4 connections for 10 s. Latency p50 / p99 in ms.`,
    "",
    `- Seeding: D1 persons ${s(d1Timings.persons)}, distinct ids ${s(d1Timings.distinctIds)}, indexes ` +
      `${s(d1Timings.indexes)}; ClickHouse inserts ${s(chTimings.insert)}, OPTIMIZE FINAL ${s(chTimings.optimize)}.`,
    `- Sizes: D1 ${mb(d1Size)}` +
      (chSize
        ? `; ClickHouse person ${mb(chSize.person ?? 0)}, person_distinct_id2 ${mb(chSize.person_distinct_id2 ?? 0)}.`
        : "."),
    "",
    "| request | 1 conn p50 / p99 | 4 conns p50 / p99 | req/s (1 / 4 conns) | non-2xx (1 / 4 conns) |",
    "|---|---|---|---|---|",
  ];
  const half = results.length / 2;
  for (let i = 0; i < half; i++) {
    const [one, four] = [results[i], results[i + half]];
    const errors = one.errors + four.errors;
    lines.push(
      `| ${one.title} | ${one.latencyMs.p50} / ${one.latencyMs.p99} | ${four.latencyMs.p50} / ${four.latencyMs.p99} ` +
        `| ${one.requestsPerSec} / ${four.requestsPerSec} | ${one.non2xx} / ${four.non2xx}${errors ? ` (${errors} errors)` : ""} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Puts `section` first in bench/RESULTS.md, after its heading block (before the first `## `), newest first. */
function record(section) {
  const file = join(ROOT, "bench", "RESULTS.md");
  const text = readFileSync(file, "utf8");
  const at = text.indexOf("\n## ");
  writeFileSync(
    file,
    at < 0 ? `${text.trimEnd()}\n\n${section}` : `${text.slice(0, at + 1)}${section}\n${text.slice(at + 1)}`,
  );
  progress(`recorded in ${file}`);
}

const started = new Date();
const state = mkdtempSync(join(tmpdir(), "edgehog-bench-persons-ch-"));
const d1State = join(state, "d1");
let server, client, worker;
try {
  server = await benchClickHouse(state);
  client = createClient({
    url: server.url,
    database: DATABASE,
    // OPTIMIZE FINAL of 10M rows takes minutes: progress headers keep a proxy in front of a remote server
    // from closing the idle connection meanwhile.
    request_timeout: 3_600_000,
    clickhouse_settings: { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: "30000" },
  });
  // Bound while D1 is empty: binding copies D1's persons into the mirror through wrangler, 2,000 at a time.
  applyMigrations({ persistTo: d1State, quiet: true });
  bindClickHouse({ url: server.url, database: DATABASE, persistTo: d1State });
  const file = d1File(d1State);
  const chTimings = await seedClickHouse(client);
  const d1Timings = await seedD1(file);
  await checkSeeds(client, file);
  const d1Size = d1Bytes(d1State);
  const chSize = await clickhouseBytes(client);

  worker = await startWorker({
    persistTo: d1State,
    // No events queue bound (wrangler.clickhouse.toml's): the list reads, and only writes enqueue.
    vars: { CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: DATABASE, ROOT_API_KEY: ROOT_KEY },
  });
  const base = `${worker.url}/api/environments/${PROJECT}/persons/`;
  const headers = { authorization: `Bearer ${ROOT_KEY}` };
  const filter = encodeURIComponent(JSON.stringify([{ key: "plan", value: "pro", type: "person" }]));
  const rare = encodeURIComponent(JSON.stringify([{ key: "n", value: 4242, type: "person" }]));
  const list = (title, query, matches, offset = 0) => ({
    title,
    url: `${base}${query}`,
    headers,
    matches,
    offset,
  });
  const every = () => true;
  const pro = (n) => n % 3 === 1;
  const runs = [
    { title: "bare `/_health`", url: `${worker.url}/_health` },
    list("first page (limit 100)", "", every),
    list("offset 50,000", "?offset=50000", every, 50_000),
    list("`properties` plan = pro", `?properties=${filter}`, pro),
    list("`properties` plan = pro, offset 50,000", `?properties=${filter}&offset=50000`, pro, 50_000),
    list("`properties` n = 4242", `?properties=${rare}`, (n) => n === 4242),
    // The email user<n>@example.com holds "user4242" when n's digits start with 4242 (distinct ids are user-<n>).
    list("`search` user4242", "?search=user4242", (n) => String(n).startsWith("4242")),
    list("`search` example.com (every person)", "?search=example.com", every),
    list("`distinct_id` user-77777", "?distinct_id=user-77777", (n) => n === 77777),
  ];
  progress("checking each request's answer once:");
  await checkAnswers(runs);

  const results = [];
  // One connection gives the latency of a single request; four show it under concurrent load.
  for (const connections of [1, 4])
    for (const run of runs) {
      progress(`load: ${run.title}, ${connections} connection(s)`);
      const options = { url: run.url, headers: run.headers, title: run.title, connections };
      results.push(await load(connections === 1 ? { ...options, duration: 5 } : options));
    }
  const url = new URL(server.url);
  const section = report({
    started,
    d1Timings,
    chTimings,
    d1Size,
    chSize,
    server: process.env.CLICKHOUSE_URL ? `${url.protocol}//${url.host}` : "local-clickhouse (chdb)",
    results,
  });
  console.log(`\n${section}`);
  if (RECORD) record(section);
  else progress(`not recorded in bench/RESULTS.md (${args["no-record"] ? "--no-record" : "under 1,000,000 persons"})`);
} finally {
  await worker?.stop();
  await client?.command({ query: `DROP DATABASE IF EXISTS ${DATABASE}` }).catch(() => {});
  await client?.close();
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
}
