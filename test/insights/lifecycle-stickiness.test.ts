import { beforeAll, describe, expect, it } from "vitest";
import { until } from "../clickhouse/worker/queue-helpers";
import { call, createProject, envelope, onClickHouse } from "../helpers";
import { captureJourneys } from "../conformance/analysis-helpers";

/**
 * LifecycleQuery and StickinessQuery through POST /query/, hand-worked: three persons around the
 * first days of 2020 (UTC), each created at their first captured event.
 * - alice (created 1 Jan): pageviews 1, 2 and 4 Jan (two on the 4th);
 * - bob (created 20 Dec): pageviews 20 Dec, 2 and 3 Jan;
 * - carol (created 3 Jan): three pageviews on 3 Jan;
 * - dave: another event on 1 Jan, a pageview after the range (5 Jan).
 */
let project: { id: number; api_token: string };

const ask = async (query: Record<string, unknown>) => {
  const res = await call(`/api/environments/${project.id}/query/`, { method: "POST", body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.json;
};
const refused = async (query: Record<string, unknown>) => {
  const res = await call(`/api/environments/${project.id}/query/`, { method: "POST", body: { query } });
  expect(res.status, res.text).toBe(400);
  return envelope(res);
};
const pageviews = [{ kind: "EventsNode", event: "$pageview" }];
const RANGE = { date_from: "2020-01-01", date_to: "2020-01-04" };
const view = (timestamp: string) => ({ event: "$pageview", timestamp });

beforeAll(async () => {
  project = await createProject();
  await captureJourneys(project.api_token, {
    alice: [
      view("2020-01-01T10:00:00Z"),
      view("2020-01-02T10:00:00Z"),
      view("2020-01-04T10:00:00Z"),
      view("2020-01-04T11:00:00Z"),
    ],
    bob: [view("2019-12-20T10:00:00Z"), view("2020-01-02T10:00:00Z"), view("2020-01-03T10:00:00Z")],
    carol: [view("2020-01-03T09:00:00Z"), view("2020-01-03T10:00:00Z"), view("2020-01-03T11:00:00Z")],
    dave: [{ event: "other", timestamp: "2020-01-01T10:00:00Z" }, view("2020-01-05T10:00:00Z")],
  });
});

describe("LifecycleQuery", () => {
  it("answers the four statuses per day, dormant negative, with PostHog's labels", async () => {
    const body = await ask({ kind: "LifecycleQuery", series: pageviews, dateRange: RANGE });
    expect(body.results.map((r: any) => [r.status, r.label, r.data, r.count])).toEqual([
      ["new", "$pageview - new", [1, 0, 1, 0], 2],
      ["returning", "$pageview - returning", [0, 1, 1, 0], 2],
      ["resurrecting", "$pageview - resurrecting", [0, 1, 0, 1], 2],
      ["dormant", "$pageview - dormant", [0, 0, -1, -2], -3],
    ]);
    const [first] = body.results;
    expect(first.labels).toEqual(["1-Jan-2020", "2-Jan-2020", "3-Jan-2020", "4-Jan-2020"]);
    expect(first.days).toEqual(["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-04"]);
    expect(first.action).toEqual({ id: "$pageview", name: "$pageview", type: "events", order: 0, math: "total" });
    expect(body.resolved_date_range).toEqual({
      date_from: "2020-01-01T00:00:00Z",
      date_to: "2020-01-04T23:59:59.999999Z",
    });
    expect(body.timezone).toBe("UTC");
  });

  it("reads hours, all events and a custom name", async () => {
    const body = await ask({
      kind: "LifecycleQuery",
      series: [{ kind: "EventsNode", event: null, custom_name: "Anything" }],
      interval: "hour",
      dateRange: { date_from: "2020-01-04T10:00:00Z", date_to: "2020-01-04T11:59:00Z" },
    });
    const byStatus = Object.fromEntries(body.results.map((r: any) => [r.status, r.data]));
    expect(byStatus).toEqual({ new: [0, 0], returning: [0, 1], resurrecting: [1, 0], dormant: [0, 0] });
    expect(body.results[0].label).toBe("All events - new");
    expect(body.results[0].action).toMatchObject({ id: null, name: "All events", custom_name: "Anything" });
    expect(body.results[0].days).toEqual(["2020-01-04 10:00:00", "2020-01-04 11:00:00"]);
    expect(body.results[0].labels).toEqual(["4-Jan 10:00", "4-Jan 11:00"]);
  });

  it("counts a deleted person's remaining events as no one's creation", async () => {
    const own = await createProject();
    await captureJourneys(own.api_token, { erin: [view("2020-01-02T10:00:00Z")] });
    const persons = await call(`/api/projects/${own.id}/persons/?distinct_id=erin`);
    const uuid = persons.json.results[0].uuid;
    expect((await call(`/api/projects/${own.id}/persons/${uuid}/`, { method: "DELETE" })).status).toBe(204);
    if (onClickHouse)
      await until<{ d: number }>(
        "SELECT argMax(is_deleted, version) AS d FROM person WHERE team_id = {t:Int64} GROUP BY id",
        { t: own.id },
        (rows) => rows.some((r) => Number(r.d) === 1),
      );
    const res = await call(`/api/environments/${own.id}/query/`, {
      method: "POST",
      body: {
        query: {
          kind: "LifecycleQuery",
          series: pageviews,
          dateRange: { date_from: "2020-01-01", date_to: "2020-01-03" },
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.fromEntries(res.json.results.map((r: any) => [r.status, r.data]))).toEqual({
      new: [0, 0, 0],
      returning: [0, 0, 0],
      resurrecting: [0, 1, 0],
      dormant: [0, 0, -1],
    });
  });

  it("refuses what it does not compute, naming the field", async () => {
    const two = await refused({ kind: "LifecycleQuery", series: [...pageviews, ...pageviews] });
    expect(two).toMatchObject({ attr: "query__series", detail: "A lifecycle query takes one series." });
    const sampled = await refused({ kind: "LifecycleQuery", series: pageviews, samplingFactor: 0.1 });
    expect(sampled.attr).toBe("query__samplingFactor");
    const badFilter = await refused({ kind: "LifecycleQuery", series: pageviews, properties: [{ key: 1 }] });
    expect(badFilter.attr).toMatch(/^query__properties/);
  });
});

describe("StickinessQuery", () => {
  const stickiness = (extra: Record<string, unknown> = {}) =>
    ask({ kind: "StickinessQuery", series: pageviews, dateRange: RANGE, ...extra });

  it("counts persons by their number of active days", async () => {
    const body = await stickiness();
    expect(body.results).toEqual([
      {
        count: 3,
        data: [1, 1, 1, 0],
        days: [1, 2, 3, 4],
        label: "$pageview",
        labels: ["1 day", "2 days", "3 days", "4 days"],
        action: { order: 0, type: "events", name: "$pageview", id: "$pageview" },
      },
    ]);
  });

  it("counts only days meeting the criteria, cumulatively when asked", async () => {
    const criteria = { stickinessCriteria: { operator: "gte", value: 2 } };
    const exact = (await stickiness({ stickinessFilter: criteria })).results[0];
    expect([exact.data, exact.count]).toEqual([[2, 0, 0, 0], 2]);
    const cumulative = (await stickiness({ stickinessFilter: { computedAs: "cumulative" } })).results[0];
    expect([cumulative.data, cumulative.count]).toEqual([[3, 2, 1, 0], 3]);
    expect(cumulative.labels[0]).toBe("1 day or more");
  });

  it("groups days by intervalCount from the range's end, and weeks by the project's week", async () => {
    const paired = (await stickiness({ intervalCount: 2 })).results[0];
    expect([paired.data, paired.days, paired.labels]).toEqual([
      [1, 2],
      [1, 2],
      ["1 day", "2 days"],
    ]);
    const weekly = (await stickiness({ interval: "week" })).results[0];
    expect([weekly.data, weekly.labels]).toEqual([[3], ["1 week"]]);
  });

  it("counts units of several intervals from an exact end, whatever the hour", async () => {
    const own = await createProject();
    await captureJourneys(own.api_token, { fay: [view("2020-01-02T06:00:00Z"), view("2020-01-02T18:00:00Z")] });
    const res = await call(`/api/environments/${own.id}/query/`, {
      method: "POST",
      body: {
        query: {
          kind: "StickinessQuery",
          series: pageviews,
          intervalCount: 2,
          // Units of two days back from 4 January 12:00: the second starts at noon on the 2nd.
          dateRange: { date_from: "2020-01-01T00:00:00", date_to: "2020-01-04T12:00:00", explicitDate: true },
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.results[0].data).toEqual([0, 1]);
  });

  it("interleaves the previous period after each series with compare", async () => {
    const body = await ask({
      kind: "StickinessQuery",
      series: [...pageviews, { kind: "EventsNode", event: "other" }],
      dateRange: { date_from: "2020-01-03", date_to: "2020-01-04" },
      compareFilter: { compare: true },
    });
    expect(body.results.map((r: any) => [r.label, r.compare_label, r.data])).toEqual([
      ["$pageview", "current", [3, 0]],
      ["$pageview", "previous", [1, 1]],
      ["other", "current", [0, 0]],
      ["other", "previous", [1, 0]],
    ]);
  });

  it("refuses unknown criteria, naming the field", async () => {
    const bad = await refused({
      kind: "StickinessQuery",
      series: pageviews,
      stickinessFilter: { stickinessCriteria: { operator: "gt", value: 1 } },
    });
    expect(bad.attr).toBe("query__stickinessFilter__stickinessCriteria__operator");
  });
});

describe("ActorsQuery over an InsightActorsQuery", () => {
  const actors = async (source: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    ask({ kind: "ActorsQuery", select: ["actor"], orderBy: [], source, ...extra });
  const namesOf = (body: any) => body.results.map((row: any) => row[0].distinct_ids.join("+")).sort();
  const lifecycle = { kind: "LifecycleQuery", series: pageviews, dateRange: RANGE };
  const stickiness = { kind: "StickinessQuery", series: pageviews, dateRange: RANGE };

  it("answers the persons of a lifecycle status in a bucket, or of every bucket", async () => {
    const point = (day: string | undefined, status: string | undefined) =>
      actors({ kind: "InsightActorsQuery", source: lifecycle, day, status });
    expect(namesOf(await point("2020-01-03", "dormant"))).toEqual(["alice"]);
    expect(namesOf(await point("2020-01-04", "dormant"))).toEqual(["bob", "carol"]);
    expect(namesOf(await point("2020-01-02", "resurrecting"))).toEqual(["bob"]);
    expect(namesOf(await point(undefined, "new"))).toEqual(["alice", "carol"]);
    expect(namesOf(await point(undefined, undefined))).toEqual(["alice", "bob", "carol"]);
    expect(namesOf(await point("2019-12-01", "new"))).toEqual([]);
    const body = await point("2020-01-01", "new");
    expect(body.columns).toEqual(["actor"]);
    expect(Object.keys(body.results[0][0]).sort()).toEqual([
      "created_at",
      "distinct_ids",
      "id",
      "is_identified",
      "properties",
    ]);
  });

  it("answers the persons of a stickiness point, by operator, series and period", async () => {
    const point = (extra: Record<string, unknown>, source: Record<string, unknown> = stickiness) =>
      actors({ kind: "InsightActorsQuery", source, ...extra });
    expect(namesOf(await point({ day: 2 }))).toEqual(["bob"]);
    expect(namesOf(await point({ day: 2, kind: "StickinessActorsQuery", operator: "gte" }))).toEqual(["alice", "bob"]);
    const cumulative = { ...stickiness, stickinessFilter: { computedAs: "cumulative" } };
    expect(namesOf(await point({ day: 2 }, cumulative))).toEqual(["alice", "bob"]);
    const compared = { ...stickiness, dateRange: { date_from: "2020-01-03", date_to: "2020-01-04" } };
    expect(namesOf(await point({ day: 2, compare: "previous" }, compared))).toEqual(["alice"]);
    const two = { ...stickiness, series: [...pageviews, { kind: "EventsNode", event: "other" }] };
    expect(namesOf(await point({ day: 1, series: 1 }, two))).toEqual(["dave"]);
  });

  it("pages with hasMore, selects person columns, and refuses what it does not support", async () => {
    const source = { kind: "InsightActorsQuery", source: lifecycle, status: "new" };
    const first = await actors(source, { limit: 1, select: ["id", "properties.missing", "person.$delete"] });
    expect(first).toMatchObject({ hasMore: true, limit: 1, offset: 0, missing_actors_count: 0 });
    expect(first.columns).toEqual(["id", "properties.missing", "person.$delete"]);
    expect(first.results[0].slice(1)).toEqual([null, 1]);
    const second = await actors(source, { limit: 1, offset: 1, select: ["id"] });
    expect(second.hasMore).toBe(false);
    expect(second.results[0][0]).not.toBe(first.results[0][0]);
    const raw = await ask(source);
    expect(raw.columns).toEqual(["actor_id"]);
    expect(raw.results.length).toBe(2);

    const ordered = await refused({ kind: "ActorsQuery", source, orderBy: ["properties.email DESC"] });
    expect(ordered.attr).toBe("query__orderBy");
    const badSelect = await refused({ kind: "ActorsQuery", source, select: ["actor", "count()"] });
    expect(badSelect.attr).toBe("query__select__1");
    const badStatus = await refused({ kind: "ActorsQuery", source: { ...source, status: "churned" } });
    expect(badStatus.attr).toBe("query__source__status");
    // Only a trends point's persons have events to order by.
    const byEvents = await refused({ kind: "ActorsQuery", source, orderBy: ["event_count DESC"] });
    expect(byEvents.attr).toBe("query__orderBy");
  });
});
