// Capture throughput: events per second stored through POST /batch/ (posthog-node's classic path) and
// POST /i/v1/analytics/events (Capture V1, posthog-node with POSTHOG_CAPTURE_MODE=v1), with batches of
// 100 and 1000 events, beside the worker's bare /_health route in the same run.
// Usage: node bench/capture.mjs   (starts its own wrangler dev with fresh local D1)
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../scripts/lib/local-worker.mjs";
import { load, machine, startBenchWorker } from "./lib.mjs";

const worker = await startBenchWorker();
try {
  const token = worker.project.api_token;
  // The same events as posthog-node sends them in each protocol (v0 carries $lib and $lib_version in the
  // properties, v1 in PostHog-Sdk-Info): 50 users per batch, a $set each, uuids made new for every request
  // (the template's `REQUESTN` is replaced), so each request stores new events and both pay the same.
  const events = (size) =>
    Array.from({ length: size }, (_, i) => ({
      uuid: `REQUESTN-0000-4000-8000-${String(i).padStart(12, "0")}`,
      event: "$pageview",
      distinct_id: `user-${i % 50}`,
      properties: { $current_url: `https://example.com/page/${i}`, $browser: "Chrome", $set: { plan: "free" } },
      timestamp: new Date().toISOString(),
    }));
  const protocols = {
    "/batch/": {
      headers: { "content-type": "application/json" },
      body: (size) =>
        JSON.stringify({
          api_key: token,
          sent_at: new Date().toISOString(),
          batch: events(size).map((e) => ({
            ...e,
            properties: { ...e.properties, $lib: "posthog-node", $lib_version: "5.70.0" },
          })),
        }),
    },
    "/i/v1/analytics/events": {
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
        "posthog-sdk-info": "posthog-node/5.70.0",
        "posthog-attempt": "1",
        "posthog-request-timestamp": new Date().toISOString(),
      },
      body: (size) =>
        JSON.stringify({
          created_at: new Date().toISOString(),
          batch: events(size).map((e) => ({ ...e, options: {} })),
        }),
    },
  };
  let request = 0;
  const fresh = (template) => (req) => ({
    ...req,
    body: template.replaceAll("REQUESTN", (++request).toString(16).padStart(8, "0")),
  });

  // Each protocol twice per size, in the order A B B A: the database grows through the run, and a later
  // run inserts into larger indexes, so neither protocol gets only the later runs.
  const results = [await load({ title: "GET /_health (bare route)", url: `${worker.url}/_health` })];
  const paths = Object.keys(protocols);
  for (const size of [100, 1000]) {
    for (const path of [...paths, ...[...paths].reverse()]) {
      const protocol = protocols[path];
      const r = await load({
        title: `POST ${path} × ${size} events`,
        url: `${worker.url}${path}`,
        method: "POST",
        headers: protocol.headers,
        requests: [{ setupRequest: fresh(protocol.body(size)) }],
      });
      results.push({ ...r, size, eventsPerSec: r.requestsPerSec * size });
      console.error(`${r.title}: ${r.requestsPerSec * size} events/s, p50 ${r.latencyMs.p50} ms, non-2xx ${r.non2xx}`);
    }
  }
  const summary = results.slice(1).reduce((acc, r) => {
    (acc[r.title] ??= []).push(r.eventsPerSec);
    return acc;
  }, {});
  const meanEventsPerSec = Object.fromEntries(
    Object.entries(summary).map(([title, runs]) => [title, Math.round(runs.reduce((a, b) => a + b, 0) / runs.length)]),
  );
  const wrangler = execFileSync(process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "--version"], {
    encoding: "utf8",
  }).trim();
  const accepted = results.slice(1).reduce((n, r) => n + (r.total - r.non2xx) * r.size, 0);
  const [{ n: stored }] = worker.sql("SELECT count(*) AS n FROM events");
  console.log(
    JSON.stringify(
      { machine: machine(), wrangler, meanEventsPerSec, results, eventsAccepted: accepted, eventsStored: stored },
      null,
      2,
    ),
  );
} finally {
  await worker.stop();
}
