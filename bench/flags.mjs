// Throughput and latency of the flag SDK routes beside bare routes of the same workerd, in one run.
//
//   node bench/flags.mjs [--duration 10] [--connections 32] [--rounds 3] [--only REGEX] [--baseline DIR]
//
// --baseline DIR serves a second copy of the worker built from DIR (another checkout, e.g.
// `git archive main | tar -x -C DIR` with node_modules linked) in its own workerd, seeds it the same
// way, and measures each of its routes right after the same route of this tree, so a change is
// compared in adjacent seconds of the same run.
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
import { gzipSync } from "node:zlib";
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
const ROOT_KEY = "phx_bench_root_key_for_local_benchmarks";

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
    // The floor for /flags (a): a POST whose JSON body is read, answered with a static body of its size.
    if (url.pathname.endsWith("/sized")) {
      await request.json();
      return new Response("x".repeat(Number(url.searchParams.get("bytes"))), { headers: { "content-type": "application/json" } });
    }
    if (url.pathname.endsWith("/kv")) return new Response(await env.FLAGS_KV.get(url.searchParams.get("key")));
    return new Response("not found", { status: 404 });
  },
};`;

/** Bundles the worker of checkout `root` and serves it (beside the bare worker) with Miniflare. */
async function serve(root) {
  const build = mkdtempSync(join(tmpdir(), "edgehog-bench-"));
  execFileSync(
    process.execPath,
    [join(root, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", build],
    {
      cwd: root,
      stdio: "ignore",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    },
  );
  const mf = new Miniflare({
    workers: [
      {
        name: "edgehog",
        modules: true,
        scriptPath: join(build, "index.js"),
        modulesRoot: build,
        // The HogQL parser's WebAssembly, extracted by the build step (design.md §7).
        modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }],
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
  for (const file of readdirSync(join(root, "drizzle"))
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    for (const statement of readFileSync(join(root, "drizzle", file), "utf8").split("--> statement-breakpoint")) {
      if (statement.trim()) await db.prepare(statement).run();
    }
  }
  return { mf, base, db, dispose: async () => (await mf.dispose(), rmSync(build, { recursive: true, force: true })) };
}

/** Seeds both scenario projects through the API and returns the scenarios of this server. */
async function seed({ base, db }, label) {
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
        ? {
            groups: [{ properties: [], rollout_percentage: 50 }],
            multivariate: {
              variants: [
                { key: "a", rollout_percentage: 50 },
                { key: "b", rollout_percentage: 50 },
              ],
            },
          }
        : { groups: [{ properties: [], rollout_percentage: (i * 7) % 101 }] };
    await api(`/api/projects/${rollouts.id}/feature_flags/`, { key: `rollout-${i}`, filters });
  }

  // (b) 50 flags on person properties and cohorts of a stored person.
  const targeted = await api("/api/projects/", { name: "bench targeting" });
  const person = await db
    .prepare("INSERT INTO persons (project_id, uuid, properties) VALUES (?, ?, ?) RETURNING id")
    .bind(
      targeted.id,
      crypto.randomUUID(),
      JSON.stringify({ plan: "pro", email: "someone@acme.com", age: 41, country: "DE" }),
    )
    .first();
  await db
    .prepare("INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, 'bench-user', ?)")
    .bind(targeted.id, person.id)
    .run();
  const cohort = await db
    .prepare("INSERT INTO cohorts (project_id, name, filters) VALUES (?, 'pros', ?) RETURNING id")
    .bind(
      targeted.id,
      JSON.stringify({
        properties: {
          type: "OR",
          values: [{ type: "AND", values: [{ key: "plan", type: "person", value: ["pro", "enterprise"] }] }],
        },
      }),
    )
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
    await api(`/api/projects/${targeted.id}/feature_flags/`, {
      key: `targeted-${i}`,
      filters: { groups: [{ properties, rollout_percentage: 80 }] },
    });
  }

  const key = (await api("/api/personal_api_keys/", { label: "bench", scopes: ["feature_flag:read"] })).value;
  const definitionsUrl = `${base}/flags/definitions?token=${rollouts.api_token}&send_cohorts`;
  const first = await fetch(definitionsUrl, { headers: { authorization: `Bearer ${key}` } });
  const etag = first.headers.get("etag");
  const payloadBytes = (await first.text()).length;
  const kvKey = `flagdefs:v1:${rollouts.api_token}:cohorts`;

  const flagsBody = (token, distinctId) =>
    JSON.stringify({ token, distinct_id: distinctId, person_properties: {}, groups: {}, group_properties: {} });
  const post = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: flagsBody(rollouts.api_token, "bench-user"),
  };
  const flagsBytes = (await (await fetch(`${base}/flags/?v=2`, post)).text()).length;
  const scenarios = [
    ["bare: empty route", { url: `${base}/__bare/empty` }],
    ["worker: /_health (the app's own empty route)", { url: `${base}/_health` }],
    ["bare: one D1 point read", { url: `${base}/__bare/d1?project=${targeted.id}&id=bench-user` }],
    [
      `bare: POST answered with ${flagsBytes} static bytes (the size of (a)'s response)`,
      { url: `${base}/__bare/sized?bytes=${flagsBytes}`, ...post },
    ],
    [`bare: one KV read (${payloadBytes} B)`, { url: `${base}/__bare/kv?key=${encodeURIComponent(kvKey)}` }],
    [
      "/flags?v=2, 50 pure rollouts (a)",
      {
        url: `${base}/flags/?v=2`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: flagsBody(rollouts.api_token, "bench-user"),
      },
    ],
    [
      "/flags?v=2, 50 flags on person props/cohorts (b)",
      {
        url: `${base}/flags/?v=2`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: flagsBody(targeted.api_token, "bench-user"),
      },
    ],
    // As posthog-js 1.449 sends it from a page on another origin: gzip as text/plain, no hint.
    [
      "/flags?v=2 from posthog-js: gzip text/plain with an Origin, 50 pure rollouts (a)",
      {
        url: `${base}/flags/?v=2`,
        method: "POST",
        headers: { "content-type": "text/plain", origin: "https://site.example" },
        body: gzipSync(flagsBody(rollouts.api_token, "bench-user")),
      },
    ],
    [
      "/array/<token>/config.js (remote config, from the cached definitions)",
      { url: `${base}/array/${rollouts.api_token}/config.js`, headers: { origin: "https://site.example" } },
    ],
    ["/flags/definitions 200", { url: definitionsUrl, headers: { authorization: `Bearer ${key}` } }],
    [
      "/flags/definitions 304",
      { url: definitionsUrl, headers: { authorization: `Bearer ${key}`, "if-none-match": etag } },
    ],
  ];
  return label
    ? scenarios
        .filter(([name]) => !name.startsWith("bare:") && !name.startsWith("worker:"))
        .map(([name, o]) => [`${label}: ${name}`, o])
    : scenarios;
}

const servers = [await serve(ROOT)];
const baselineIndex = process.argv.indexOf("--baseline");
if (baselineIndex > 0) servers.push(await serve(process.argv[baselineIndex + 1]));
const perServer = [await seed(servers[0], "")];
if (servers[1]) perServer.push(await seed(servers[1], "baseline"));
// Each route of this tree, then the same route of the baseline (when there is one).
const scenarios = perServer[0].flatMap(([name, options]) => {
  const twin = perServer[1]?.find(([other]) => other === `baseline: ${name}`);
  return twin ? [[name, options], twin] : [[name, options]];
});

const onlyIndex = process.argv.indexOf("--only");
const only = onlyIndex > 0 ? new RegExp(process.argv[onlyIndex + 1]) : undefined;
const ROUNDS = arg("rounds", 3);
const selected = scenarios.filter(([name]) => !only || only.test(name) || name.startsWith("bare: empty"));
for (const [, options] of selected) await autocannon({ ...options, connections: CONNECTIONS, duration: 2 }); // warm-up

// Other work on a shared machine shifts throughput between seconds; interleaving the scenarios
// over several rounds and keeping each one's median keeps the ratios honest.
const samples = new Map(selected.map(([name]) => [name, []]));
// With a baseline, odd rounds measure the baseline's route first, so neither copy always goes second.
const orderOf = (round) =>
  round % 2 === 0
    ? selected
    : selected.flatMap((s, i) =>
        s[0].startsWith("baseline: ") ? [] : selected[i + 1]?.[0] === `baseline: ${s[0]}` ? [selected[i + 1], s] : [s],
      );
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, options] of orderOf(round)) {
    const r = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION });
    const expected = name.endsWith("304") ? r["3xx"] : 0;
    samples.get(name).push({
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors: r.errors + r.timeouts + r.non2xx - expected,
    });
    console.error(`round ${round + 1} ${name}: ${Math.round(r.requests.average)} req/s`);
  }
}
const median = (xs) => {
  const sorted = [...xs].sort((x, y) => x - y),
    mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const rows = [...samples].map(([name, runs]) => ({
  name,
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
}));

const rpsOf = (prefix) => rows.find((r) => r.name.startsWith(prefix))?.rps ?? NaN;
const empty = rpsOf("bare: empty"),
  d1 = rpsOf("bare: one D1"),
  kv = rpsOf("bare: one KV");
console.log(
  `\nnode ${process.version}, ${cpus().length} × ${cpus()[0].model}, autocannon -c ${CONNECTIONS} -d ${DURATION}, median of ${ROUNDS} interleaved rounds\n`,
);
console.log("| route | req/s | p50 ms | p99 ms | unexpected status/errors | vs bare |");
console.log("|---|---:|---:|---:|---:|---|");
for (const r of rows) {
  const ratio = r.name.includes("(a)")
    ? `${((r.rps / empty) * 100).toFixed(0)}% of empty`
    : r.name.includes("(b)")
      ? `${((r.rps / d1) * 100).toFixed(0)}% of D1 read`
      : r.name.endsWith("200")
        ? `${((r.rps / kv) * 100).toFixed(0)}% of KV read`
        : r.name.endsWith("304") || r.name.startsWith("/array/")
          ? `${((r.rps / empty) * 100).toFixed(0)}% of empty`
          : "";
  console.log(`| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${ratio} |`);
}

// Paired comparison: this tree's route / the baseline's, per round (adjacent seconds), then the median.
if (servers[1]) {
  console.log("\n| route | this tree / baseline, per round | median |\n|---|---|---:|");
  for (const [name, runs] of samples) {
    const twin = samples.get(`baseline: ${name}`);
    if (!twin) continue;
    const ratios = runs.map((r, i) => r.rps / twin[i].rps);
    console.log(`| ${name} | ${ratios.map((x) => x.toFixed(2)).join(", ")} | ${median(ratios).toFixed(2)} |`);
  }
}

// --cpu N: workerd CPU time (user + system, from /proc) per request over N requests of each
// route. CPU time, unlike throughput, barely moves when other processes share the cores.
const cpuIndex = process.argv.indexOf("--cpu");
if (cpuIndex > 0) {
  const amount = Number(process.argv[cpuIndex + 1]);
  const TICK_US = 1e6 / 100; // USER_HZ
  const stat = (pid) =>
    readFileSync(`/proc/${pid}/stat`, "utf8")
      .slice(readFileSync(`/proc/${pid}/stat`, "utf8").lastIndexOf(")") + 2)
      .split(" ");
  // Each Miniflare runs one workerd, a child of this process; they started in the order of `servers`.
  const workerds = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map((pid) => {
      try {
        const f = stat(pid);
        return {
          pid,
          ppid: Number(f[1]),
          start: Number(f[19]),
          comm: readFileSync(`/proc/${pid}/comm`, "utf8").trim(),
        };
      } catch {
        return undefined;
      }
    })
    .filter((p) => p && p.ppid === process.pid && p.comm.startsWith("workerd"))
    .sort((a, b) => a.start - b.start);
  const cpuOf = (pid) => {
    const f = stat(pid);
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  };
  console.log(`\n| route | workerd CPU µs per request (${amount} requests) | vs bare |\n|---|---:|---|`);
  const perRequest = new Map();
  for (const [name, options] of selected) {
    const pid = workerds[name.startsWith("baseline: ") ? 1 : 0]?.pid;
    if (!pid) continue;
    const before = cpuOf(pid);
    await autocannon({ ...options, connections: CONNECTIONS, amount });
    perRequest.set(name, (cpuOf(pid) - before) / amount);
  }
  const emptyCpu = perRequest.get("bare: empty route");
  const d1Cpu = [...perRequest].find(([n]) => n.startsWith("bare: one D1"))?.[1];
  const kvCpu = [...perRequest].find(([n]) => n.startsWith("bare: one KV"))?.[1];
  for (const [name, us] of perRequest) {
    const vs =
      name.includes("(a)") || name.endsWith("304")
        ? `${(us / emptyCpu).toFixed(2)}× empty`
        : name.includes("(b)")
          ? `${(us / d1Cpu).toFixed(2)}× D1 read`
          : name.endsWith("200")
            ? `${(us / kvCpu).toFixed(2)}× KV read`
            : "";
    console.log(`| ${name} | ${us.toFixed(0)} | ${vs} |`);
  }
}
for (const server of servers) await server.dispose();
