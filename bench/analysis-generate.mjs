// Writes the persons-analysis data set (bench/analysis-data.mjs) as SQL files for
// `wrangler d1 execute --local --file`.
//
//   node bench/analysis-generate.mjs --events 1000000 --persons 50000 --out /tmp/edgehog-analysis-sql
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { analysisPersons, personsSql, projectSql } from "./analysis-data.mjs";

const { values: args } = parseArgs({
  options: {
    events: { type: "string", default: "1000000" },
    persons: { type: "string", default: "50000" },
    out: { type: "string", default: "/tmp/edgehog-analysis-sql" },
    project: { type: "string", default: "1" },
  },
});
const PROJECT = Number(args.project);
const ROWS_PER_INSERT = 400;
const ROWS_PER_FILE = 100_000;
const q = (s) => `'${s.replace(/'/g, "''")}'`;

rmSync(args.out, { recursive: true, force: true });
mkdirSync(args.out, { recursive: true });

const persons = [];
let eventRows = [];
let fileIndex = 0;
let total = 0;

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

for (const person of analysisPersons({ events: Number(args.events), persons: Number(args.persons) })) {
  for (const e of person.events) {
    eventRows.push(
      `(${e.id}, ${PROJECT}, '${e.uuid}', ${q(e.event)}, '${person.distinctId}', ${person.id}, ${q(e.properties)}, '${e.timestamp}')`,
    );
    total++;
  }
  persons.push({ ...person, events: undefined });
  flushEvents();
}
flushEvents(true);

writeFileSync(join(args.out, "000-persons.sql"), [projectSql(PROJECT), personsSql(PROJECT, persons)].join("\n"));
console.log(JSON.stringify({ persons: persons.length, events: total, files: fileIndex + 1, out: args.out }));
