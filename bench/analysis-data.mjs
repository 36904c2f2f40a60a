// The persons-analysis data set, one person at a time: one project, N persons (one distinct id each),
// ~M events over 30 days of March 2024: sessions of page views and autocapture noise, a 4-step shop
// funnel with drop-offs that may span sessions, and returning users (1-20 sessions with geometric gaps).
// Deterministic (seeded): the same sizes give the same data, whichever store it is written to
// (bench/analysis-generate.mjs for D1, bench/analysis-clickhouse.mjs for ClickHouse).

export const FUNNEL = ["product_viewed", "added_to_cart", "checkout_started", "purchased"];
const CONTINUE = [0.7, 0.45, 0.6, 0.7];
const START = Date.parse("2024-03-01T00:00:00Z");
const DAY = 86_400_000;

const hex = (n, width) => n.toString(16).padStart(width, "0");
/** Persons' (kind 1) and events' (kind 2) uuids, from their numbers. */
export const uuidOf = (kind, n) => `${hex(kind, 8)}-0000-4000-8000-${hex(n, 12)}`;

/**
 * Yields each person `{id, uuid, distinctId, properties, createdAt, events}`, events in time order as
 * `{id, uuid, event, properties, timestamp}` (ids count from 1 across the data set; times are ISO).
 */
export function* analysisPersons({ events: target, persons: count }) {
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
  // Sessions average ~2.6 per person (cut at the end of the month) with ~3.2 fixed events each; noise fills the rest.
  const noiseMean = Math.max(0, target / count / 2.6 - 3.2);
  let eventId = 0;
  for (let p = 1; p <= count; p++) {
    const distinctId = `user-${p}`;
    const browser = pick(["Chrome", "Chrome", "Safari", "Firefox"]);
    const sessions = 1 + geometric(0.3, 19);
    const events = [];
    let day = Math.floor(rand() * 30);
    let funnelStep = 0;
    for (let s = 0; s < sessions && day < 30; s++) {
      let t = START + day * DAY + Math.floor(rand() * 16 + 6) * 3_600_000 + Math.floor(rand() * 3_600_000);
      const properties = JSON.stringify({ $browser: browser, $session_id: `s${p}-${s}` });
      const emit = (event) => {
        t += 10_000 + Math.floor(rand() * 110_000);
        eventId++;
        events.push({ id: eventId, uuid: uuidOf(2, eventId), event, properties, timestamp: new Date(t).toISOString() });
      };
      emit("$pageview");
      const noise = Math.floor(rand() * (2 * noiseMean + 1));
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
    yield {
      id: p,
      uuid: uuidOf(1, p),
      distinctId,
      properties: JSON.stringify({ email: `user${p}@example.com`, plan: rand() < 0.2 ? "pro" : "free" }),
      createdAt: events[0]?.timestamp ?? new Date(START).toISOString(),
      events,
    };
  }
}

const q = (s) => `'${s.replace(/'/g, "''")}'`;

/** D1 statements inserting the persons (as yielded above) and their distinct ids, 400 rows each. */
export function personsSql(project, persons) {
  const statements = [];
  for (let i = 0; i < persons.length; i += 400) {
    const chunk = persons.slice(i, i + 400);
    statements.push(
      `INSERT INTO persons (id, project_id, uuid, properties, is_identified, created_at) VALUES\n${chunk.map((p) => `(${p.id}, ${project}, '${p.uuid}', ${q(p.properties)}, 1, '${p.createdAt}')`).join(",\n")};`,
      `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES\n${chunk.map((p) => `(${project}, '${p.distinctId}', ${p.id})`).join(",\n")};`,
    );
  }
  return statements.join("\n");
}

/** The project row the data set belongs to. */
export const projectSql = (project) =>
  `INSERT OR IGNORE INTO projects (id, name, api_token, timezone) VALUES (${project}, 'analysis bench', 'phc_analysis_bench_${project}', 'Europe/Berlin');`;

const steps = (names) => encodeURIComponent(JSON.stringify(names.map((id, order) => ({ id, type: "events", order }))));
const FUNNEL_STEPS = steps(FUNNEL);
const RANGE = "date_from=2024-03-01&date_to=2024-03-31";
const P = "/api/environments/1/persons";

/** The drill-downs the benchmarks time, as `[name, path]` over project 1 of this data set. */
export const ANALYSIS_VIEWS = [
  ["funnel ordered, step 2", `${P}/funnel/?events=${FUNNEL_STEPS}&${RANGE}&funnel_step=2`],
  ["funnel ordered, dropped before step 4", `${P}/funnel/?events=${FUNNEL_STEPS}&${RANGE}&funnel_step=-4`],
  ["funnel strict, step 2", `${P}/funnel/?events=${FUNNEL_STEPS}&${RANGE}&funnel_step=2&funnel_order_type=strict`],
  [
    "funnel unordered, step 4",
    `${P}/funnel/?events=${FUNNEL_STEPS}&${RANGE}&funnel_step=4&funnel_order_type=unordered`,
  ],
  [
    "funnel breakdown $browser=Chrome, step 4",
    `${P}/funnel/?events=${FUNNEL_STEPS}&${RANGE}&funnel_step=4&breakdown=$browser&funnel_step_breakdown=Chrome`,
  ],
  [
    "correlation persons ($autocapture, dropped off)",
    `${P}/funnel/correlation/?events=${FUNNEL_STEPS}&${RANGE}&funnel_correlation_person_entity=${encodeURIComponent('{"id":"$autocapture","type":"events"}')}&funnel_correlation_person_converted=false`,
  ],
  [
    "correlation persons + events table",
    `${P}/funnel/correlation/?events=${FUNNEL_STEPS}&${RANGE}&include_correlation=true`,
  ],
  [
    "lifecycle $pageview day, returning 03-15",
    `${P}/lifecycle/?events=${steps(["$pageview"])}&${RANGE}&target_date=2024-03-15&lifecycle_type=returning`,
  ],
  [
    "lifecycle $pageview day, dormant 03-15",
    `${P}/lifecycle/?events=${steps(["$pageview"])}&${RANGE}&target_date=2024-03-15&lifecycle_type=dormant`,
  ],
  [
    "stickiness $pageview, exactly 3 days",
    `${P}/stickiness/?entity_id=$pageview&entity_type=events&${RANGE}&stickiness_days=3`,
  ],
  [
    "stickiness $pageview weekly, exactly 2 weeks",
    `${P}/stickiness/?entity_id=$pageview&entity_type=events&${RANGE}&stickiness_days=2&interval=week`,
  ],
];

/** The insight's questions the benchmarks time, as `[name, path, body]` (POST /query/) over project 1 of this data set. */
const trendsQuery = (series, extra = {}) => ({
  query: {
    kind: "TrendsQuery",
    series: [{ kind: "EventsNode", event: "$pageview", ...series }],
    dateRange: { date_from: "2024-03-01", date_to: "2024-03-30" },
    interval: "day",
    ...extra,
  },
});
export const TRENDS_VIEWS = [
  ["trends $pageview total, daily over 30 days", "/api/environments/1/query/", trendsQuery({})],
  ["trends $pageview dau, daily over 30 days", "/api/environments/1/query/", trendsQuery({ math: "dau" })],
  [
    "trends $pageview by $browser (limit 25), daily",
    "/api/environments/1/query/",
    trendsQuery({}, { breakdownFilter: { breakdown: "$browser", breakdown_limit: 25 } }),
  ],
  ["trends $pageview weekly active users, daily", "/api/environments/1/query/", trendsQuery({ math: "weekly_active" })],
];

const insightQuery = (kind, extra = {}) => ({
  query: {
    kind,
    series: [{ kind: "EventsNode", event: "$pageview" }],
    dateRange: { date_from: "2024-03-01", date_to: "2024-03-30" },
    interval: "day",
    ...extra,
  },
});

/** LifecycleQuery and StickinessQuery insights (POST /query/) over project 1 of this data set. */
export const LIFECYCLE_STICKINESS_VIEWS = [
  ["lifecycle $pageview, daily over 30 days", "/api/environments/1/query/", insightQuery("LifecycleQuery")],
  [
    "lifecycle $pageview, weekly over 30 days",
    "/api/environments/1/query/",
    insightQuery("LifecycleQuery", { interval: "week" }),
  ],
  ["stickiness $pageview, daily over 30 days", "/api/environments/1/query/", insightQuery("StickinessQuery")],
  [
    "stickiness $pageview, weekly over 30 days",
    "/api/environments/1/query/",
    insightQuery("StickinessQuery", { interval: "week" }),
  ],
  [
    "stickiness $pageview, days with ≥ 3 events, cumulative",
    "/api/environments/1/query/",
    insightQuery("StickinessQuery", {
      stickinessFilter: { computedAs: "cumulative", stickinessCriteria: { operator: "gte", value: 3 } },
    }),
  ],
];

const retentionQuery = (filter = {}, extra = {}) => ({
  query: {
    kind: "RetentionQuery",
    dateRange: { date_from: "2024-03-01", date_to: "2024-03-30" },
    retentionFilter: { period: "Day", totalIntervals: 14, ...filter },
    ...extra,
  },
});

/** RetentionQuery insights (POST /query/) over project 1 of this data set. */
export const RETENTION_VIEWS = [
  ["retention $pageview, daily cohorts over 30 days", "/api/environments/1/query/", retentionQuery()],
  [
    "retention $pageview, first time, weekly",
    "/api/environments/1/query/",
    retentionQuery({ period: "Week", totalIntervals: 5, retentionType: "retention_first_time" }),
  ],
  [
    "retention $pageview by $browser, rolling",
    "/api/environments/1/query/",
    retentionQuery({ cumulative: true }, { breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } }),
  ],
];

const funnelsQuery = (filter = {}, extra = {}) => ({
  query: {
    kind: "FunnelsQuery",
    series: FUNNEL.slice(0, 3).map((event) => ({ kind: "EventsNode", event })),
    dateRange: { date_from: "2024-03-01", date_to: "2024-03-30" },
    funnelsFilter: { funnelVizType: "steps", funnelOrderType: "ordered", ...filter },
    ...extra,
  },
});

/** FunnelsQuery insights (POST /query/), product_viewed → added_to_cart → checkout_started, over project 1 of this data set. */
export const FUNNEL_VIEWS = [
  ["funnel 3 steps ordered", "/api/environments/1/query/", funnelsQuery()],
  [
    "funnel 3 steps ordered by $browser (limit 10)",
    "/api/environments/1/query/",
    funnelsQuery({}, { breakdownFilter: { breakdown: "$browser", breakdown_type: "event", breakdown_limit: 10 } }),
  ],
  ["funnel 3 steps strict", "/api/environments/1/query/", funnelsQuery({ funnelOrderType: "strict" })],
  ["funnel 3 steps unordered", "/api/environments/1/query/", funnelsQuery({ funnelOrderType: "unordered" })],
  [
    "funnel 3 steps ordered, time to convert",
    "/api/environments/1/query/",
    funnelsQuery({ funnelVizType: "time_to_convert" }),
  ],
];

/**
 * A response in a few words: a drill-down's persons on the page, whether it is full, correlation
 * rows; an insight's series and their total; a funnel's persons per step (summed over breakdown
 * values) or its time-to-convert bins.
 */
export const summarize = (body) => {
  const bins = body.results?.bins;
  if (bins) return `${bins.length} bins, ${bins.reduce((n, [, persons]) => n + persons, 0)} persons`;
  if (!body.results?.length) return "";
  const funnels = Array.isArray(body.results[0]) ? body.results : "action_id" in body.results[0] && [body.results];
  if (funnels)
    return `${funnels.length > 1 ? `${funnels.length} values, ` : ""}${funnels[0].map((_, i) => funnels.reduce((n, steps) => n + steps[i].count, 0)).join(" → ")} persons`;
  if (body.results[0].data)
    return `${body.results.length} series, total ${body.results.reduce((n, s) => n + s.count, 0)}`;
  if (body.results[0].values)
    return `${body.results.length} cohorts, ${body.results.reduce((n, r) => n + r.values[0].count, 0)} persons`;
  return `${body.results[0].count} persons${body.next ? " (page full)" : ""}${body.correlation ? `, ${body.correlation.events.length} correlation rows` : ""}`;
};
