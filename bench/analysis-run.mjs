// Times each persons-analysis view over the generated data set in local D1.
//
//   node bench/analysis-run.mjs --load          # generate + load (1M events / 50k persons), then time
//   node bench/analysis-run.mjs                 # time again over the loaded state
//
// Loading uses `wrangler d1 execute --local --file` per 100k-event chunk; timing goes through
// `wrangler dev` (its proxy adds about a millisecond, small beside these queries), sequential
// requests, 3 runs per view, reporting the median and the fastest.
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { applyMigrations, ROOT, startWorker, wrangler } from "../scripts/lib/local-worker.mjs";
import "../scripts/build-assets.mjs";

const { values: args } = parseArgs({
  options: {
    load: { type: "boolean", default: false },
    events: { type: "string", default: "1000000" },
    persons: { type: "string", default: "50000" },
    state: { type: "string", default: "/tmp/edgehog-analysis-state" },
    sql: { type: "string", default: "/tmp/edgehog-analysis-sql" },
    runs: { type: "string", default: "3" },
  },
});
const KEY = "phx_analysis_bench_root_key_for_local_runs";

if (args.load) {
  rmSync(args.state, { recursive: true, force: true });
  applyMigrations({ persistTo: args.state, quiet: true });
  const started = Date.now();
  console.log(
    execFileSync(
      process.execPath,
      [
        join(ROOT, "bench/analysis-generate.mjs"),
        "--events",
        args.events,
        "--persons",
        args.persons,
        "--out",
        args.sql,
      ],
      { encoding: "utf8" },
    ).trim(),
  );
  for (const file of readdirSync(args.sql).sort()) {
    wrangler(["d1", "execute", "DB", "--local", "--persist-to", args.state, "--file", join(args.sql, file)], {
      quiet: true,
    });
    process.stdout.write(`loaded ${file}\n`);
  }
  console.log(`generated and loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const steps = (names) => encodeURIComponent(JSON.stringify(names.map((id, order) => ({ id, type: "events", order }))));
const FUNNEL = steps(["product_viewed", "added_to_cart", "checkout_started", "purchased"]);
const RANGE = "date_from=2024-03-01&date_to=2024-03-31";
const P = "/api/environments/1/persons";
const views = [
  ["bare route (/_health)", "/_health"],
  ["funnel ordered, step 2", `${P}/funnel/?events=${FUNNEL}&${RANGE}&funnel_step=2`],
  ["funnel ordered, dropped before step 4", `${P}/funnel/?events=${FUNNEL}&${RANGE}&funnel_step=-4`],
  ["funnel strict, step 2", `${P}/funnel/?events=${FUNNEL}&${RANGE}&funnel_step=2&funnel_order_type=strict`],
  ["funnel unordered, step 4", `${P}/funnel/?events=${FUNNEL}&${RANGE}&funnel_step=4&funnel_order_type=unordered`],
  [
    "funnel breakdown $browser=Chrome, step 4",
    `${P}/funnel/?events=${FUNNEL}&${RANGE}&funnel_step=4&breakdown=$browser&funnel_step_breakdown=Chrome`,
  ],
  [
    "correlation persons ($autocapture, dropped off)",
    `${P}/funnel/correlation/?events=${FUNNEL}&${RANGE}&funnel_correlation_person_entity=${encodeURIComponent('{"id":"$autocapture","type":"events"}')}&funnel_correlation_person_converted=false`,
  ],
  ["correlation persons + events table", `${P}/funnel/correlation/?events=${FUNNEL}&${RANGE}&include_correlation=true`],
  [
    "lifecycle $pageview day, returning 03-15",
    `${P}/lifecycle/?events=${steps(["$pageview"])}&${RANGE}&target_date=2024-03-15&lifecycle_type=returning`,
  ],
  [
    "lifecycle $pageview day, dormant 03-15",
    `${P}/lifecycle/?events=${steps(["$pageview"])}&${RANGE}&target_date=2024-03-15&lifecycle_type=dormant`,
  ],
  [
    "stickiness $pageview, exactly 3 days",
    `${P}/stickiness/?entity_id=$pageview&entity_type=events&${RANGE}&stickiness_days=3`,
  ],
  [
    "stickiness $pageview weekly, exactly 2 weeks",
    `${P}/stickiness/?entity_id=$pageview&entity_type=events&${RANGE}&stickiness_days=2&interval=week`,
  ],
];

const worker = await startWorker({ persistTo: args.state, vars: { ROOT_API_KEY: KEY } });
try {
  const count = JSON.parse(
    wrangler(
      [
        "d1",
        "execute",
        "DB",
        "--local",
        "--json",
        "--persist-to",
        args.state,
        "--command",
        "SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM persons) AS persons",
      ],
      { quiet: true },
    ),
  )[0].results[0];
  console.log(`data: ${count.events} events, ${count.persons} persons`);
  const rows = [];
  for (const [name, path] of views) {
    const times = [];
    let summary = "";
    for (let i = 0; i < Number(args.runs); i++) {
      const t0 = performance.now();
      const res = await fetch(`${worker.url}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
      const body = await res.json();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
      summary = body.results
        ? `${body.results[0].count} persons${body.next ? " (page full)" : ""}${body.correlation ? `, ${body.correlation.events.length} correlation rows` : ""}`
        : "";
    }
    times.sort((a, b) => a - b);
    rows.push(`| ${name} | ${times[Math.floor(times.length / 2)].toFixed(0)} | ${times[0].toFixed(0)} | ${summary} |`);
    console.log(rows.at(-1));
  }
  console.log(["", "| view | median ms | min ms | result |", "|---|---|---|---|", ...rows].join("\n"));
} finally {
  await worker.stop();
}
