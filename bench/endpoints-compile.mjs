// Compile time per HogQL query: bundles src/hogql/compile.ts for Node with esbuild (the parser's
// wasm loaded from the file build-assets extracts) and times parse + compile.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { build } from "esbuild";
import { ROOT } from "../scripts/lib/local-worker.mjs";

const QUERIES = [
  "select count() from events",
  "select event, count() from events where timestamp > now() - interval 7 day group by event order by count() desc limit 10",
  "select toDate(timestamp) as date, count() as event_count from events where properties.customer_id = {variables.customer_id} and timestamp >= now() - interval 30 day group by date order by date",
  "select properties.$current_url as url, count() from events where event = '$pageview' group by url order by count() desc limit 10",
  "select person.properties.email as email, countIf(event = 'purchase') as purchases, sumIf(properties.amount, event = 'purchase') as revenue from events group by email having purchases > 0 order by revenue desc",
  "with signups as (select distinct_id, min(timestamp) as first from events where event = 'signup' group by distinct_id) select toStartOfWeek(first) as week, count() as users, countIf(dateDiff('day', first, now()) < 30) as recent from signups group by week order by week",
];

export async function compileTimes(iterations = 300) {
  const wasmPlugin = {
    name: "wasm-module",
    setup(b) {
      b.onLoad({ filter: /\.wasm$/ }, (args) => ({
        contents: `export default new WebAssembly.Module(new Uint8Array(${JSON.stringify([...readFileSync(args.path)])}));`,
        loader: "js",
      }));
    },
  };
  const out = await build({
    entryPoints: [join(ROOT, "src/hogql/compile.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    plugins: [wasmPlugin],
  });
  const url = `data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`;
  const { compileHogQL } = await import(url);
  const results = [];
  for (const q of QUERIES) {
    for (let i = 0; i < 20; i++) await compileHogQL(q); // warm up
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await compileHogQL(q);
    results.push([q, ((performance.now() - start) * 1000) / iterations]);
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [q, us] of await compileTimes()) console.log(`${us.toFixed(0)} µs  ${q}`);
}
