// Endpoint runs over 1M events: inline (the compiled HogQL on D1) vs from the Durable Object's
// materialized table, the same for an insight endpoint (a TrendsQuery by $browser, read by its
// breakdown variable), beside the bare /_health route of the same worker; and HogQL compile time
// per query. Usage: node bench/endpoints.mjs [events=1000000]
// Seeds a throwaway local D1 with one SQL statement (a recursive CTE), then serves `wrangler dev`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { applyMigrations, startWorker } from "../scripts/lib/local-worker.mjs";
import { compileTimes } from "./endpoints-compile.mjs";
import { latencies, ms, pct, ROOT_KEY, seedD1Events } from "./lib.mjs";
import "../scripts/build-assets.mjs";

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const state = mkdtempSync(join(tmpdir(), "edgehog-bench-endpoints-"));

const t0 = performance.now();
applyMigrations({ persistTo: state, quiet: true });
seedD1Events(state, EVENTS);
console.log(`seeded ${EVENTS} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const worker = await startWorker({ persistTo: state, vars: { ROOT_API_KEY: ROOT_KEY } });
const api = async (path, body, attempt = 0) => {
  const res = await fetch(`${worker.url}${path}`, {
    method: body ? "POST" : "GET",
    headers: { authorization: `Bearer ${ROOT_KEY}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  // wrangler dev's proxy answers 503 while the worker (re)starts on a loaded machine.
  if (res.status === 503 && attempt < 5) {
    await new Promise((r) => setTimeout(r, 1000));
    return api(path, body, attempt + 1);
  }
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

/** Requests per second with `concurrency` callers for `seconds`. */
async function throughput(seconds, concurrency, fn) {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await fn(done);
        done++;
      }
    }),
  );
  return done / seconds;
}

try {
  const query =
    "select toStartOfDay(timestamp) as day, count() as events, uniq(distinct_id) as users, avg(properties.amount) as avg_amount " +
    "from events where event = {variables.event_name} and timestamp >= now() - interval 30 day group by day order by day";
  const variables = { v: { code_name: "event_name", value: "$pageview", type: "String" } };
  await api("/api/environments/1/endpoints/", {
    name: "daily",
    query: { kind: "HogQLQuery", query, variables },
    is_materialized: true,
    sync_frequency: "24hour",
  });
  await api("/api/environments/1/endpoints/", {
    name: "daily_inline",
    query: { kind: "HogQLQuery", query, variables },
  });
  const insight = {
    kind: "TrendsQuery",
    series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
    dateRange: { date_from: "-30d" },
    breakdownFilter: { breakdown: "$browser" },
  };
  await api("/api/environments/1/endpoints/", {
    name: "browsers",
    query: insight,
    is_materialized: true,
    sync_frequency: "24hour",
  });
  await api("/api/environments/1/endpoints/", { name: "browsers_inline", query: insight });
  const materializedOf = async (name) => {
    const m0 = performance.now();
    let status;
    do {
      await new Promise((r) => setTimeout(r, 200));
      status = await api(`/api/environments/1/endpoints/${name}/materialization_status`);
    } while (status.status === "Running");
    console.log(
      `materialization of ${name}: ${status.status} after ${((performance.now() - m0) / 1000).toFixed(1)} s ${status.error ?? ""}`,
    );
  };
  await materializedOf("daily");
  await materializedOf("browsers");

  const names = ["$pageview", "signup", "purchase"];
  const run =
    (refresh, name = "daily") =>
    (i) =>
      api(`/api/environments/1/endpoints/${name}/run`, { refresh, variables: { event_name: names[i % 3] } });
  const check = await run("force")(0);
  if (!check.endpoint_materialized) throw new Error("materialized run did not read the materialization");
  const inline = await latencies(6, run("force", "daily_inline"));
  const materialized = await latencies(200, run("force"));
  const cached = await latencies(200, run("cache", "daily_inline"));
  const health = await latencies(200, () => fetch(`${worker.url}/_health`).then((r) => r.text()));
  const rpsHealth = await throughput(5, 16, () => fetch(`${worker.url}/_health`).then((r) => r.text()));
  const rpsMaterialized = await throughput(5, 16, run("force"));
  const rpsInline = await throughput(10, 2, run("force", "daily_inline"));

  const browsers = ["Chrome", "Safari", "Firefox"];
  const runInsight = (refresh, name) => (i) =>
    api(`/api/environments/1/endpoints/${name}/run`, { refresh, variables: { $browser: browsers[i % 3] } });
  const insightCheck = await runInsight("force", "browsers")(0);
  if (!insightCheck.endpoint_materialized) throw new Error("materialized insight run did not read the materialization");
  const insightInline = await latencies(6, runInsight("force", "browsers_inline"));
  const insightMaterialized = await latencies(200, runInsight("force", "browsers"));

  console.log(`\nendpoint runs over ${EVENTS} events (rows returned: ${check.results.length}), via wrangler dev`);
  console.log("| route | median | p95 | req/s (concurrency) |\n|---|---|---|---|");
  console.log(`| /_health | ${ms(pct(health, 50))} | ${ms(pct(health, 95))} | ${rpsHealth.toFixed(0)} (16) |`);
  console.log(
    `| run, inline (refresh=force) | ${ms(pct(inline, 50))} | ${ms(pct(inline, 95))} | ${rpsInline.toFixed(1)} (2) |`,
  );
  console.log(
    `| run, from the materialization (refresh=force) | ${ms(pct(materialized, 50))} | ${ms(pct(materialized, 95))} | ${rpsMaterialized.toFixed(0)} (16) |`,
  );
  console.log(`| run, cached inline result (refresh=cache) | ${ms(pct(cached, 50))} | ${ms(pct(cached, 95))} | |`);
  console.log(
    `| insight run (dau by $browser, 30 days), inline (refresh=force) | ${ms(pct(insightInline, 50))} | ${ms(pct(insightInline, 95))} | |`,
  );
  console.log(
    `| insight run, from the materialization (refresh=force) | ${ms(pct(insightMaterialized, 50))} | ${ms(pct(insightMaterialized, 95))} | |`,
  );
  console.log(
    `\nmaterialized vs inline: ${(pct(inline, 50) / pct(materialized, 50)).toFixed(0)}x faster (median latency); insight: ${(pct(insightInline, 50) / pct(insightMaterialized, 50)).toFixed(0)}x`,
  );

  if (!process.env.QUICK) {
    console.log("\nHogQL compile time (parse + compile, Node, same V8 as workerd):");
    console.log("| query | µs per compile |\n|---|---|");
    for (const [q, us] of await compileTimes(50)) console.log(`| \`${q}\` | ${us.toFixed(0)} |`);
  }
} finally {
  await worker.stop();
  rmSync(state, { recursive: true, force: true });
}
