// How many bytes one person takes in D1 (the person's row, its distinct ids, the search and property
// indexes, with their indexes), for the capacity arithmetic in docs/operations.md: captures N
// posthog-js-shaped identified persons through POST /batch/ (an anonymous visit with the $initial_
// properties posthog-js sets once, then an $identify with an email and a name) into a fresh local D1,
// and divides the persons' tables' size (SQLite's dbstat, through the sqlite3 shell) by N. Each
// person has two distinct ids; their two events are stored too but not counted here.
// Usage: node bench/person-size.mjs [--persons 100000]
import { captureGrowth, machine } from "./lib.mjs";

const personsArg = process.argv.indexOf("--persons");
const PERSONS = personsArg > 0 ? Number(process.argv[personsArg + 1]) : 100_000;
const BATCH = 500;

const anonymous = (n) => `0192f7c3-${String(n).padStart(8, "0")}-7d8e-9a1b-2c3d4e5f6a7b`;

/** Event 2n: person n's first pageview, setting the properties posthog-js sets once; 2n + 1: their $identify. */
function personEvent(i) {
  const n = Math.floor(i / 2);
  const path = `/pricing/${n % 97}`;
  if (i % 2 === 0)
    return {
      event: "$pageview",
      distinct_id: anonymous(n),
      properties: {
        $set_once: {
          $initial_os: "Mac OS X",
          $initial_os_version: "10.15.7",
          $initial_browser: "Chrome",
          $initial_browser_version: 131,
          $initial_device_type: "Desktop",
          $initial_current_url: `https://shop.example.com${path}?utm_source=newsletter`,
          $initial_pathname: path,
          $initial_host: "shop.example.com",
          $initial_referrer: "https://www.google.com/",
          $initial_referring_domain: "www.google.com",
          $initial_utm_source: "newsletter",
        },
      },
    };
  return {
    event: "$identify",
    distinct_id: `customer-${n}`,
    properties: {
      $anon_distinct_id: anonymous(n),
      $set: { email: `customer${n}@example.com`, name: `Customer ${n}`, plan: ["free", "pro", "team"][n % 3] },
    },
  };
}

const { growthBytes, seconds, tables } = await captureGrowth(PERSONS * 2, BATCH, personEvent, "events");
if (!tables)
  throw new Error(
    "needs the sqlite3 shell (apt-get install sqlite3) to measure the persons' tables apart from the events",
  );
// The persons' own tables and their indexes (the events' are left out: they are counted per event).
const PERSON_TABLES = /^(persons|person_|sqlite_autoindex_person)/;
const personTables = Object.fromEntries(Object.entries(tables).filter(([name]) => PERSON_TABLES.test(name)));
const personBytes = Object.values(personTables).reduce((a, b) => a + b, 0);
console.log(
  JSON.stringify(
    {
      machine: machine(),
      persons: PERSONS,
      events: PERSONS * 2,
      d1GrowthBytes: growthBytes,
      personTablesBytes: personBytes,
      bytesPerPerson: Math.round(personBytes / PERSONS),
      personsPer10GB: Math.round(10e9 / (personBytes / PERSONS)),
      byTable: Object.fromEntries(
        Object.entries(personTables).map(([name, bytes]) => [name, Math.round(bytes / PERSONS)]),
      ),
      captureSeconds: seconds,
    },
    null,
    2,
  ),
);
