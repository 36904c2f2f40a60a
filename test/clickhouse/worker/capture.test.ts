import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../../helpers";

import { capture, personUuid, rows, until, untilStored } from "./queue-helpers";
import { mirroredPersonVersion } from "../../../src/analytics/clickhouse/rows";

describe("capture on ClickHouse", () => {
  it("queues events from every SDK path into ClickHouse with their person, and none into D1", async () => {
    const project = await createProject();
    const token = project.api_token;
    await capture("/batch/", {
      api_key: token,
      batch: [
        { event: "page", distinct_id: "u1", properties: { a: 1 }, timestamp: "2026-01-02T03:04:05.678Z" },
        { event: "anonymous", distinct_id: "u2", properties: { $process_person_profile: false } },
      ],
    });
    await capture("/e/", { token, event: "click", distinct_id: "u1", properties: {} });
    await capture("/i/v0/e/", { api_key: token, event: "view", distinct_id: "u3", properties: { $set: { n: 1 } } });

    const stored = await until<{
      event: string;
      distinct_id: string;
      person_id: string | null;
      properties: string;
      timestamp: string;
    }>(
      "SELECT event, distinct_id, person_id, properties, timestamp FROM events WHERE team_id = {team:Int64} ORDER BY event",
      { team: project.id },
      (r) => r.length === 4,
    );
    const u1 = await personUuid(project.id, "u1");
    const u3 = await personUuid(project.id, "u3");
    expect(u1).toBeDefined();
    expect(stored.map((r) => [r.event, r.distinct_id, r.person_id])).toEqual([
      ["anonymous", "u2", null],
      ["click", "u1", u1],
      ["page", "u1", u1],
      ["view", "u3", u3],
    ]);
    const page = stored.find((r) => r.event === "page")!;
    expect(JSON.parse(page.properties)).toMatchObject({ a: 1 });
    expect(page.timestamp).toBe("2026-01-02 03:04:05.678000");

    // The persons mirror: D1's persons at D1's versions, and their distinct ids.
    const persons = await until<{ id: string; properties: string; latest: string }>(
      "SELECT id, argMax(properties, version) AS properties, toString(max(version)) AS latest FROM person WHERE team_id = {team:Int64} GROUP BY id ORDER BY id",
      { team: project.id },
      (r) => r.length === 2,
    );
    const u3Row = await env.DB.prepare("SELECT id FROM persons WHERE uuid = ?").bind(u3).first<{ id: number }>();
    expect(persons.find((p) => p.id === u3)).toMatchObject({ latest: mirroredPersonVersion(u3Row!.id, 0) });
    expect(JSON.parse(persons.find((p) => p.id === u3)!.properties)).toEqual({ n: 1 });
    const links = await until<{ distinct_id: string; person_id: string }>(
      "SELECT distinct_id, argMax(person_id, version) AS person_id FROM person_distinct_id2 WHERE team_id = {team:Int64} GROUP BY distinct_id ORDER BY distinct_id",
      { team: project.id },
      (r) => r.length === 2,
    );
    expect(links).toEqual([
      { distinct_id: "u1", person_id: u1 },
      { distinct_id: "u3", person_id: u3 },
    ]);

    const inD1 = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE project_id = ?").bind(project.id).first();
    expect(inD1).toEqual({ n: 0 });
  });

  it("mirrors a person update through the API at D1's version", async () => {
    const project = await createProject();
    await capture("/e/", { token: project.api_token, event: "e", distinct_id: "p1", properties: { $set: { a: 1 } } });
    const uuid = (await personUuid(project.id, "p1"))!;
    const { id } = (await env.DB.prepare("SELECT id FROM persons WHERE uuid = ?").bind(uuid).first<{ id: number }>())!;
    const res = await call(`/api/environments/${project.id}/persons/${id}/`, {
      method: "PATCH",
      body: { properties: { b: 2 } },
    });
    expect(res.status).toBe(200);
    const d1 = await env.DB.prepare("SELECT version, properties FROM persons WHERE id = ?")
      .bind(id)
      .first<{ version: number; properties: string }>();
    const latest = await until<{ properties: string; latest: string }>(
      "SELECT argMax(properties, version) AS properties, toString(max(version)) AS latest FROM person WHERE team_id = {team:Int64} AND id = {id:UUID}",
      { team: project.id, id: uuid },
      (r) => r[0]?.latest === mirroredPersonVersion(id, d1!.version),
    );
    expect(JSON.parse(latest[0].properties)).toEqual(JSON.parse(d1!.properties));
    // The $set event itself is an event like any other.
    await until(
      "SELECT 1 FROM events WHERE team_id = {team:Int64} AND event = '$set'",
      { team: project.id },
      (r) => r.length === 1,
    );
  });

  it("refuses an event or person update too large for one queue message before writing anything (413)", async () => {
    const project = await createProject();
    const big = "x".repeat(130_000);
    const res = await call("/batch/", {
      method: "POST",
      key: null,
      body: { api_key: project.api_token, batch: [{ event: "big", distinct_id: "big-1", properties: { big } }] },
    });
    expect(res.status, res.text).toBe(413);
    expect(envelope(res)).toMatchObject({ code: "payload_too_large" });
    expect(await personUuid(project.id, "big-1")).toBeUndefined();

    await capture("/e/", { token: project.api_token, event: "e", distinct_id: "p1", properties: { $set: { a: 1 } } });
    const uuid = (await personUuid(project.id, "p1"))!;
    const before = await env.DB.prepare("SELECT version, properties FROM persons WHERE uuid = ?").bind(uuid).first();
    const patch = await call(`/api/environments/${project.id}/persons/${uuid}/`, {
      method: "PATCH",
      body: { properties: { big } },
    });
    expect(patch.status, patch.text).toBe(413);
    envelope(patch);
    expect(await env.DB.prepare("SELECT version, properties FROM persons WHERE uuid = ?").bind(uuid).first()).toEqual(
      before,
    );
  });

  it("capture v1: queues the stored events, drops only the one too large for the queue, and a retry stores nothing twice", async () => {
    const project = await createProject();
    const event = (name: string, properties: Record<string, unknown> = {}) => ({
      event: name,
      uuid: crypto.randomUUID(),
      distinct_id: "v1-ch",
      timestamp: "2026-01-02T03:04:05.678Z",
      session_id: "s-ch",
      options: {},
      properties,
    });
    const batch = [
      event("first", { $set: { plan: "pro" } }),
      event("big", { big: "x".repeat(130_000) }),
      event("last"),
    ];
    const send = () =>
      call("/i/v1/analytics/events", {
        method: "POST",
        key: project.api_token,
        body: { created_at: new Date().toISOString(), batch },
      });
    for (const attempt of [1, 2]) {
      const res = await send();
      expect(res.status, `attempt ${attempt}: ${res.text}`).toBe(200);
      expect(Object.values(res.json.results)).toEqual([
        { result: "ok" },
        { result: "drop", details: "event_too_big" },
        { result: "ok" },
      ]);
    }
    const person = await personUuid(project.id, "v1-ch");
    // The same uuids twice: reads see each event once (ReplacingMergeTree by uuid, as FINAL reads it).
    await untilStored(project.id, 0, 2);
    const stored = await rows<{ event: string; person_id: string; session: string }>(
      "SELECT event, toString(person_id) AS person_id, JSONExtractString(properties, '$session_id') AS session FROM events FINAL WHERE team_id = {team:Int64} ORDER BY event",
      { team: project.id },
    );
    expect(stored).toHaveLength(2);
    expect(stored).toEqual([
      { event: "first", person_id: person, session: "s-ch" },
      { event: "last", person_id: person, session: "s-ch" },
    ]);
  });
});
