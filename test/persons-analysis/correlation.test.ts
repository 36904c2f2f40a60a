import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../helpers";
import { expected, personWith, type SeededPerson, uuidsOf } from "./fixtures";

/**
 * Funnel A → B. Converted: c1, c2 (X between A and B), c5 (X only after B, outside the attempt).
 * Dropped off: c3 (Y within the window), c4 (X within the window).
 * Events correlation: X success 2 / failure 1, Y success 0 / failure 1; totals S = 3, F = 2.
 */
let projectId: number;
const c: Record<string, SeededPerson> = {};
const STEPS = encodeURIComponent(
  JSON.stringify([
    { id: "A", type: "events" },
    { id: "B", type: "events" },
  ]),
);
const BASE = () =>
  `/api/environments/${projectId}/persons/funnel/correlation/?events=${STEPS}&date_from=2024-01-01&date_to=2024-01-31`;

beforeAll(async () => {
  projectId = (await createProject()).id;
  c.c1 = await personWith(
    projectId,
    [
      ["A", "2024-01-02T10:00:00Z"],
      ["X", "2024-01-02T10:05:00Z"],
      ["B", "2024-01-02T10:10:00Z"],
    ],
    { properties: { plan: "pro" } },
  );
  c.c2 = await personWith(
    projectId,
    [
      ["A", "2024-01-03T10:00:00Z"],
      ["X", "2024-01-03T10:05:00Z"],
      ["B", "2024-01-03T10:10:00Z"],
    ],
    { properties: { plan: "free" } },
  );
  c.c3 = await personWith(
    projectId,
    [
      ["A", "2024-01-04T10:00:00Z"],
      ["Y", "2024-01-05T10:00:00Z"],
    ],
    { properties: { plan: "pro" } },
  );
  c.c4 = await personWith(
    projectId,
    [
      ["A", "2024-01-05T10:00:00Z"],
      ["X", "2024-01-06T10:00:00Z"],
    ],
    { properties: { plan: "free" } },
  );
  c.c5 = await personWith(projectId, [
    ["A", "2024-01-06T10:00:00Z"],
    ["B", "2024-01-06T10:10:00Z"],
    ["X", "2024-01-06T11:00:00Z"],
  ]);
});

const get = async (query: string) => {
  const res = await call(`${BASE()}&${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const entity = (id: string) =>
  `funnel_correlation_person_entity=${encodeURIComponent(JSON.stringify({ id, type: "events" }))}`;

describe("funnel correlation actors", () => {
  it("lists converted or dropped-off persons who did the event during their attempt", async () => {
    expect(uuidsOf(await get(`${entity("X")}&funnel_correlation_person_converted=true`))).toEqual(expected(c.c1, c.c2));
    expect(uuidsOf(await get(`${entity("X")}&funnel_correlation_person_converted=false`))).toEqual(expected(c.c4));
    expect(uuidsOf(await get(`${entity("Y")}&funnel_correlation_person_converted=false`))).toEqual(expected(c.c3));
    expect(uuidsOf(await get(entity("X")))).toEqual(expected(c.c1, c.c2, c.c4));
  });

  it("lists persons with the property values", async () => {
    const values = `funnel_correlation_property_values=${encodeURIComponent(JSON.stringify([{ key: "plan", value: "pro", type: "person" }]))}`;
    expect(uuidsOf(await get(`${values}&funnel_correlation_person_converted=true`))).toEqual(expected(c.c1));
    expect(uuidsOf(await get(`${values}&funnel_correlation_person_converted=false`))).toEqual(expected(c.c3));
  });

  it("pages with funnel_correlation_person_limit/_offset", async () => {
    const first = await get(`${entity("X")}&funnel_correlation_person_limit=2`);
    expect(first.results[0].count).toBe(2);
    const next = new URL(first.next);
    expect(next.searchParams.get("funnel_correlation_person_offset")).toBe("2");
    const second = (await call(`${next.pathname}${next.search}`)).json;
    expect([...uuidsOf(first), ...uuidsOf(second)].sort()).toEqual(expected(c.c1, c.c2, c.c4));
    expect(second.next).toBeNull();
  });

  it("returns the events correlation table with PostHog's odds ratios", async () => {
    const body = await get(`include_correlation=true&${entity("X")}`);
    const rows = body.correlation.events;
    const x = rows.find((r: any) => r.event.event === "X");
    const y = rows.find((r: any) => r.event.event === "Y");
    // X: ((2+1)(2-1+1)) / ((3-2+1)(1+1)) = 1.5; Y: ((0+1)(2-1+1)) / ((3-0+1)(1+1)) = 0.25.
    expect(x).toMatchObject({ success_count: 2, failure_count: 1, odds_ratio: 1.5, correlation_type: "success" });
    expect(y).toMatchObject({ success_count: 0, failure_count: 1, odds_ratio: 0.25, correlation_type: "failure" });
    expect(rows.map((r: any) => r.event.event)).toEqual(["X", "Y"]);
    expect(body.correlation.skewed).toBe(false);
  });

  it("counts the events table of a funnel starting with any event, leaving out the excluded names", async () => {
    const steps = encodeURIComponent(
      JSON.stringify([
        { id: null, type: "events" },
        { id: "B", type: "events" },
      ]),
    );
    const excluded = encodeURIComponent(JSON.stringify(["Y"]));
    const res = await call(
      `/api/environments/${projectId}/persons/funnel/correlation/?events=${steps}&date_from=2024-01-01&date_to=2024-01-31` +
        `&include_correlation=true&funnel_correlation_exclude_event_names=${excluded}`,
    );
    expect(res.status, res.text).toBe(200);
    // Any event starts an attempt; the best one starts as late as it can: c1 and c2 at X (so nothing is
    // done during theirs), c5 at A. c3 starts at A and did only the excluded Y; c4 did X after A.
    // X: ((0+1)(2-1+1)) / ((3-0+1)(1+1)) = 0.25; A, a step-1 event of every attempt here, is never inside one.
    const rows = res.json.correlation.events;
    expect(rows.map((r: any) => r.event.event)).toEqual(["X"]);
    expect(rows[0]).toMatchObject({ success_count: 0, failure_count: 1, odds_ratio: 0.25 });
  });

  it("returns the person properties correlation table", async () => {
    const names = encodeURIComponent(JSON.stringify(["plan"]));
    const body = await get(
      `include_correlation=true&funnel_correlation_type=properties&funnel_correlation_names=${names}`,
    );
    const byName = Object.fromEntries(body.correlation.events.map((r: any) => [r.event.event, r]));
    // pro: c1 converted, c3 dropped: ((1+1)(2-1+1)) / ((3-1+1)(1+1)) = 4/6.
    expect(byName["plan::pro"]).toMatchObject({ success_count: 1, failure_count: 1, correlation_type: "failure" });
    expect(byName["plan::pro"].odds_ratio).toBeCloseTo(4 / 6, 10);
    expect(byName["plan::free"]).toMatchObject({ success_count: 1, failure_count: 1 });
  });

  it("accepts the filter as a POST body and refuses bad correlation input", async () => {
    const res = await call(`/api/environments/${projectId}/persons/funnel/correlation/`, {
      method: "POST",
      body: {
        events: [
          { id: "A", type: "events" },
          { id: "B", type: "events" },
        ],
        date_from: "2024-01-01",
        date_to: "2024-01-31",
        funnel_correlation_person_entity: { id: "Y", type: "events" },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(uuidsOf(res.json)).toEqual(expected(c.c3));
    const bad = await call(`${BASE()}&include_correlation=true&funnel_correlation_type=properties`);
    expect(envelope(bad).attr).toBe("funnel_correlation_names");
  });
});

describe("funnel correlation: the attempt PostHog keeps", () => {
  it("counts events from the latest start that reached the final step first", async () => {
    const project = (await createProject()).id;
    // Both A's reach B at 12:00; PostHog carries the later start (11:00), so Z at 10:30 is before the attempt.
    await personWith(project, [
      ["A", "2024-01-07T10:00:00Z"],
      ["Z", "2024-01-07T10:30:00Z"],
      ["A", "2024-01-07T11:00:00Z"],
      ["W", "2024-01-07T11:30:00Z"],
      ["B", "2024-01-07T12:00:00Z"],
    ]);
    const base = `/api/environments/${project}/persons/funnel/correlation/?events=${STEPS}&date_from=2024-01-01&date_to=2024-01-31`;
    const z = await call(`${base}&funnel_correlation_person_entity=${encodeURIComponent('{"id":"Z"}')}`);
    expect(z.json.results[0].count).toBe(0);
    const w = await call(`${base}&funnel_correlation_person_entity=${encodeURIComponent('{"id":"W"}')}`);
    expect(w.json.results[0].count).toBe(1);
  });
});

describe("correlation bounds of a person who stopped at an intermediate step", () => {
  // PostHog bounds correlation events by the funnel's LAST step (final_timestamp), and, for a person
  // who never reached it, by first step + conversion window: never by an intermediate step's time.
  let other: number;
  const d: Record<string, SeededPerson> = {};
  const THREE = encodeURIComponent(
    JSON.stringify([
      { id: "A", type: "events" },
      { id: "B", type: "events" },
      { id: "C", type: "events" },
    ]),
  );
  beforeAll(async () => {
    other = (await createProject()).id;
    d.afterSecond = await personWith(other, [
      ["A", "2024-01-02T10:00:00Z"],
      ["B", "2024-01-02T11:00:00Z"],
      ["X", "2024-01-03T10:00:00Z"],
    ]);
    d.afterWindow = await personWith(other, [
      ["A", "2024-01-02T10:00:00Z"],
      ["B", "2024-01-02T11:00:00Z"],
      ["X", "2024-01-20T10:00:00Z"],
    ]);
    d.afterLast = await personWith(other, [
      ["A", "2024-01-02T10:00:00Z"],
      ["B", "2024-01-02T11:00:00Z"],
      ["C", "2024-01-02T12:00:00Z"],
      ["X", "2024-01-02T13:00:00Z"],
    ]);
    d.beforeLast = await personWith(other, [
      ["A", "2024-01-02T10:00:00Z"],
      ["B", "2024-01-02T11:00:00Z"],
      ["X", "2024-01-02T11:30:00Z"],
      ["C", "2024-01-02T12:00:00Z"],
    ]);
    d.unorderedDrop = await personWith(other, [
      ["B", "2024-01-04T10:00:00Z"],
      ["A", "2024-01-04T11:00:00Z"],
      ["X", "2024-01-05T10:00:00Z"],
    ]);
  });
  const persons = async (query: string) => {
    const url = `/api/environments/${other}/persons/funnel/correlation/?events=${THREE}&date_from=2024-01-01&date_to=2024-01-31&${entity("X")}&${query}`;
    const res = await call(url);
    expect(res.status, res.text).toBe(200);
    return uuidsOf(res.json);
  };

  it("counts a dropped person's events up to the end of the conversion window", async () => {
    expect(await persons("funnel_correlation_person_converted=false")).toEqual(
      expected(d.afterSecond, d.unorderedDrop),
    );
    expect(await persons("funnel_correlation_person_converted=true")).toEqual(expected(d.beforeLast));
    // Strict: X between B and C breaks beforeLast's funnel at step 2, so X counts for a dropped person.
    expect(await persons("funnel_order_type=strict&funnel_correlation_person_converted=false")).toEqual(
      expected(d.afterSecond, d.unorderedDrop, d.beforeLast),
    );
    expect(await persons("funnel_order_type=unordered&funnel_correlation_person_converted=false")).toEqual(
      expected(d.afterSecond, d.unorderedDrop),
    );
  });
});
