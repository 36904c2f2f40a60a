// Generates the persons-analysis data set as SQL files for `wrangler d1 execute --local --file`:
// one project, N persons (one distinct id each), ~M events over 30 days of March 2024: sessions of
// page views and autocapture noise, a 4-step shop funnel with drop-offs that may span sessions, and
// returning users (1-20 sessions with geometric gaps). Deterministic (seeded).
//
//   node bench/analysis-generate.mjs --events 1000000 --persons 50000 --out /tmp/edgehog-analysis-sql
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    events: { type: "string", default: "1000000" },
    persons: { type: "string", default: "50000" },
    out: { type: "string", default: "/tmp/edgehog-analysis-sql" },
    project: { type: "string", default: "1" },
  },
});
const TARGET = Number(args.events);
const PERSONS = Number(args.persons);
const PROJECT = Number(args.project);
const START = Date.parse("2024-03-01T00:00:00Z");
const DAY = 86_400_000;
const ROWS_PER_INSERT = 400;
const ROWS_PER_FILE = 100_000;

let seed = 0x5eed;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (list) => list[Math.floor(rand() * list.length)];
const geometric = (p, max) => {
  let n = 0;
  while (n < max && rand() > p) n++;
  return n;
};
const q = (s) => `'${s.replace(/'/g, "''")}'`;
const hex = (n, width) => n.toString(16).padStart(width, "0");
const uuidOf = (kind, n) => `${hex(kind, 8)}-0000-4000-8000-${hex(n, 12)}`;

rmSync(args.out, { recursive: true, force: true });
mkdirSync(args.out, { recursive: true });

const FUNNEL = ["product_viewed", "added_to_cart", "checkout_started", "purchased"];
const CONTINUE = [0.7, 0.45, 0.6, 0.7];
const eventsPerPerson = TARGET / PERSONS;
// Sessions average ~2.6 per person (cut at the end of the month) with ~3.2 fixed events each; noise fills the rest.
const NOISE_MEAN = Math.max(0, eventsPerPerson / 2.6 - 3.2);

// Persons, with the time of their first event as created_at.
const persons = [];
let eventRows = [];
let fileIndex = 0;
let total = 0;
let eventId = 0;

function flushEvents(force = false) {
  if (!eventRows.length || (!force && eventRows.length < ROWS_PER_FILE)) return;
  const parts = [];
  for (let i = 0; i < eventRows.length; i += ROWS_PER_INSERT) {
    parts.push(
      `INSERT INTO events (id, project_id, uuid, event, distinct_id, person_id, properties, timestamp) VALUES\n${eventRows.slice(i, i + ROWS_PER_INSERT).join(",\n")};`,
    );
  }
  writeFileSync(join(args.out, `events-${String(fileIndex++).padStart(3, "0")}.sql`), parts.join("\n"));
  eventRows = [];
}

for (let p = 1; p <= PERSONS; p++) {
  const distinctId = `user-${p}`;
  const browser = pick(["Chrome", "Chrome", "Safari", "Firefox"]);
  const sessions = 1 + geometric(0.3, 19);
  // Scale events per session so the data set lands near the target size.
  let day = Math.floor(rand() * 30);
  let first = null;
  let funnelStep = 0;
  for (let s = 0; s < sessions && day < 30; s++) {
    let t = START + day * DAY + Math.floor(rand() * 16 + 6) * 3_600_000 + Math.floor(rand() * 3_600_000);
    const sessionId = `s${p}-${s}`;
    const props = JSON.stringify({ $browser: browser, $session_id: sessionId });
    const emit = (event) => {
      t += 10_000 + Math.floor(rand() * 110_000);
      eventId++;
      first ??= t;
      eventRows.push(
        `(${eventId}, ${PROJECT}, '${uuidOf(2, eventId)}', ${q(event)}, '${distinctId}', ${p}, ${q(props)}, '${new Date(t).toISOString()}')`,
      );
      total++;
    };
    emit("$pageview");
    const noise = Math.floor(rand() * (2 * NOISE_MEAN + 1));
    for (let i = 0; i < noise; i++) emit(rand() < 0.6 ? "$pageview" : "$autocapture");
    // The funnel continues across sessions: a later session may pick up where the last stopped.
    if (funnelStep === 0 && rand() < CONTINUE[0]) {
      funnelStep = 1;
      emit(FUNNEL[0]);
    }
    while (funnelStep > 0 && funnelStep < FUNNEL.length && rand() < CONTINUE[funnelStep]) emit(FUNNEL[funnelStep++]);
    if (funnelStep === FUNNEL.length) funnelStep = 0;
    emit("$pageleave");
    day += 1 + geometric(0.35, 10);
  }
  persons.push({
    row: `(${p}, ${PROJECT}, '${uuidOf(1, p)}', ${q(JSON.stringify({ email: `user${p}@example.com`, plan: rand() < 0.2 ? "pro" : "free" }))}, 1, '${new Date(first ?? START).toISOString()}')`,
    distinct: `(${PROJECT}, '${distinctId}', ${p})`,
  });
  flushEvents();
}
flushEvents(true);

const head = [
  `INSERT OR IGNORE INTO projects (id, name, api_token, timezone) VALUES (${PROJECT}, 'analysis bench', 'phc_analysis_bench_${PROJECT}', 'Europe/Berlin');`,
];
const personSql = [];
for (let i = 0; i < persons.length; i += ROWS_PER_INSERT) {
  const chunk = persons.slice(i, i + ROWS_PER_INSERT);
  personSql.push(
    `INSERT INTO persons (id, project_id, uuid, properties, is_identified, created_at) VALUES\n${chunk.map((c) => c.row).join(",\n")};`,
  );
  personSql.push(
    `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES\n${chunk.map((c) => c.distinct).join(",\n")};`,
  );
}
writeFileSync(join(args.out, "000-persons.sql"), [...head, ...personSql].join("\n"));
console.log(JSON.stringify({ persons: PERSONS, events: total, files: fileIndex + 1, out: args.out }));
