import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { D1AnalyticsStore } from "../../../src/analytics/d1/store";
import { createDb } from "../../../src/db/client";
import { parseProperties } from "../../../src/persons/properties-param";
import { propertiesTimeline } from "../../../src/persons/timeline";
import { seed } from "../../endpoints/fixtures";
import { call, createProject } from "../../helpers";
import { personsPath } from "../../persons/helpers";
import type { SeedData } from "../../seed-data";
import { insert, mergeInClickHouse, seedClickHouse } from "../seed";
import { clickhouse } from "./client";

// The persons operations that read or remove events, through the API of a worker configured for
// ClickHouse: the persons are D1's (seeded there), the events ClickHouse's (seeded as ingestion writes them).

const t = (day: number, hour = 0) => new Date(Date.UTC(2026, 0, day, hour)).toISOString();

/** The person ids D1 gave the seeded persons, by uuid. */
async function d1Ids(projectId: number): Promise<Map<string, number>> {
  const { results } = await env.DB.prepare("SELECT id, uuid FROM persons WHERE project_id = ?")
    .bind(projectId)
    .all<{ id: number; uuid: string }>();
  return new Map(results.map((r) => [r.uuid, r.id]));
}

/** ClickHouse's event count per distinct id of a project (deleted rows are not read). */
async function eventCounts(projectId: number): Promise<Record<string, number>> {
  const result = await clickhouse().query({
    query: "SELECT distinct_id, count() AS n FROM events WHERE team_id = {team:Int64} GROUP BY distinct_id",
    query_params: { team: projectId },
    format: "JSONEachRow",
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  const rows = await result.json<{ distinct_id: string; n: number }>();
  return Object.fromEntries(rows.map((r) => [r.distinct_id, r.n]));
}

describe("properties timeline on ClickHouse", () => {
  let project: number;
  const P = crypto.randomUUID();
  const M = crypto.randomUUID();
  const Q = crypto.randomUUID();
  // Events of `m` were stored under person M, which was then merged into P.
  const events: SeedData["events"] = [
    { event: "e", distinctId: "a", timestamp: t(2), properties: { $set: { plan: "free", seen: 1 } } },
    { event: "e", distinctId: "m", timestamp: t(3), properties: { $set_once: { source: "ad" } } },
    { event: "e", distinctId: "a", timestamp: t(10) },
    { event: "e", distinctId: "m", timestamp: t(11), properties: { $set: { plan: "pro" } } },
    { event: "e", distinctId: "a", timestamp: t(12), properties: { $set: { seen: 2 } } },
    { event: "e", distinctId: "q", timestamp: t(12, 1), properties: { $set: { plan: "other" } } },
    { event: "e", distinctId: "m", timestamp: t(13), properties: { $unset: ["seen"] } },
    { event: "e", distinctId: "a", timestamp: t(20), properties: { $set: { plan: "late" } } },
  ];

  beforeAll(async () => {
    project = (await createProject("timeline")).id;
    // D1 holds the merged state (its merge rewrote M's events to P); ClickHouse the events as stored
    // before the merge, plus the merge's override rows.
    await seed(
      project,
      {
        persons: [
          { uuid: P, distinctIds: ["a", "m"] },
          { uuid: Q, distinctIds: ["q"] },
        ],
        events,
      },
      { clickhouse: false },
    );
    const ch = clickhouse();
    await seedClickHouse(ch, project, {
      persons: [
        { uuid: P, distinctIds: ["a"] },
        { uuid: M, distinctIds: ["m"] },
        { uuid: Q, distinctIds: ["q"] },
      ],
      events,
    });
    await mergeInClickHouse(ch, project, { from: M, into: P, distinctIds: ["m"], version: 1 });
    // Another project's events of the same distinct ids and person are never read.
    await seedClickHouse(ch, (await createProject("elsewhere")).id, {
      persons: [{ uuid: P, distinctIds: ["a"] }],
      events: [{ event: "e", distinctId: "a", timestamp: t(11), properties: { $set: { plan: "foreign" } } }],
    });
  });

  for (const [name, query] of [
    [
      "with a crucial property",
      { date_from: "2026-01-05", date_to: "2026-01-15", properties: '[{"key":"plan","value":"pro","type":"person"}]' },
    ],
    ["without one", { date_from: "2026-01-01", date_to: "2026-01-31" }],
    [
      "by a person breakdown",
      { date_from: "2026-01-11", date_to: "2026-01-31", breakdown: "seen", breakdown_type: "person" },
    ],
  ] as const) {
    it(`answers as D1 does for the same events, ${name}`, async () => {
      const id = (await d1Ids(project)).get(P)!;
      const res = await call(personsPath(project, `${P}/properties_timeline/?${new URLSearchParams(query)}`));
      expect(res.status).toBe(200);
      const d1 = await propertiesTimeline(
        new D1AnalyticsStore(env.DB, createDb(env.DB)),
        project,
        { id, uuid: P },
        {
          dateFrom: query.date_from,
          dateTo: query.date_to,
          filter: parseProperties("properties" in query ? query.properties : undefined),
          breakdown: "breakdown" in query ? query.breakdown : undefined,
          breakdownType: "breakdown_type" in query ? query.breakdown_type : undefined,
        },
      );
      expect(res.json).toEqual(d1);
      expect(res.json.points.length).toBeGreaterThan(0);
    });
  }

  it("replays the merged-in id's events and leaves out other persons' and projects'", async () => {
    const res = await call(personsPath(project, `${P}/properties_timeline/?date_from=2026-01-01&date_to=2026-01-31`));
    expect(res.json.points).toEqual([
      { timestamp: t(2), properties: { plan: "free", seen: 1 }, relevant_event_count: 7 },
    ]);
    const plan = await call(
      personsPath(
        project,
        `${P}/properties_timeline/?date_from=2026-01-01&date_to=2026-01-31&breakdown=plan&breakdown_type=person`,
      ),
    );
    expect(plan.json.points.map((p: { properties: { plan: string } }) => p.properties.plan)).toEqual([
      "free",
      "pro",
      "late",
    ]);
    expect(plan.json.points.at(-1).properties).toEqual({ plan: "late", source: "ad" });
  });
});

describe("deleting a person's events on ClickHouse", () => {
  let project: number;
  let other: number;
  const P = crypto.randomUUID();
  const M = crypto.randomUUID();
  const Q = crypto.randomUUID();
  const R = crypto.randomUUID();

  beforeAll(async () => {
    project = (await createProject("delete")).id;
    other = (await createProject("delete elsewhere")).id;
    await seed(
      project,
      {
        persons: [
          { uuid: P, distinctIds: ["p1", "m"] },
          { uuid: Q, distinctIds: ["q"] },
          { uuid: R, distinctIds: ["r"] },
        ],
      },
      { clickhouse: false },
    );
    const ch = clickhouse();
    const events = ["p1", "p1", "m", "m", "m", "q", "q", "r"].map((distinctId, i) => ({
      event: "v",
      distinctId,
      timestamp: t(1, i),
    }));
    await seedClickHouse(ch, project, {
      persons: [
        { uuid: P, distinctIds: ["p1"] },
        { uuid: M, distinctIds: ["m"] },
        { uuid: Q, distinctIds: ["q"] },
        { uuid: R, distinctIds: ["r"] },
      ],
      events,
    });
    await mergeInClickHouse(ch, project, { from: M, into: P, distinctIds: ["m"], version: 1 });
    await seedClickHouse(ch, other, { persons: [{ uuid: P, distinctIds: ["p1"] }], events });
    // Stored after the requests below began: a deletion covers what existed when it was asked for.
    await insert(ch, "events", [
      {
        uuid: crypto.randomUUID(),
        team_id: project,
        event: "later",
        distinct_id: "p1",
        properties: "{}",
        timestamp: t(2),
        created_at: "2999-01-01T00:00:00.000Z",
        person_id: P,
      },
    ]);
  });

  it("DELETE with delete_events removes exactly the person's events, merged-in ids' included", async () => {
    expect(await eventCounts(project)).toEqual({ p1: 3, m: 3, q: 2, r: 1 });
    const res = await call(personsPath(project, `${P}/?delete_events=true`), { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await eventCounts(project)).toEqual({ p1: 1, q: 2, r: 1 });
    expect(await eventCounts(other)).toEqual({ p1: 2, m: 3, q: 2, r: 1 });
    expect((await call(personsPath(project, `${P}/`))).status).toBe(404);
  });

  it("bulk_delete with delete_events removes the found persons' events; keep_person keeps the person", async () => {
    const res = await call(personsPath(project, "bulk_delete/"), {
      method: "POST",
      body: { distinct_ids: ["q"], delete_events: true, keep_person: true },
    });
    expect(res.json).toMatchObject({ persons_found: 1, persons_deleted: 0, events_queued_for_deletion: true });
    expect(await eventCounts(project)).toEqual({ p1: 1, r: 1 });
    expect((await call(personsPath(project, `${Q}/`))).status).toBe(200);
    const without = await call(personsPath(project, "bulk_delete/"), { method: "POST", body: { ids: [R] } });
    expect(without.json).toMatchObject({ persons_found: 1, persons_deleted: 1, events_queued_for_deletion: false });
    expect(await eventCounts(project)).toEqual({ p1: 1, r: 1 });
  });
});
