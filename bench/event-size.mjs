// How many bytes one stored event takes in D1 (row and indexes), for the capacity arithmetic in
// docs/operations.md: captures N posthog-js-shaped $pageview events through POST /batch/ into a
// fresh local D1 (the real pipeline: persons, distinct ids, events) and divides the database
// file's growth by N.
// Usage: node bench/event-size.mjs [--events 100000]
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMigrations, startWorker } from "../scripts/lib/local-worker.mjs";
import { machine, ROOT_KEY } from "./lib.mjs";

const eventsArg = process.argv.indexOf("--events");
const EVENTS = eventsArg > 0 ? Number(process.argv[eventsArg + 1]) : 100_000;
const BATCH = 500;
const USERS = Math.max(1, Math.round(EVENTS / 20));

/** The properties posthog-js 1.x sends with a $pageview (values of typical length). */
function pageview(i) {
  const user = i % USERS;
  const path = `/products/${i % 997}/details`;
  return {
    event: "$pageview",
    distinct_id: `0192f7c3-${String(user).padStart(4, "0")}-7d8e-9a1b-2c3d4e5f6a7b`,
    timestamp: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
    properties: {
      $os: "Mac OS X",
      $os_version: "10.15.7",
      $browser: "Chrome",
      $browser_version: 131,
      $device_type: "Desktop",
      $current_url: `https://shop.example.com${path}?utm_source=newsletter`,
      $host: "shop.example.com",
      $pathname: path,
      $raw_user_agent:
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      $screen_height: 1117,
      $screen_width: 1728,
      $viewport_height: 959,
      $viewport_width: 1728,
      $lib: "web",
      $lib_version: "1.449.2",
      $insert_id: `${i.toString(36)}k2j3h4g5f6`,
      $time: 1793491200 + i,
      distinct_id: `0192f7c3-${String(user).padStart(4, "0")}-7d8e-9a1b-2c3d4e5f6a7b`,
      $device_id: `0192f7c3-${String(user).padStart(4, "0")}-7d8e-9a1b-2c3d4e5f6a7b`,
      $referrer: "https://www.google.com/",
      $referring_domain: "www.google.com",
      $session_id: `0192f7c4-${String(user).padStart(4, "0")}-7000-8000-${String(Math.floor(i / 40)).padStart(12, "0")}`,
      $window_id: `0192f7c4-${String(user).padStart(4, "0")}-7000-8000-aaaaaaaaaaaa`,
      $pageview_id: `0192f7c5-${String(i).padStart(8, "0")}-7000-8000-bbbbbbbbbbbb`,
      $is_identified: false,
      $process_person_profile: true,
      utm_source: "newsletter",
      title: "Product details | Shop",
    },
  };
}

/** The local D1 database's files: the database and its write-ahead log. */
const d1Bytes = (state) => {
  let total = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.sqlite(-wal)?$/.test(entry.name) && dir.includes("d1")) {
        total += statSync(path).size;
        if (entry.name.endsWith("-wal")) walBytes = statSync(path).size;
      }
    }
  };
  walk(state);
  return total;
};

let walBytes = 0;
const state = mkdtempSync(join(tmpdir(), "edgehog-event-size-"));
try {
  applyMigrations({ persistTo: state, quiet: true });
  let worker = await startWorker({ persistTo: state, vars: { ROOT_API_KEY: ROOT_KEY } });
  const project = await (
    await fetch(`${worker.url}/api/projects/`, {
      method: "POST",
      headers: { authorization: `Bearer ${ROOT_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "size" }),
    })
  ).json();
  await worker.stop();
  const before = d1Bytes(state);
  worker = await startWorker({ persistTo: state, vars: { ROOT_API_KEY: ROOT_KEY } });
  const started = Date.now();
  for (let i = 0; i < EVENTS; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, k) => pageview(i + k));
    const res = await fetch(`${worker.url}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: project.api_token, batch }),
    });
    if (!res.ok) throw new Error(`capture failed: ${res.status} ${await res.text()}`);
    if ((i / BATCH) % 40 === 0) process.stderr.write(`  ${i} / ${EVENTS} events sent\n`);
  }
  const seconds = (Date.now() - started) / 1000;
  // Stopping closes the database, which checkpoints its write-ahead log into the file.
  await worker.stop();
  const after = d1Bytes(state);
  const perEvent = (after - before) / EVENTS;
  const sample = JSON.stringify(pageview(1).properties).length;
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        events: EVENTS,
        persons: USERS,
        propertiesJsonBytes: sample,
        d1GrowthBytes: after - before,
        walBytesAfter: walBytes,
        bytesPerEvent: Math.round(perEvent),
        eventsPer10GB: Math.round(10e9 / perEvent),
        captureSeconds: seconds,
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(state, { recursive: true, force: true });
}
