// Throughput and latency of the flag SDK routes beside bare routes of the same workerd, in one run.
//
//   node bench/flags.mjs [--duration 10] [--connections 32]
//
// wrangler dev puts a second workerd (a proxy) in front of the worker, which caps throughput
// (design.md §8), so this bundles the worker with `wrangler deploy --dry-run` and serves it with
// Miniflare directly. A second worker in the same workerd answers the bare routes (an empty
// response, one indexed D1 point read, one KV read of the definitions payload) against the same
// D1 database and KV namespace.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, cpus } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import autocannon from "autocannon";
import { ROOT } from "../scripts/lib/local-worker.mjs";

// The Miniflare (and workerd) that wrangler 4.86 itself runs, so the figures match `wrangler dev`'s worker.
const { Miniflare } = createRequire(join(ROOT, "node_modules/wrangler/package.json"))("miniflare");

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const DURATION = arg("duration", 10);
const CONNECTIONS = arg("connections", 32);
const ROOT_KEY = "phx_bench_root_key";

const build = mkdtempSync(join(tmpdir(), "edgehog-bench-"));
execFileSync(process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", build], {
  cwd: ROOT,
  stdio: "ignore",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
});

const BARE = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname.endsWith("/empty")) return new Response("ok");
    if (url.pathname.endsWith("/d1")) {
      const row = await env.DB.prepare("SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?")
        .bind(Number(url.searchParams.get("project")), url.searchParams.get("id")).first();
      return Response.json(row);
    }
    if (url.pathname.endsWith("/kv")) return new Response(await env.FLAGS_KV.get(url.searchParams.get("key")));
    return new Response("not found", { status: 404 });
  },
};`;

const mf = new Miniflare({
  workers: [
    {
      name: "edgehog",
      modules: true,
      scriptPath: join(build, "index.js"),
      modulesRoot: build,
      compatibilityDate: "2026-04-20",
      compatibilityFlags: ["nodejs_compat"],
      d1Databases: { DB: "bench-db" },
      kvNamespaces: { FLAGS_KV: "bench-kv" },
      durableObjects: { ENDPOINT_MATERIALIZER: { className: "EndpointMaterializer", useSQLite: true } },
      bindings: { ROOT_API_KEY: ROOT_KEY },
    },
    {
      name: "bare",
      modules: true,
      script: BARE,
      compatibilityDate: "2026-04-20",
      d1Databases: { DB: "bench-db" },
      kvNamespaces: { FLAGS_KV: "bench-kv" },
      routes: ["*/__bare/*"],
    },
  ],
});
const base = (await mf.ready).toString().replace(/\/$/, "");
const db = await mf.getD1Database("DB", "edgehog");

for (const file of readdirSync(join(ROOT, "drizzle")).filter((f) => f.endsWith(".sql")).sort()) {
  for (const statement of readFileSync(join(ROOT, "drizzle", file), "utf8").split("--> statement-breakpoint")) {
    if (statement.trim()) await db.prepare(statement).run();
  }
}

async function api(path, body, method = "POST") {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

// (a) 50 pure-rollout flags: no flag needs stored person data.
const rollouts = await api("/api/projects/", { name: "bench rollouts" });
for (let i = 0; i < 50; i++) {
  const filters =
    i % 5 === 0
      ? { groups: [{ properties: [], rollout_percentage: 50 }], multivariate: { variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 50 }] } }
      : { groups: [{ properties: [], rollout_percentage: (i * 7) % 101 }] };
  await api(`/api/projects/${rollouts.id}/feature_flags/`, { key: `rollout-${i}`, filters });
}

// (b) 50 flags on person properties and cohorts of a stored person.
const targeted = await api("/api/projects/", { name: "bench targeting" });
const person = await db
  .prepare("INSERT INTO persons (project_id, uuid, properties) VALUES (?, ?, ?) RETURNING id")
  .bind(targeted.id, crypto.randomUUID(), JSON.stringify({ plan: "pro", email: "someone@acme.com", age: 41, country: "DE" }))
  .first();
await db.prepare("INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, 'bench-user', ?)").bind(targeted.id, person.id).run();
const cohort = await db
  .prepare("INSERT INTO cohorts (project_id, name, filters) VALUES (?, 'pros', ?) RETURNING id")
  .bind(targeted.id, JSON.stringify({ properties: { type: "OR", values: [{ type: "AND", values: [{ key: "plan", type: "person", value: ["pro", "enterprise"] }] }] } }))
  .first();
for (let i = 0; i < 50; i++) {
  const properties =
    i % 4 === 0
      ? [{ key: "id", type: "cohort", value: cohort.id }]
      : i % 4 === 1
        ? [{ key: "email", type: "person", operator: "icontains", value: "@acme.com" }]
        : i % 4 === 2
          ? [{ key: "age", type: "person", operator: "gt", value: i }]
          : [{ key: "country", type: "person", operator: "exact", value: ["DE", "FR"] }];
  await api(`/api/projects/${targeted.id}/feature_flags/`, { key: `targeted-${i}`, filters: { groups: [{ properties, rollout_percentage: 80 }] } });
}

const key = (await api("/api/personal_api_keys/", { label: "bench", scopes: ["feature_flag:read"] })).value;
const definitionsUrl = `${base}/flags/definitions?token=${rollouts.api_token}&send_cohorts`;
const first = await fetch(definitionsUrl, { headers: { authorization: `Bearer ${key}` } });
const etag = first.headers.get("etag");
const payloadBytes = (await first.text()).length;
const kvKey = `flagdefs:v1:${rollouts.api_token}:cohorts`;

const flagsBody = (token, distinctId) => JSON.stringify({ token, distinct_id: distinctId, person_properties: {}, groups: {}, group_properties: {} });
const scenarios = [
  ["bare: empty route", { url: `${base}/__bare/empty` }],
  ["worker: /_health (the app's own empty route)", { url: `${base}/_health` }],
  ["bare: one D1 point read", { url: `${base}/__bare/d1?project=${targeted.id}&id=bench-user` }],
  [`bare: one KV read (${payloadBytes} B)`, { url: `${base}/__bare/kv?key=${encodeURIComponent(kvKey)}` }],
  ["/flags?v=2, 50 pure rollouts (a)", { url: `${base}/flags/?v=2`, method: "POST", headers: { "content-type": "application/json" }, body: flagsBody(rollouts.api_token, "bench-user") }],
  ["/flags?v=2, 50 flags on person props/cohorts (b)", { url: `${base}/flags/?v=2`, method: "POST", headers: { "content-type": "application/json" }, body: flagsBody(targeted.api_token, "bench-user") }],
  ["/flags/definitions 200", { url: definitionsUrl, headers: { authorization: `Bearer ${key}` } }],
  ["/flags/definitions 304", { url: definitionsUrl, headers: { authorization: `Bearer ${key}`, "if-none-match": etag } }],
];

const onlyIndex = process.argv.indexOf("--only");
const only = onlyIndex > 0 ? new RegExp(process.argv[onlyIndex + 1]) : undefined;
const ROUNDS = arg("rounds", 3);
const selected = scenarios.filter(([name]) => !only || only.test(name) || name.startsWith("bare: empty"));
for (const [, options] of selected) await autocannon({ ...options, connections: CONNECTIONS, duration: 2 }); // warm-up

// Other work on a shared machine shifts throughput between seconds; interleaving the scenarios
// over several rounds and keeping each one's median keeps the ratios honest.
const samples = new Map(selected.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, options] of selected) {
    const r = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
    const expected = name.endsWith("304") ? r["3xx"] : 0;
    samples.get(name).push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx - expected });
    console.error(`round ${round + 1} ${name}: ${Math.round(r.requests.average)} req/s`);
  }
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const rows = [...samples].map(([name, runs]) => ({
  name,
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
}));

const rpsOf = (prefix) => rows.find((r) => r.name.startsWith(prefix))?.rps ?? NaN;
const empty = rpsOf("bare: empty"), d1 = rpsOf("bare: one D1"), kv = rpsOf("bare: one KV");
console.log(`\nnode ${process.version}, ${cpus().length} × ${cpus()[0].model}, autocannon -c ${CONNECTIONS} -d ${DURATION}, median of ${ROUNDS} interleaved rounds\n`);
console.log("| route | req/s | p50 ms | p99 ms | unexpected status/errors | vs bare |");
console.log("|---|---:|---:|---:|---:|---|");
for (const r of rows) {
  const ratio = r.name.includes("(a)")
    ? `${((r.rps / empty) * 100).toFixed(0)}% of empty`
    : r.name.includes("(b)")
      ? `${((r.rps / d1) * 100).toFixed(0)}% of D1 read`
      : r.name.endsWith("200")
        ? `${((r.rps / kv) * 100).toFixed(0)}% of KV read`
        : r.name.endsWith("304")
          ? `${((r.rps / empty) * 100).toFixed(0)}% of empty`
          : "";
  console.log(`| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${ratio} |`);
}
await mf.dispose();
rmSync(build, { recursive: true, force: true });
