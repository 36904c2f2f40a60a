// Capture into ClickHouse through the events queue, end to end: posthog-node-shaped batches posted
// to /batch/ of a wrangler dev configured for ClickHouse (the events queue bound, its consumer
// running locally), counted once they are in local ClickHouse (chdb). Two runs:
//   steady   load for --duration s, then until every accepted event is stored: events/s end to end;
//   outage   load for --duration + --outage s, ClickHouse stopped for --outage s from the 5th second:
//            capture keeps answering, and the events stored afterwards equal the events accepted.
// Usage: node bench/capture-clickhouse.mjs [--duration 10] [--outage 30]   (npm run clickhouse:install once)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startLocalClickHouse } from "../scripts/lib/local-clickhouse.mjs";
import { freePort, ROOT } from "../scripts/lib/local-worker.mjs";
import { withEventQueues } from "../scripts/lib/wrangler-config.mjs";
import { machine, ROOT_KEY, startBenchWorker } from "./lib.mjs";

const { values } = parseArgs({ options: { duration: { type: "string" }, outage: { type: "string" } } });
const DURATION = Number(values.duration ?? 10);
const OUTAGE = Number(values.outage ?? 30);
const BATCH = 100;

const dataDir = mkdtempSync(join(tmpdir(), "edgehog-bench-clickhouse-"));
const port = await freePort();
const startClickHouse = () => startLocalClickHouse({ port, dataDir, quiet: true });
let clickhouse = await startClickHouse();
// The same generated config as `npm run dev -- --clickhouse` (at the root, so its paths hold).
const config = join(ROOT, "wrangler.clickhouse.toml");
writeFileSync(config, withEventQueues(readFileSync(join(ROOT, "wrangler.toml"), "utf8")));
const worker = await startBenchWorker({ config, vars: { CLICKHOUSE_URL: clickhouse.url } });

/** Events of a project in ClickHouse: rows, and distinct uuids (a copy stored twice shows as rows > uuids). */
async function stored(project) {
  const query = `SELECT count(), uniqExact(uuid) FROM events WHERE team_id = ${project} FORMAT TSV`;
  const text = await (await fetch(`${clickhouse.url}/?query=${encodeURIComponent(query)}`)).text();
  const [rows, uuids] = text.trim().split("\t").map(Number);
  return { rows, uuids };
}

async function project(name) {
  const res = await fetch(`${worker.url}/api/projects/`, {
    method: "POST",
    headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  return res.json();
}

/**
 * Posts batches for `seconds` from 8 concurrent senders, each waiting for its answer before the next
 * (so no request is cut off at the end, and every accepted event is counted): resolves with the
 * events accepted (200 × batch size), the failures, and the capture rate and latency.
 */
async function load(token, seconds) {
  const body = JSON.stringify({
    api_key: token,
    // 50 users per batch; no uuid, so every request stores new events.
    batch: Array.from({ length: BATCH }, (_, i) => ({
      event: "$pageview",
      distinct_id: `user-${i % 50}`,
      properties: { $current_url: `https://example.com/page/${i}`, $browser: "Chrome", $set: { plan: "free" } },
    })),
  });
  const started = Date.now();
  const until = started + seconds * 1000;
  const latencies = [];
  let ok = 0;
  let failed = 0;
  const sender = async () => {
    while (Date.now() < until) {
      const t = performance.now();
      const res = await fetch(`${worker.url}/batch/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }).catch(() => null);
      await res?.arrayBuffer();
      latencies.push(performance.now() - t);
      if (res?.status === 200) ok++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, sender));
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
  return {
    requests: ok + failed,
    failed,
    accepted: ok * BATCH,
    captureEventsPerSec: Math.round((ok * BATCH) / ((Date.now() - started) / 1000)),
    latencyMs: { p50: at(0.5), p99: at(0.99) },
  };
}

/** Polls until every accepted event is in ClickHouse (or `timeoutMs` passes); resolves with the last count and when. */
async function drained(projectId, accepted, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = { rows: 0, uuids: 0 };
  while (Date.now() < deadline) {
    last = await stored(projectId).catch(() => last);
    if (last.uuids >= accepted) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return { ...last, at: Date.now() };
}

try {
  const steadyProject = await project("steady");
  const start = Date.now();
  const steady = await load(steadyProject.api_token, DURATION);
  const loadEnd = Date.now();
  const done = await drained(steadyProject.id, steady.accepted, 120_000);
  const steadyResult = {
    ...steady,
    stored: done,
    drainAfterLoadMs: done.at - loadEnd,
    endToEndEventsPerSec: Math.round(done.uuids / ((done.at - start) / 1000)),
  };

  const outageProject = await project("outage");
  const outageStart = Date.now();
  const loading = load(outageProject.api_token, DURATION + OUTAGE);
  await new Promise((r) => setTimeout(r, 5_000));
  await clickhouse.stop();
  const stoppedAt = Date.now();
  await new Promise((r) => setTimeout(r, OUTAGE * 1000));
  clickhouse = await startClickHouse();
  const restartedAt = Date.now();
  const outage = await loading;
  const outageLoadEnd = Date.now();
  const after = await drained(outageProject.id, outage.accepted, 600_000);
  const outageResult = {
    ...outage,
    clickhouseDownSeconds: Math.round((restartedAt - stoppedAt) / 100) / 10,
    clickhouseStoppedAtSecond: Math.round((stoppedAt - outageStart) / 100) / 10,
    stored: after,
    storedEqualsAccepted: after.uuids === outage.accepted,
    drainAfterLoadMs: after.at - outageLoadEnd,
  };
  const wrangler = execFileSync(process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "--version"], {
    encoding: "utf8",
  }).trim();
  console.log(
    JSON.stringify({ machine: machine(), wrangler, batch: BATCH, steady: steadyResult, outage: outageResult }, null, 2),
  );
} finally {
  await worker.stop();
  await clickhouse.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
