// How many bytes one stored event takes in D1 (row and indexes), for the capacity arithmetic in
// docs/operations.md: captures N posthog-js-shaped $pageview events through POST /batch/ into a
// fresh local D1 (the real pipeline: persons, distinct ids, events) and divides the database
// file's growth by N.
// Usage: node bench/event-size.mjs [--events 100000]
import { captureGrowth, machine } from "./lib.mjs";

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

const { growthBytes, seconds } = await captureGrowth(EVENTS, BATCH, pageview, "events");
const perEvent = growthBytes / EVENTS;
console.log(
  JSON.stringify(
    {
      machine: machine(),
      events: EVENTS,
      persons: USERS,
      propertiesJsonBytes: JSON.stringify(pageview(1).properties).length,
      d1GrowthBytes: growthBytes,
      bytesPerEvent: Math.round(perEvent),
      eventsPer10GB: Math.round(10e9 / perEvent),
      captureSeconds: seconds,
    },
    null,
    2,
  ),
);
