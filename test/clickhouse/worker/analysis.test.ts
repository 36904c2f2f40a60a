import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createProject } from "../../helpers";
import { personWith, uuidsOf } from "../../persons-analysis/fixtures";
import { capture } from "../../persons/helpers";
import { seedClickHouse } from "../seed";
import { clickhouse } from "./client";
import { rows } from "./queue-helpers";

/**
 * What only the ClickHouse deployment has to get right for the persons analysis (the shared suites
 * run on both engines): the mirror ingestion writes (each person's D1 id, a request's event order),
 * merges read through the overrides, and events stored twice.
 */
const steps = (...names: string[]) =>
  encodeURIComponent(JSON.stringify(names.map((id, order) => ({ id, type: "events", order }))));
const funnel = (project: number, names: string[], query: string) =>
  call(
    `/api/environments/${project}/persons/funnel/?events=${steps(...names)}&date_from=2024-02-01&date_to=2024-02-03&${query}`,
  );

describe("persons analysis on ClickHouse", () => {
  it("names persons by the D1 id ingestion mirrors, and keeps a request's simultaneous events in order", async () => {
    const project = await createProject();
    const at = "2024-02-01T10:00:00.000Z";
    // Three events with one timestamp: the strict funnel A → B → C holds only in the order they were sent.
    await capture(project.api_token, [
      { event: "A", distinct_id: "ann", timestamp: at },
      { event: "B", distinct_id: "ann", timestamp: at },
      { event: "C", distinct_id: "ann", timestamp: at },
      { event: "C", distinct_id: "bob", timestamp: at },
      { event: "B", distinct_id: "bob", timestamp: at },
      { event: "A", distinct_id: "bob", timestamp: at },
    ]);
    const d1 = await env.DB.prepare(
      "SELECT p.id, p.uuid, d.distinct_id FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE p.project_id = ?",
    )
      .bind(project.id)
      .all<{ id: number; uuid: string; distinct_id: string }>();
    const mirrored = await rows<{ id: string; d1_id: string }>(
      "SELECT id, argMax(d1_id, version) AS d1_id FROM person WHERE team_id = {team:Int64} GROUP BY id ORDER BY d1_id",
      { team: project.id },
    );
    expect(mirrored.map((r) => [r.id, Number(r.d1_id)])).toEqual(
      d1.results.sort((a, b) => a.id - b.id).map((r) => [r.uuid, r.id]),
    );
    const stored = await rows<{ event: string }>(
      "SELECT event FROM events WHERE team_id = {team:Int64} AND distinct_id = 'bob' ORDER BY created_at",
      { team: project.id },
    );
    expect(stored.map((r) => r.event)).toEqual(["C", "B", "A"]);
    const ann = d1.results.find((r) => r.distinct_id === "ann")!;
    const strict = await funnel(project.id, ["A", "B", "C"], "funnel_order_type=strict&funnel_step=3");
    expect(strict.status, strict.text).toBe(200);
    expect(uuidsOf(strict.json)).toEqual([ann.uuid]);
  });

  it("reads a merged-away person's events as the person it merged into", async () => {
    const project = await createProject();
    await capture(project.api_token, [
      { event: "viewed", distinct_id: "anon", timestamp: "2024-02-01T10:00:00Z" },
      {
        event: "bought",
        distinct_id: "user",
        timestamp: "2024-02-01T11:00:00Z",
        properties: { $set: { email: "u@x" } },
      },
    ]);
    // Both ids have a person by now: identifying merges the anonymous one into the user's.
    await capture(project.api_token, [
      {
        event: "$identify",
        distinct_id: "user",
        timestamp: "2024-02-01T12:00:00Z",
        properties: { $anon_distinct_id: "anon" },
      },
    ]);
    const overrides = await rows<{ distinct_id: string }>(
      "SELECT distinct_id FROM person_distinct_id_overrides WHERE team_id = {team:Int64}",
      { team: project.id },
    );
    expect(overrides.map((r) => r.distinct_id)).toEqual(["anon"]);
    const res = await funnel(project.id, ["viewed", "bought"], "funnel_step=2");
    expect(res.status, res.text).toBe(200);
    expect(res.json.results[0].people.map((p: { distinct_ids: string[] }) => p.distinct_ids.sort())).toEqual([
      ["anon", "user"],
    ]);
  });

  it("does not count an event stored twice (two inserts) as two steps", async () => {
    const project = (await createProject()).id;
    const person = await personWith(project, [["C", "2024-02-01T11:00:00.000Z"]]);
    const copies = [
      { uuid: crypto.randomUUID(), event: "A", distinctId: person.distinctId, timestamp: "2024-02-01T10:00:00.000Z" },
      { uuid: crypto.randomUUID(), event: "B", distinctId: person.distinctId, timestamp: "2024-02-01T10:30:00.000Z" },
    ];
    await clickhouse().command({ query: "SYSTEM STOP MERGES events" });
    try {
      // As an SDK retry that landed in another queue batch stores them: the same uuids, in two parts.
      const persons = [{ uuid: person.uuid, id: person.id, distinctIds: [person.distinctId] }];
      for (let i = 0; i < 2; i++) await seedClickHouse(clickhouse(), project, { persons, events: copies });
      // A → A → C: the one A cannot make both first steps.
      const repeated = await funnel(project, ["A", "A", "C"], "funnel_step=-2");
      expect(uuidsOf(repeated.json)).toEqual([person.uuid]);
      // Strict A → B → C: the copy of B does not stand between B and C.
      const strict = await funnel(project, ["A", "B", "C"], "funnel_order_type=strict&funnel_step=3");
      expect(uuidsOf(strict.json)).toEqual([person.uuid]);
    } finally {
      await clickhouse().command({ query: "SYSTEM START MERGES events" });
    }
  });
});
