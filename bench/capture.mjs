// Capture throughput: events per second stored through POST /batch/ (posthog-node's path), with
// batches of 100 and 1000 events, beside the worker's bare /_health route in the same run.
// Usage: node bench/capture.mjs   (starts its own wrangler dev with fresh local D1)
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../scripts/lib/local-worker.mjs";
import { load, machine, startBenchWorker } from "./lib.mjs";

const worker = await startBenchWorker();
try {
  const batchBody = (size) =>
    JSON.stringify({
      api_key: worker.project.api_token,
      sent_at: new Date().toISOString(),
      // 50 users per batch; no uuid, so every request stores new events.
      batch: Array.from({ length: size }, (_, i) => ({
        event: "$pageview",
        distinct_id: `user-${i % 50}`,
        properties: {
          $current_url: `https://example.com/page/${i}`,
          $browser: "Chrome",
          $lib: "posthog-node",
          $set: { plan: "free" },
        },
        timestamp: new Date().toISOString(),
      })),
    });
  const results = [await load({ title: "GET /_health (bare route)", url: `${worker.url}/_health` })];
  for (const size of [100, 1000]) {
    const r = await load({
      title: `POST /batch/ × ${size} events`,
      url: `${worker.url}/batch/`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: batchBody(size),
    });
    results.push({ ...r, eventsPerSec: r.requestsPerSec * size });
  }
  const wrangler = execFileSync(process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "--version"], {
    encoding: "utf8",
  }).trim();
  const sent = results.slice(1).reduce((n, r) => n + (r.total - r.non2xx) * (r.title.includes("1000") ? 1000 : 100), 0);
  const [{ n: stored }] = worker.sql("SELECT count(*) AS n FROM events");
  console.log(
    JSON.stringify({ machine: machine(), wrangler, results, eventsAccepted: sent, eventsStored: stored }, null, 2),
  );
} finally {
  await worker.stop();
}
