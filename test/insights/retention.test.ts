import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../helpers";
import { captureJourneys } from "../conformance/analysis-helpers";

/**
 * RetentionQuery through POST /query/, on PostHog's day-interval data (test_retention_query_runner.py):
 * person1 (also alias1) views on days 0, 1, 2, 5 (twice) and 6 after 2020-06-10; person2 on days
 * 1, 2, 3 and 6; person3, on day 0 only, signs up on day 1 from Safari.
 */
let project: { id: number; api_token: string };

const day = (d: number, hour = 5) => new Date(Date.UTC(2020, 5, 10 + d, hour)).toISOString();
const view = (d: number, hour = 5, browser = "Chrome") => ({
  event: "$pageview",
  timestamp: day(d, hour),
  properties: { $browser: browser },
});

const ask = async (query: Record<string, unknown>) => {
  const res = await call(`/api/environments/${project.id}/query/`, { method: "POST", body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const retention = (filter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  ask({
    kind: "RetentionQuery",
    dateRange: { date_to: "2020-06-16" },
    retentionFilter: { period: "Day", totalIntervals: 7, ...filter },
    ...extra,
  });
const matrix = (body: any) => body.results.map((row: any) => row.values.map((v: any) => v.count));

beforeAll(async () => {
  project = await createProject();
  await captureJourneys(project.api_token, {
    person1: [
      { event: "$create_alias", timestamp: day(0, 4), properties: { alias: "alias1" } },
      view(0),
      view(1),
      view(2),
      view(5),
      view(6),
    ],
    alias1: [view(5, 9)],
    person2: [view(1, 5, "Firefox"), view(2, 5, "Firefox"), view(3, 5, "Firefox"), view(6, 5, "Firefox")],
    person3: [view(0, 5, "Safari"), { event: "signed up", timestamp: day(1), properties: { $browser: "Safari" } }],
  });
});

describe("RetentionQuery", () => {
  it("answers cohorts of recurring viewers with PostHog's rows", async () => {
    const body = await retention();
    expect(matrix(body)).toEqual([
      [2, 1, 1, 0, 0, 1, 1],
      [2, 2, 1, 0, 1, 2, 0],
      [2, 1, 0, 1, 2, 0, 0],
      [1, 0, 0, 1, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 1, 0, 0, 0, 0, 0],
      [2, 0, 0, 0, 0, 0, 0],
    ]);
    expect(body.results[0]).toMatchObject({ label: "Day 0", date: "2020-06-10T00:00:00Z", breakdown_value: null });
    expect(body.results[0].values[3]).toEqual({ count: 0, label: "Day 3" });
    expect(body.results[6].date).toBe("2020-06-16T00:00:00Z");
  });

  it("counts first-time users once, rolling retention, other entities and a minimum", async () => {
    const firstTime = await retention({ retentionType: "retention_first_time" });
    expect(matrix(firstTime).map((row: number[]) => row[0])).toEqual([2, 1, 0, 0, 0, 0, 0]);
    const rolling = await retention({ cumulative: true });
    expect(matrix(rolling)[0]).toEqual([2, 1, 1, 1, 1, 1, 1]);
    const signups = await retention({ returningEntity: { id: "signed up", type: "events" } });
    expect(matrix(signups)[0]).toEqual([2, 1, 0, 0, 0, 0, 0]);
    const twice = await retention({ minimumOccurrences: 2 });
    expect(matrix(twice)[0]).toEqual([2, 0, 0, 0, 0, 1, 0]);
  });

  it("breaks down by an event property, largest cohorts first", async () => {
    const body = await retention({}, { breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } });
    const values = [...new Set(body.results.map((row: any) => row.breakdown_value))];
    expect(values).toEqual(["Chrome", "Firefox", "Safari"]);
    const safari = body.results.filter((row: any) => row.breakdown_value === "Safari");
    expect(safari.map((row: any) => row.values[0].count)).toEqual([1, 0, 0, 0, 0, 0, 0]);
    const limited = await retention(
      {},
      { breakdownFilter: { breakdown: "$browser", breakdown_type: "event", breakdown_limit: 1 } },
    );
    expect([...new Set(limited.results.map((row: any) => row.breakdown_value))]).toEqual([
      "Chrome",
      "$$_posthog_breakdown_other_$$",
    ]);
  });

  it("puts a first-ever occurrence in its own breakdown value, even when others only return", async () => {
    const own = await createProject();
    await captureJourneys(own.api_token, {
      old_user: [
        { event: "app_opened", timestamp: day(0) },
        { event: "insight_viewed", timestamp: day(1), properties: { $feature: "control" } },
      ],
    });
    const res = await call(`/api/environments/${own.id}/query/`, {
      method: "POST",
      body: {
        query: {
          kind: "RetentionQuery",
          dateRange: { date_from: day(0), date_to: day(3) },
          retentionFilter: {
            totalIntervals: 4,
            retentionType: "retention_first_ever_occurrence",
            targetEntity: { id: "app_opened", type: "events" },
            returningEntity: { id: "insight_viewed", type: "events" },
          },
          breakdownFilter: { breakdown: "$feature", breakdown_type: "event" },
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.results.map((r: any) => [r.breakdown_value, r.values.map((v: any) => v.count)])).toEqual([
      ["", [1, 0, 0, 0]],
      ["", [0, 0, 0, 0]],
      ["", [0, 0, 0, 0]],
      ["", [0, 0, 0, 0]],
    ]);
  });

  it("answers a cohort's persons through ActorsQuery", async () => {
    const actors = async (source: Record<string, unknown>) =>
      (
        await ask({
          kind: "ActorsQuery",
          select: ["actor"],
          source: {
            kind: "InsightActorsQuery",
            source: {
              kind: "RetentionQuery",
              dateRange: { date_to: "2020-06-16" },
              retentionFilter: { totalIntervals: 7 },
            },
            ...source,
          },
        })
      ).results
        .map((row: any) => row[0].distinct_ids[0])
        .sort();
    expect(await actors({ interval: 0 })).toEqual(["person1", "person3"]);
    expect(await actors({ interval: 3 })).toEqual(["person2"]);
    expect(await actors({ interval: 4 })).toEqual([]);
  });

  it("answers each person's appearances, PostHog's day_k columns and its order by appearances", async () => {
    const cohort = (interval: number, extra: Record<string, unknown> = {}) =>
      ask({
        kind: "ActorsQuery",
        select: ["person", "appearances", "day_0", "day_1", "day_4"],
        orderBy: ["length(appearances) DESC", "actor_id"],
        source: {
          kind: "InsightActorsQuery",
          interval,
          source: {
            kind: "RetentionQuery",
            dateRange: { date_to: "2020-06-16" },
            retentionFilter: { totalIntervals: 7 },
          },
        },
        ...extra,
      });
    const rows = (body: any) => body.results.map(([person, ...rest]: any[]) => [person.distinct_ids[0], ...rest]);
    // Cohort 0 (10 June): person1 back on days 1, 2, 5 and 6; person3 never.
    expect(rows(await cohort(0))).toEqual([
      ["person1", [0, 1, 2, 5, 6], 1, 1, 0],
      ["person3", [0], 1, 0, 0],
    ]);
    // Cohort 1: four appearances each, in person order.
    expect(rows(await cohort(1))).toEqual([
      ["person1", [0, 1, 4, 5], 1, 1, 1],
      ["person2", [0, 1, 2, 5], 1, 1, 0],
    ]);
    const week = await call(`/api/environments/${project.id}/query/`, {
      method: "POST",
      body: {
        query: {
          kind: "ActorsQuery",
          select: ["week_0"],
          source: { kind: "InsightActorsQuery", interval: 0, source: { kind: "RetentionQuery" } },
        },
      },
    });
    expect(week.status).toBe(400);
    expect(envelope(week).attr).toBe("query__select__0");
  });

  it("refuses what it does not compute, naming the field", async () => {
    const res = await call(`/api/environments/${project.id}/query/`, {
      method: "POST",
      body: { query: { kind: "RetentionQuery", retentionFilter: { timeWindowMode: "24_hour_windows" } } },
    });
    expect(res.status).toBe(400);
    expect(envelope(res).attr).toBe("query__retentionFilter__timeWindowMode");
  });
});
