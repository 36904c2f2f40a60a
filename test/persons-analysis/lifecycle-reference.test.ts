import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { type EventSpec, personWith, type SeededPerson, uuidsOf, localDays, seededRandom } from "./fixtures";

/**
 * Random activity in America/New_York around the 2024-03-10 DST change, checked against an
 * independent computation: PostHog's lifecycle array logic (lifecycle_query_runner.py) and a
 * distinct-day count for stickiness, over local days taken from Intl's en-CA date format. The
 * LifecycleQuery and StickinessQuery insights over the same question count exactly the persons the
 * drill-downs return, and their ActorsQuery drill-downs return those same persons.
 */
const ZONE = "America/New_York";
const { dayOf, shift } = localDays(ZONE);
const FROM = "2024-03-05";
const TO = "2024-03-15";

const rand = seededRandom(99);

const people: { person: SeededPerson; times: number[]; created: number }[] = [];
let projectId: number;

beforeAll(async () => {
  projectId = (await createProject(undefined, ZONE)).id;
  for (let p = 0; p < 60; p++) {
    const created = Date.parse("2024-03-01T00:00:00Z") + Math.floor(rand() * 16 * 24) * 3_600_000;
    const times = Array.from(
      { length: 1 + Math.floor(rand() * 8) },
      () => created + Math.floor(rand() * 10 * 24 * 60) * 60_000,
    ).sort((a, b) => a - b);
    const specs: EventSpec[] = times.map((t) => [rand() < 0.85 ? "pageview" : "other", new Date(t).toISOString()]);
    const kept = times.filter((_, i) => specs[i][0] === "pageview");
    people.push({
      person: await personWith(projectId, specs, { createdAt: new Date(created).toISOString() }),
      times: kept,
      created,
    });
  }
});

/** PostHog's statuses per (period, person): new / returning / resurrecting on active days, dormant after. */
function referenceLifecycle(times: number[], created: number): Map<string, string> {
  const lo = shift(FROM, -1);
  const hi = shift(TO, 1);
  const all = [...new Set(times.map(dayOf))].filter((d) => d >= lo && d < hi).sort();
  const out = new Map<string, string>();
  all.forEach((cur, i) => {
    const prev = i === 0 ? dayOf(created) : all[i - 1];
    out.set(cur, prev === cur ? "new" : shift(cur, -1) === prev && i !== 0 ? "returning" : "resurrecting");
    if (all[i + 1] !== shift(cur, 1)) out.set(shift(cur, 1), "dormant");
  });
  return out;
}

const insightOf = (kind: string) => ({
  kind,
  series: [{ kind: "EventsNode", event: "pageview" }],
  dateRange: { date_from: FROM, date_to: TO },
});
const LIFECYCLE = insightOf("LifecycleQuery");
const STICKINESS = insightOf("StickinessQuery");

/** Runs a query through POST /query/ (200 expected). */
async function ask(query: Record<string, unknown>) {
  const res = await call(`/api/environments/${projectId}/query/`, { method: "POST", body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** The LifecycleQuery over the same range and event: its four series. */
async function lifecycleInsight(): Promise<{ status: string; data: number[]; days: string[] }[]> {
  return (await ask(LIFECYCLE)).results;
}

/** The StickinessQuery over the same range and event: its one series. */
async function stickinessInsight(): Promise<{ data: number[]; days: number[] }> {
  return (await ask(STICKINESS)).results[0];
}

/** The persons of one point of an insight (ActorsQuery over an InsightActorsQuery), as sorted uuids. */
async function insightActors(source: Record<string, unknown>, point: Record<string, unknown>): Promise<string[]> {
  const body = await ask({
    kind: "ActorsQuery",
    select: ["id"],
    limit: 1000,
    source: { kind: "InsightActorsQuery", source, ...point },
  });
  return body.results.map((row: string[]) => row[0]).sort();
}

describe("lifecycle and stickiness match an independent computation", () => {
  it("every status of every day of the range", async () => {
    const statuses = people.map((p) => ({ uuid: p.person.uuid, by: referenceLifecycle(p.times, p.created) }));
    const events = encodeURIComponent(JSON.stringify([{ id: "pageview", type: "events" }]));
    const insight = await lifecycleInsight();
    let nonEmpty = 0;
    for (let day = FROM, i = 0; day <= TO; day = shift(day, 1), i++) {
      for (const type of ["new", "returning", "resurrecting", "dormant"]) {
        const res = await call(
          `/api/environments/${projectId}/persons/lifecycle/?events=${events}&date_from=${FROM}&date_to=${TO}&target_date=${day}&lifecycle_type=${type}&limit=1000`,
        );
        expect(res.status, res.text).toBe(200);
        const want = statuses
          .filter((s) => s.by.get(day) === type)
          .map((s) => s.uuid)
          .sort();
        if (want.length) nonEmpty++;
        expect(uuidsOf(res.json), `${day} ${type}`).toEqual(want);
        // The insight's persons (ActorsQuery) are the drill-down's, and its count their number (dormant negative).
        expect(await insightActors(LIFECYCLE, { day, status: type }), `actors ${day} ${type}`).toEqual(want);
        const series = insight.find((r) => r.status === type)!;
        expect(series.days[i]).toBe(day);
        expect(Math.abs(series.data[i]), `insight ${day} ${type}`).toBe(want.length);
      }
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });

  it("stickiness: persons active on exactly N local days", async () => {
    const days = people.map((p) => ({
      uuid: p.person.uuid,
      n: new Set(p.times.map(dayOf).filter((d) => d >= FROM && d <= TO)).size,
    }));
    const insight = await stickinessInsight();
    expect(insight.days).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    for (let n = 1; n <= 11; n++) {
      const res = await call(
        `/api/environments/${projectId}/persons/stickiness/?entity_id=pageview&entity_type=events&date_from=${FROM}&date_to=${TO}&stickiness_days=${n}&limit=1000`,
      );
      expect(uuidsOf(res.json), `n=${n}`).toEqual(
        days
          .filter((d) => d.n === n)
          .map((d) => d.uuid)
          .sort(),
      );
      expect(insight.data[n - 1], `insight n=${n}`).toBe(uuidsOf(res.json).length);
      expect(await insightActors(STICKINESS, { day: n }), `actors n=${n}`).toEqual(uuidsOf(res.json));
    }
  });
});
