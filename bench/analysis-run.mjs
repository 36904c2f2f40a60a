// Times each persons-analysis view over the generated data set in local D1.
//
//   node bench/analysis-run.mjs --load          # generate + load (1M events / 50k persons), then time
//   node bench/analysis-run.mjs                 # time again over the loaded state
//
// Loading uses `wrangler d1 execute --local --file` per 100k-event chunk; timing goes through
// `wrangler dev` (its proxy adds about a millisecond, small beside these queries), sequential
// requests, 3 runs per view, reporting the median and the fastest.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, startWorker, wrangler } from "../scripts/lib/local-worker.mjs";
import { loadIntoD1 } from "./analysis-load.mjs";
import "../scripts/build-assets.mjs";
import { ANALYSIS_VIEWS, summarize } from "./analysis-data.mjs";

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
  loadIntoD1(args.state, args.sql);
  console.log(`generated and loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const views = [["bare route (/_health)", "/_health"], ...ANALYSIS_VIEWS];

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
      summary = summarize(body);
    }
    times.sort((a, b) => a - b);
    rows.push(`| ${name} | ${times[Math.floor(times.length / 2)].toFixed(0)} | ${times[0].toFixed(0)} | ${summary} |`);
    console.log(rows.at(-1));
  }
  console.log(["", "| view | median ms | min ms | result |", "|---|---|---|---|", ...rows].join("\n"));
} finally {
  await worker.stop();
}
