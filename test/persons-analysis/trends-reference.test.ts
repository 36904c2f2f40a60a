import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { type EventSpec, personWith, type SeededPerson, localDays, seededRandom } from "./fixtures";

/**
 * Random pageviews in America/New_York around the 2024-03-10 DST change, checked against an
 * independent computation over local days (Intl's en-CA date format): a TrendsQuery's values per
 * day (unique users, weekly active users, first-time users, a browser breakdown with "other"), and
 * a RetentionQuery's cells, equal the persons their ActorsQuery drill-downs return for the same
 * point; the events those persons did there add up to the event counts.
 */
const ZONE = "America/New_York";
const { dayOf, shift } = localDays(ZONE);
const FROM = "2024-03-05";
const TO = "2024-03-15";
const DAYS = Array.from({ length: 11 }, (_, i) => shift(FROM, i));
const BROWSERS = ["Chrome", "Safari", "Firefox", "Edge", undefined];

const rand = seededRandom(4242);

interface View {
  day: string;
  browser?: string;
}
const people: { person: SeededPerson; views: View[] }[] = [];
let projectId: number;

beforeAll(async () => {
  projectId = (await createProject(undefined, ZONE)).id;
  for (let p = 0; p < 50; p++) {
    const start = Date.parse("2024-02-28T00:00:00Z") + Math.floor(rand() * 18 * 24) * 3_600_000;
    const specs: EventSpec[] = Array.from({ length: 1 + Math.floor(rand() * 9) }, () => {
      const t = start + Math.floor(rand() * 8 * 24 * 60) * 60_000;
      const browser = BROWSERS[Math.floor(rand() * BROWSERS.length)];
      return [rand() < 0.85 ? "pageview" : "other", new Date(t).toISOString(), browser ? { $browser: browser } : {}];
    });
    specs.sort((a, b) => a[1].localeCompare(b[1]));
    const views = specs
      .filter(([event]) => event === "pageview")
      .map(([, t, props]) => ({ day: dayOf(Date.parse(t)), browser: props?.$browser as string | undefined }));
    people.push({ person: await personWith(projectId, specs), views });
  }
});

async function ask(query: Record<string, unknown>) {
  const res = await call(`/api/environments/${projectId}/query/`, { method: "POST", body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

const trends = (extra: Record<string, unknown> = {}, math?: string) => ({
  kind: "TrendsQuery",
  series: [{ kind: "EventsNode", event: "pageview", ...(math ? { math } : {}) }],
  dateRange: { date_from: FROM, date_to: TO },
  ...extra,
});

/** The persons of a point (uuids, sorted) and the events they did there. */
async function point(source: Record<string, unknown>, pick: Record<string, unknown>) {
  const body = await ask({
    kind: "ActorsQuery",
    select: ["id", "event_count"],
    limit: 1000,
    source: { kind: "InsightActorsQuery", source, ...pick },
  });
  const rows = body.results as [string, number][];
  return { persons: rows.map((r) => r[0]).sort(), events: rows.reduce((sum, r) => sum + r[1], 0) };
}

/** The uuids of the persons whose views pass `keep`, sorted. */
const whoViewed = (keep: (view: View, views: View[]) => boolean) =>
  people
    .filter((p) => p.views.some((v) => keep(v, p.views)))
    .map((p) => p.person.uuid)
    .sort();

describe("trends values are their persons", () => {
  it("unique users and total events per local day", async () => {
    const [users] = (await ask(trends({}, "dau"))).results;
    const [total] = (await ask(trends())).results;
    expect(users.days).toEqual(DAYS);
    for (const [i, day] of DAYS.entries()) {
      const want = whoViewed((v) => v.day === day);
      const got = await point(trends({}, "dau"), { day });
      expect(got.persons, day).toEqual(want);
      expect(users.data[i], day).toBe(want.length);
      expect(got.events, day).toBe(total.data[i]);
    }
    expect(users.data.some((n: number) => n > 3)).toBe(true);
  });

  it("weekly active users: the seven local days ending with each day", async () => {
    const [series] = (await ask(trends({}, "weekly_active"))).results;
    for (const [i, day] of DAYS.entries()) {
      const want = whoViewed((v) => v.day > shift(day, -7) && v.day <= day);
      expect((await point(trends({}, "weekly_active"), { day })).persons, day).toEqual(want);
      expect(series.data[i], day).toBe(want.length);
    }
  });

  it("first-time users: whose first pageview ever is that day", async () => {
    const source = trends({}, "first_time_for_user");
    const [series] = (await ask(source)).results;
    for (const [i, day] of DAYS.entries()) {
      const want = whoViewed((v, views) => v === views[0] && v.day === day);
      expect((await point(source, { day })).persons, day).toEqual(want);
      expect(series.data[i], day).toBe(want.length);
    }
  });

  it("unique users per browser, two values shown, the rest (and none) as other", async () => {
    const source = trends({ breakdownFilter: { breakdown: "$browser", breakdown_limit: 2 } }, "dau");
    const results = (await ask(source)).results as { breakdown_value: string; data: number[] }[];
    expect(results.length).toBe(3);
    const shown = results.map((r) => r.breakdown_value).filter((v) => !v.startsWith("$$_posthog"));
    for (const result of results)
      for (const [i, day] of DAYS.entries()) {
        const other = result.breakdown_value === "$$_posthog_breakdown_other_$$";
        const want = whoViewed(
          (v) => v.day === day && (other ? !shown.includes(v.browser ?? "") : v.browser === result.breakdown_value),
        );
        const got = await point(source, { day, breakdown: result.breakdown_value });
        expect(got.persons, `${result.breakdown_value} ${day}`).toEqual(want);
        expect(result.data[i], `${result.breakdown_value} ${day}`).toBe(want.length);
      }
  });
});

describe("retention cells are their persons", () => {
  it("each cohort's persons, and at each interval those whose appearances hold it", async () => {
    const source = {
      kind: "RetentionQuery",
      dateRange: { date_to: TO },
      retentionFilter: { period: "Day", totalIntervals: 7, targetEntity: { id: "pageview", type: "events" } },
    };
    source.retentionFilter = {
      ...source.retentionFilter,
      returningEntity: { id: "pageview", type: "events" },
    } as never;
    const cohorts = (await ask(source)).results as { date: string; values: { count: number }[] }[];
    let checked = 0;
    for (const [interval, cohort] of cohorts.entries()) {
      const body = await ask({
        kind: "ActorsQuery",
        select: ["id", "appearances"],
        limit: 1000,
        source: { kind: "InsightActorsQuery", source, interval },
      });
      const rows = body.results as [string, number[]][];
      const start = shift(TO, interval - cohorts.length + 1);
      const want = whoViewed((v) => v.day === start);
      expect(rows.map((r) => r[0]).sort(), start).toEqual(want);
      for (const [k, value] of cohort.values.entries()) {
        expect(rows.filter((r) => r[1].includes(k)).length, `${start} +${k}`).toBe(value.count);
        if (value.count) checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});
