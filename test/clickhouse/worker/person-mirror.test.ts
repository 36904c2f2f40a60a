import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ownClickHouse } from "../../../src/analytics/clickhouse/deployment";
import { ClickHouseAnalyticsStore } from "../../../src/analytics/clickhouse/store";
import type { ClickHouseRows } from "../../../src/analytics/clickhouse/rows";
import { createDb } from "../../../src/db/client";
import type { Env } from "../../../src/env";
import { clickhouseConnection } from "../../../src/lib/config";
import type { Principal } from "../../../src/lib/auth/principal";
import { deletePersons } from "../../../src/persons/deletion";
import { resetDistinctId } from "../../../src/persons/reset-distinct-id";
import { requirePerson } from "../../../src/persons/service";
import { splitPerson } from "../../../src/persons/split";
import { seed } from "../../endpoints/fixtures";
import { call, createProject } from "../../helpers";
import { insert, seedClickHouse } from "../seed";
import { clickhouse } from "./client";

// The persons mirror rows that split, deletion and reset_person_distinct_id send, and what HogQL reads
// once they are in ClickHouse. The events queue's consumer (which inserts them in production) is not
// part of this suite yet, so the store here hands its rows straight to ClickHouse's insert, table by
// table, as the consumer does; the routes' own path through the real queue runs in persons.test.ts.
// With the consumer in place, these can go through the API and poll instead.

const root: Principal = { kind: "root", label: "root" };
const db = () => createDb(env.DB);

async function insertRows(rows: ClickHouseRows) {
  for (const [table, values] of Object.entries(rows)) await insert(clickhouse(), table, values);
}
const store = () =>
  new ClickHouseAnalyticsStore(
    () => ownClickHouse(clickhouseConnection(env as unknown as Env)!, env.DB),
    insertRows,
    db(),
  );

/** Runs a HogQL query through a saved endpoint, as a user would (endpoints run on ClickHouse here). */
async function hogql(project: number, query: string): Promise<unknown[][]> {
  const name = `q${crypto.randomUUID().slice(0, 8)}`;
  const created = await call(`/api/environments/${project}/endpoints/`, {
    method: "POST",
    body: { name, query: { kind: "HogQLQuery", query } },
  });
  expect(created.status).toBe(201);
  const res = await call(`/api/environments/${project}/endpoints/${name}/run`);
  expect(res.status).toBe(200);
  return res.json.results;
}

async function personOf(project: number, distinctId: string): Promise<string | undefined> {
  const row = await env.DB.prepare(
    "SELECT p.uuid FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.project_id = ? AND d.distinct_id = ?",
  )
    .bind(project, distinctId)
    .first<{ uuid: string }>();
  return row?.uuid;
}

describe("split on ClickHouse", () => {
  let project: number;
  const P = crypto.randomUUID();

  beforeAll(async () => {
    project = (await createProject("split")).id;
    const data = {
      persons: [{ uuid: P, distinctIds: ["s1", "s2", "s3"], properties: { name: "kept" } }],
      events: ["s1", "s2", "s3", "s2"].map((distinctId, i) => ({
        event: "v",
        distinctId,
        timestamp: new Date(Date.UTC(2026, 0, 1, i)).toISOString(),
      })),
    };
    await seed(project, data);
  });

  it("moves distinct ids to new persons whose past events read as theirs, without rewriting events", async () => {
    const person = await requirePerson(db(), project, P);
    await splitPerson(db(), store(), project, person, { distinct_ids_to_split: ["s2", "s3"] }, root);
    const s2 = (await personOf(project, "s2"))!;
    const s3 = (await personOf(project, "s3"))!;
    expect(new Set([P, s2, s3]).size).toBe(3);

    expect(
      await hogql(
        project,
        "select distinct_id, person_id, count() from events group by distinct_id, person_id order by distinct_id",
      ),
    ).toEqual([
      ["s1", P, 1],
      ["s2", s2, 2],
      ["s3", s3, 1],
    ]);
    // The new persons exist, empty; the split person keeps its properties.
    const persons = await hogql(project, "select id, properties.name from persons");
    expect(new Map(persons as [string, unknown][])).toEqual(
      new Map([
        [P, "kept"],
        [s2, null],
        [s3, null],
      ]),
    );
    const stored = await clickhouse().query({
      query: "SELECT DISTINCT toString(person_id) AS p FROM events WHERE team_id = {team:Int64}",
      query_params: { team: project },
      format: "JSONEachRow",
    });
    expect(await stored.json()).toEqual([{ p: P }]);
  });

  it("a deleted person leaves the persons a read finds, with its distinct ids", async () => {
    const moved = await requirePerson(db(), project, (await personOf(project, "s3"))!);
    await deletePersons(
      db(),
      store(),
      project,
      [moved],
      { deleteEvents: false, keepPerson: false, before: new Date().toISOString() },
      root,
    );
    const ids = (await hogql(project, "select id from persons")).map((r) => r[0]);
    expect(ids).toHaveLength(2);
    expect(ids).not.toContain(moved.uuid);
    const mapping = await clickhouse().query({
      query:
        "SELECT distinct_id, argMax(is_deleted, version) AS deleted FROM person_distinct_id2 WHERE team_id = {team:Int64} GROUP BY distinct_id ORDER BY distinct_id",
      query_params: { team: project },
      format: "JSONEachRow",
    });
    expect(await mapping.json()).toEqual([
      { distinct_id: "s1", deleted: 0 },
      { distinct_id: "s2", deleted: 0 },
      { distinct_id: "s3", deleted: 1 },
    ]);
  });
});

describe("reset_person_distinct_id on ClickHouse", () => {
  it("the id's events stored under its deleted person read as its current person", async () => {
    const project = (await createProject("reset")).id;
    const deleted = crypto.randomUUID();
    const current = crypto.randomUUID();
    // Captured again after its person was deleted: D1 has the new person; ClickHouse the old events
    // under the deleted person (whose deletion it has) and the new one under the new person.
    await seed(project, { persons: [{ uuid: current, distinctIds: ["d"] }] }, { clickhouse: false });
    const ch = clickhouse();
    await seedClickHouse(ch, project, {
      persons: [{ uuid: deleted, distinctIds: ["d"] }],
      events: [
        { event: "old", distinctId: "d", timestamp: "2026-01-01T00:00:00.000Z" },
        { event: "old", distinctId: "d", timestamp: "2026-01-02T00:00:00.000Z" },
      ],
    });
    await seedClickHouse(ch, project, {
      persons: [{ uuid: current, distinctIds: ["d"] }],
      events: [{ event: "new", distinctId: "d", timestamp: "2026-01-03T00:00:00.000Z" }],
    });
    const read = () => hogql(project, "select event, person_id from events order by timestamp");
    expect(await read()).toEqual([
      ["old", deleted],
      ["old", deleted],
      ["new", current],
    ]);
    await resetDistinctId(db(), store(), project, "d");
    expect(await read()).toEqual([
      ["old", current],
      ["old", current],
      ["new", current],
    ]);
  });
});
