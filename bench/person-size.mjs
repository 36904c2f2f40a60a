// How many bytes one person takes in D1 (the person's row, its distinct ids, the search and property
// indexes, with their indexes), for the capacity arithmetic in docs/operations.md: captures N
// posthog-js-shaped identified persons through POST /batch/ (an anonymous visit with the $initial_
// properties posthog-js sets once, then an $identify with an email and a name) into a fresh local D1,
// and divides the database file's growth by N. Each person has two distinct ids and one event per id.
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

const { growthBytes, seconds } = await captureGrowth(PERSONS * 2, BATCH, personEvent, "events");
// Each person's two events are stored too: their share is taken out with event-size.mjs's figure
// for events this size, measured in the same way, so what is left is the person's.
const perPerson = growthBytes / PERSONS;
console.log(
  JSON.stringify(
    {
      machine: machine(),
      persons: PERSONS,
      events: PERSONS * 2,
      d1GrowthBytes: growthBytes,
      bytesPerPersonWithTwoEvents: Math.round(perPerson),
      captureSeconds: seconds,
    },
    null,
    2,
  ),
);
