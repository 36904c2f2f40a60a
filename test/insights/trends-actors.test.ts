import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../helpers";
import { captureJourneys } from "../conformance/analysis-helpers";

/**
 * The persons of a TrendsQuery point (ActorsQuery over an InsightActorsQuery), hand-worked on both
 * engines. Events (UTC, the project's zone):
 * - blabla: sign up 24 Dec 2019 (Chrome); on 1 Jan three sign ups (Chrome; none; Safari) and on
 *   2 Jan one (none), and a "no events" event;
 * - other: sign up 2 Jan (Chrome);
 * - third: sign up 4 Jan twice (Firefox).
 */
let project: { id: number; api_token: string };

const RANGE = { date_from: "2019-12-28", date_to: "2020-01-04" };
const signUps = (extra: Record<string, unknown> = {}) => [{ kind: "EventsNode", event: "sign up", ...extra }];
const trends = (extra: Record<string, unknown> = {}) => ({
  kind: "TrendsQuery",
  series: signUps(),
  dateRange: RANGE,
  ...extra,
});

const post = (query: Record<string, unknown>) =>
  call(`/api/environments/${project.id}/query/`, { method: "POST", body: { query } });
const ask = async (query: Record<string, unknown>) => {
  const res = await post(query);
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const refused = async (query: Record<string, unknown>) => {
  const res = await post(query);
  expect(res.status, res.text).toBe(400);
  return envelope(res);
};

/** The persons of a point with their event counts, `name:count`, most events first (PostHog's persons modal order). */
const point = async (source: Record<string, unknown>, pick: Record<string, unknown> = {}) => {
  const body = await ask({
    kind: "ActorsQuery",
    select: ["actor", "event_count"],
    orderBy: ["event_count DESC"],
    source: { kind: "InsightActorsQuery", source, ...pick },
  });
  return body.results.map(
    ([actor, count]: [{ distinct_ids: string[] }, number]) => `${actor.distinct_ids[0]}:${count}`,
  );
};

/** The values of a trends result's first series, to check the persons against the counts. */
const values = async (source: Record<string, unknown>) => (await ask(source)).results;

beforeAll(async () => {
  project = await createProject();
  await captureJourneys(project.api_token, {
    blabla: [
      { event: "sign up", timestamp: "2019-12-24T12:00:00Z", properties: { $browser: "Chrome" } },
      { event: "sign up", timestamp: "2020-01-01T12:00:00Z", properties: { $browser: "Chrome" } },
      { event: "sign up", timestamp: "2020-01-01T12:00:01Z", properties: { $some_property: "value" } },
      { event: "sign up", timestamp: "2020-01-01T12:00:02Z", properties: { $browser: "Safari" } },
      { event: "sign up", timestamp: "2020-01-02T12:00:00Z", properties: {} },
      { event: "no events", timestamp: "2020-01-02T12:00:00Z", properties: {} },
    ],
    other: [{ event: "sign up", timestamp: "2020-01-02T13:00:00Z", properties: { $browser: "Chrome" } }],
    third: [
      { event: "sign up", timestamp: "2020-01-04T09:00:00Z", properties: { $browser: "Firefox" } },
      { event: "sign up", timestamp: "2020-01-04T10:00:00Z", properties: { $browser: "Firefox" } },
    ],
  });
});

describe("the persons of a TrendsQuery point", () => {
  it("answers the persons of a bucket with their events, as many as the unique users counted", async () => {
    expect(await point(trends(), { day: "2020-01-01" })).toEqual(["blabla:3"]);
    expect(await point(trends(), { day: "2020-01-04" })).toEqual(["third:2"]);
    expect((await point(trends(), { day: "2020-01-02" })).sort()).toEqual(["blabla:1", "other:1"]);
    expect(await point(trends(), { day: "2019-12-30" })).toEqual([]);
    // A day outside the range has no bucket.
    expect(await point(trends(), { day: "2019-12-24" })).toEqual([]);
    const dau = trends({ series: signUps({ math: "dau" }) });
    const [series] = await values(dau);
    for (const [i, day] of series.days.entries()) expect((await point(dau, { day })).length, day).toBe(series.data[i]);
  });

  it("orders by events, most first, and pages", async () => {
    const week = trends({ interval: "week" });
    expect(await point(week, { day: "2019-12-29" })).toEqual(["blabla:4", "third:2", "other:1"]);
    const page = await ask({
      kind: "ActorsQuery",
      select: ["event_count"],
      orderBy: ["event_count DESC"],
      limit: 1,
      offset: 1,
      source: { kind: "InsightActorsQuery", source: week, day: "2019-12-29" },
    });
    expect(page.results).toEqual([[2]]);
    expect(page.hasMore).toBe(true);
  });

  it("picks a series, a breakdown value, PostHog's null and other sentinels", async () => {
    const two = trends({ series: [...signUps(), { kind: "EventsNode", event: "no events" }] });
    expect(await point(two, { day: "2020-01-02", series: 1 })).toEqual(["blabla:1"]);
    const byBrowser = trends({ breakdownFilter: { breakdown: "$browser" } });
    expect(await point(byBrowser, { day: "2020-01-01", breakdown: "Safari" })).toEqual(["blabla:1"]);
    expect(await point(byBrowser, { day: "2020-01-01", breakdown: "Firefox" })).toEqual([]);
    expect(await point(byBrowser, { day: "2020-01-02", breakdown: "$$_posthog_breakdown_null_$$" })).toEqual([
      "blabla:1",
    ]);
    // Limit 1: Chrome (2 events) is shown; Firefox, Safari and no value are "other".
    const limited = trends({ breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 } });
    const other = "$$_posthog_breakdown_other_$$";
    expect(await point(limited, { day: "2020-01-01", breakdown: other })).toEqual(["blabla:2"]);
    expect(await point(limited, { day: "2020-01-02", breakdown: other })).toEqual(["blabla:1"]);
    expect(await point(limited, { day: "2020-01-04", breakdown: [other] })).toEqual(["third:2"]);
    const list = trends({
      breakdownFilter: { breakdowns: [{ property: "$browser" }, { property: "$some_property" }] },
    });
    expect(await point(list, { day: "2020-01-01", breakdown: ["$$_posthog_breakdown_null_$$", "value"] })).toEqual([
      "blabla:1",
    ]);
  });

  it("follows the math: weekly active users, first time, a total value", async () => {
    const wau = trends({ series: signUps({ math: "weekly_active" }) });
    // The 7 days ending 28 Dec hold blabla's 24 Dec sign up.
    expect(await point(wau, { day: "2019-12-28" })).toEqual(["blabla:1"]);
    expect((await point(wau, { day: "2020-01-04" })).sort()).toEqual(["blabla:4", "other:1", "third:2"]);
    const [series] = await values(wau);
    for (const [i, day] of series.days.entries()) expect((await point(wau, { day })).length, day).toBe(series.data[i]);

    const first = trends({ series: signUps({ math: "first_time_for_user" }) });
    expect(await point(first, { day: "2020-01-01" })).toEqual([]);
    expect(await point(first, { day: "2020-01-02" })).toEqual(["other:1"]);

    const table = trends({ trendsFilter: { display: "ActionsTable" } });
    expect(await point(table)).toEqual(["blabla:4", "third:2", "other:1"]);
  });

  it("answers the previous period of a comparison", async () => {
    const compared = trends({
      dateRange: { date_from: "2020-01-03", date_to: "2020-01-04" },
      compareFilter: { compare: true },
    });
    // The day of the current period; the persons of the same bucket of the previous one (1 Jan).
    expect(await point(compared, { day: "2020-01-03", compare: "previous" })).toEqual(["blabla:3"]);
    expect(await point(compared, { day: "2020-01-04", compare: "current" })).toEqual(["third:2"]);
  });

  it("counts a merged person's events from before the merge as theirs", async () => {
    const merged = await createProject();
    // Two persons' events stored first; the merge comes in a later request (on ClickHouse, an override).
    await captureJourneys(merged.api_token, {
      visitor: [{ event: "sign up", timestamp: "2020-01-03T10:00:00Z" }],
      member: [{ event: "sign up", timestamp: "2020-01-03T11:00:00Z" }],
    });
    await captureJourneys(merged.api_token, {
      member: [{ event: "$identify", timestamp: "2020-01-03T12:00:00Z", properties: { $anon_distinct_id: "visitor" } }],
    });
    const res = await call(`/api/environments/${merged.id}/query/`, {
      method: "POST",
      body: {
        query: {
          kind: "ActorsQuery",
          select: ["actor", "event_count"],
          source: { kind: "InsightActorsQuery", source: trends(), day: "2020-01-03" },
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    const rows = res.json.results.map(([actor, count]: [{ distinct_ids: string[] }, number]) => [
      [...actor.distinct_ids].sort().join("+"),
      count,
    ]);
    expect(rows).toEqual([["member+visitor", 2]]);
    expect(res.json.missing_actors_count).toBe(0);
  });

  it("refuses a point the query has no place for", async () => {
    const missing = await refused({ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: trends() } });
    expect(missing.attr).toBe("query__source__day");
    expect(missing.detail).toContain("A `day` is required");
    const table = trends({ trendsFilter: { display: "BoldNumber" } });
    const forbidden = await refused({
      kind: "ActorsQuery",
      source: { kind: "InsightActorsQuery", source: table, day: "2020-01-01" },
    });
    expect(forbidden.attr).toBe("query__source__day");
    const series = await refused({
      kind: "ActorsQuery",
      source: { kind: "InsightActorsQuery", source: trends(), day: "2020-01-01", series: 3 },
    });
    expect(series.attr).toBe("query__source__series");
    const parts = await refused({
      kind: "ActorsQuery",
      source: {
        kind: "InsightActorsQuery",
        source: trends({ breakdownFilter: { breakdowns: [{ property: "a" }, { property: "b" }] } }),
        day: "2020-01-01",
        breakdown: "x",
      },
    });
    expect(parts.attr).toBe("query__source__breakdown");
    const lifecycle = { kind: "LifecycleQuery", series: signUps(), dateRange: RANGE };
    const notCounted = await refused({
      kind: "ActorsQuery",
      select: ["actor", "event_count"],
      source: { kind: "InsightActorsQuery", source: lifecycle },
    });
    expect(notCounted.attr).toBe("query__select__1");
  });
});
