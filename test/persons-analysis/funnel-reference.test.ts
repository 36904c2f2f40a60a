import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { type EventSpec, personWith, type SeededPerson, uuidsOf } from "./fixtures";

/**
 * Random event sequences checked against an independent reference: a re-statement of PostHog's
 * funnel UDF (funnel-udf/src/steps.rs and unordered_steps.rs: per-person state machines over
 * time-sorted events), not of our SQL. Timestamps come from a few minutes per day so that ties
 * happen; the window is 2 days.
 */
const WINDOW = 2 * 86_400;
const DAY0 = Date.parse("2024-05-01T00:00:00Z");

let seed = 7;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

type Ev = { ts: number; uuid: number; name: string };

/** PostHog's ordered/strict UDF: latest-start chains per step, one event per step, strict clears. */
function referenceOrdered(events: Ev[], stepNames: string[], strict: boolean): number {
  const n = stepNames.length;
  const stepsOf = (e: Ev) => stepNames.flatMap((s, i) => (s === e.name ? [i + 1] : []));
  type Entered = { start: number; uuids: number[] } | null;
  const entered: Entered[] = Array(n + 1).fill(null);
  let max = 0;
  const process = (e: Ev, steps: number[], multiple: boolean) => {
    for (const step of [...steps].reverse()) {
      const prev = entered[step - 1];
      if (!prev || e.ts - prev.start > WINDOW) continue;
      const here = entered[step];
      if (here && here.start === prev.start) continue;
      if (multiple && prev.uuids.includes(e.uuid)) continue;
      entered[step] = { start: prev.start, uuids: [...prev.uuids, e.uuid] };
      if (step > max) max = step;
    }
    if (!multiple && strict) for (let i = 1; i <= n; i++) if (!steps.includes(i)) entered[i] = null;
  };
  // Ordered funnels only see events matching some step; strict funnels see every event.
  const seen = strict ? events : events.filter((e) => stepsOf(e).length);
  const byTs = new Map<number, Ev[]>();
  for (const e of seen) byTs.set(e.ts, [...(byTs.get(e.ts) ?? []), e]);
  for (const [ts, group] of [...byTs.entries()].sort((a, b) => a[0] - b[0])) {
    entered[0] = { start: ts, uuids: [] };
    const keys = group.map((e) => stepsOf(e).join(","));
    if (group.length === 1 || keys.every((k) => k === keys[0])) {
      for (const e of group) process(e, stepsOf(e), false);
    } else {
      const flat = group.flatMap((e) => stepsOf(e).map((s) => ({ e, s }))).sort((a, b) => a.s - b.s);
      for (const { e, s } of flat) process(e, [s], true);
    }
    if (entered[n]) break;
  }
  return max;
}

/** PostHog's unordered UDF: the most steps with an event inside one window. */
function referenceUnordered(events: Ev[], stepNames: string[]): number {
  let max = 0;
  const sorted = [...events].sort((a, b) => a.ts - b.ts);
  const deques: number[][] = stepNames.map(() => []);
  for (const e of sorted) {
    const step = stepNames.indexOf(e.name);
    if (step < 0) continue;
    deques[step].push(e.ts);
    for (const d of deques) while (d.length && e.ts - d[0] > WINDOW) d.shift();
    max = Math.max(max, deques.filter((d) => d.length).length);
  }
  return max;
}

const people: { person: SeededPerson; events: Ev[] }[] = [];
let projectId: number;

beforeAll(async () => {
  projectId = (await createProject()).id;
  let uuid = 0;
  for (let p = 0; p < 80; p++) {
    const count = 2 + Math.floor(rand() * 10);
    const events: Ev[] = [];
    for (let i = 0; i < count; i++) {
      // 6 days, 4 possible minutes per day: ties and window edges are common.
      const ts = DAY0 / 1000 + Math.floor(rand() * 6) * 86_400 + [0, 60, 3600, 43_200][Math.floor(rand() * 4)];
      events.push({ ts, uuid: uuid++, name: ["A", "B", "C", "X"][Math.floor(rand() * 4)] });
    }
    // Stored in time order (ties keep generation order), which the strict reference also follows.
    events.sort((a, b) => a.ts - b.ts);
    const specs: EventSpec[] = events.map((e) => [e.name, new Date(e.ts * 1000).toISOString()]);
    people.push({ person: await personWith(projectId, specs), events });
  }
});

async function bucketsFromApi(steps: string[], order: string) {
  const events = encodeURIComponent(JSON.stringify(steps.map((id, i) => ({ id, type: "events", order: i }))));
  const base = `/api/environments/${projectId}/persons/funnel/?events=${events}&funnel_order_type=${order}&funnel_window_interval=2&funnel_window_interval_unit=day&date_from=2024-04-30&date_to=2024-05-10&limit=1000`;
  const buckets: string[][] = [];
  for (let k = 1; k <= steps.length; k++) {
    const selector = k < steps.length ? `funnel_step=-${k + 1}` : `funnel_step=${k}`;
    const res = await call(`${base}&${selector}`);
    expect(res.status, res.text).toBe(200);
    buckets.push(uuidsOf(res.json));
  }
  return buckets;
}

function bucketsFromReference(reached: (events: Ev[]) => number, n: number) {
  const buckets: string[][] = Array.from({ length: n }, () => []);
  for (const { person, events } of people) {
    const r = reached(events);
    if (r > 0) buckets[r - 1].push(person.uuid);
  }
  return buckets.map((b) => b.sort());
}

/** Ties between different events with no step of their own are where strict mode is order-dependent. */
const strictSafe = (events: Ev[]) =>
  events.every((e, i) => i === 0 || events[i - 1].ts !== e.ts || events[i - 1].name === e.name);

describe("funnel actors match an independent re-statement of PostHog's UDF", () => {
  it("ordered A → B → C", async () => {
    expect(await bucketsFromApi(["A", "B", "C"], "ordered")).toEqual(
      bucketsFromReference((e) => referenceOrdered(e, ["A", "B", "C"], false), 3),
    );
  });

  it("ordered with a repeated step A → A → B (persons without mixed-event timestamp ties)", async () => {
    // With a tie between different step events, PostHog replays the tied events step by step in
    // ascending order, which can restart the funnel at A instead of advancing it (we advance):
    // a documented difference, so those persons are left out here.
    const api = await bucketsFromApi(["A", "A", "B"], "ordered");
    const safe = new Set(
      people
        .filter((p) => strictSafe(p.events.filter((e) => e.name !== "C" && e.name !== "X")))
        .map((p) => p.person.uuid),
    );
    expect(safe.size).toBeGreaterThan(10);
    const reference = bucketsFromReference((e) => referenceOrdered(e, ["A", "A", "B"], false), 3);
    expect(api.map((b) => b.filter((u) => safe.has(u)))).toEqual(reference.map((b) => b.filter((u) => safe.has(u))));
  });

  it("unordered A, B, C", async () => {
    expect(await bucketsFromApi(["A", "B", "C"], "unordered")).toEqual(
      bucketsFromReference((e) => referenceUnordered(e, ["A", "B", "C"]), 3),
    );
  });

  it("strict A → B → C (persons without mixed-event timestamp ties)", async () => {
    const api = await bucketsFromApi(["A", "B", "C"], "strict");
    const safe = new Set(people.filter((p) => strictSafe(p.events)).map((p) => p.person.uuid));
    expect(safe.size).toBeGreaterThan(10);
    const reference = bucketsFromReference((e) => referenceOrdered(e, ["A", "B", "C"], true), 3);
    expect(api.map((b) => b.filter((u) => safe.has(u)))).toEqual(reference.map((b) => b.filter((u) => safe.has(u))));
  });
});

describe("FunnelsQuery counts are the sizes of its persons sets (ActorsQuery over FunnelsActorsQuery)", () => {
  const query = (funnelsFilter: Record<string, unknown>) => ({
    kind: "FunnelsQuery",
    series: ["A", "B", "C"].map((event) => ({ kind: "EventsNode", event })),
    dateRange: { date_from: "2024-04-30", date_to: "2024-05-10" },
    funnelsFilter: { funnelWindowInterval: 2, funnelWindowIntervalUnit: "day", ...funnelsFilter },
  });
  const ask = async (body: Record<string, unknown>) => {
    const res = await call(`/api/environments/${projectId}/query/`, { method: "POST", body: { query: body } });
    expect(res.status, res.text).toBe(200);
    return res.json.results;
  };
  /** The persons (uuids, sorted) of a funnel step: `funnelStep` as PostHog's FunnelsActorsQuery. */
  const persons = async (source: Record<string, unknown>, funnelStep: number) => {
    const rows = await ask({
      kind: "ActorsQuery",
      select: ["id"],
      orderBy: [],
      limit: 1000,
      source: { kind: "FunnelsActorsQuery", source, funnelStep },
    });
    return rows.map((row: string[]) => row[0]).sort();
  };
  const exclusions = [{ kind: "EventsNode", event: "X", funnelFromStep: 0, funnelToStep: 2 }];

  for (const [name, filter] of [
    ["ordered", { funnelOrderType: "ordered" }],
    ["strict", { funnelOrderType: "strict" }],
    ["unordered", { funnelOrderType: "unordered" }],
    ["ordered, excluding X", { funnelOrderType: "ordered", exclusions }],
    ["unordered, excluding X", { funnelOrderType: "unordered", exclusions }],
  ] as const) {
    it(`${name}: every step's count, drop-off and conversion time`, async () => {
      const source = query(filter);
      const counts = ((await ask(source)) as { count: number }[]).map((s) => s.count);
      expect(counts[0]).toBeGreaterThan(0);
      for (let k = 1; k <= 3; k++) {
        const reached = await persons(source, k);
        expect(reached, `step ${k}`).toHaveLength(counts[k - 1]);
        if (k < 3)
          expect(await persons(source, -(k + 1)), `drop-off after ${k}`).toHaveLength(counts[k - 1] - counts[k]);
      }
      // Time to convert bins the persons who converted.
      const binned = await ask({
        ...source,
        funnelsFilter: { ...source.funnelsFilter, funnelVizType: "time_to_convert" },
      });
      expect(binned.bins.reduce((sum: number, [, n]: number[]) => sum + n, 0)).toBe(counts[2]);
    });
  }

  it("ordered: the persons of each step are the reference's", async () => {
    const source = query({ funnelOrderType: "ordered" });
    const reference = bucketsFromReference((e) => referenceOrdered(e, ["A", "B", "C"], false), 3);
    for (let k = 1; k <= 3; k++) {
      const atLeast = reference
        .slice(k - 1)
        .flat()
        .sort();
      expect(await persons(source, k), `step ${k}`).toEqual(atLeast);
    }
  });
});
