import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";
import { capture, personByDistinctId, personsPath } from "./helpers";

let project: { id: number; api_token: string };
const path = (rest = "") => personsPath(project.id, rest);
const countEvents = async (where: string, ...binds: unknown[]) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM events WHERE project_id = ? AND ${where}`)
    .bind(project.id, ...binds)
    .first<{ n: number }>())!.n;

beforeAll(async () => {
  project = await createProject();
});

describe("person updates", () => {
  it("PATCH stores a $set event, applies it and answers 200 with the person", async () => {
    await capture(project.api_token, [{ event: "x", distinct_id: "u1", properties: { $set: { a: 1, b: 2 } } }]);
    const person = (await personByDistinctId(project.id, "u1"))!;
    const res = await call(path(`${person.id}/`), { method: "PATCH", body: { properties: { b: 3, c: "new" } } });
    expect(res.status).toBe(200);
    expect(res.json.properties).toEqual({ a: 1, b: 3, c: "new" });
    expect(res.json.id).toBe(person.id);
    const stored = await env.DB.prepare(
      "SELECT properties FROM events WHERE project_id = ? AND event = '$set' AND distinct_id = 'u1'",
    )
      .bind(project.id)
      .first<{ properties: string }>();
    expect(JSON.parse(stored!.properties).$set).toEqual({ b: 3, c: "new" });
  });

  it("PATCH without properties is a 400; unknown person 404; needs person:write", async () => {
    const person = (await personByDistinctId(project.id, "u1"))!;
    const res = await call(path(`${person.id}/`), { method: "PATCH", body: {} });
    expect(res.status).toBe(400);
    expect(envelope(res).attr).toBe("properties");
    expect((await call(path(`${person.id}/`), { method: "PATCH", body: { properties: "x" } })).status).toBe(400);
    expect((await call(path("424242/"), { method: "PATCH", body: { properties: {} } })).status).toBe(404);
    const reader = await createKey(["person:read"]);
    const denied = await call(path(`${person.id}/`), { method: "PATCH", key: reader, body: { properties: {} } });
    expect(denied.status).toBe(403);
    expect(envelope(denied).detail).toBe("API key missing required scope 'person:write'");
  });

  it("update_property sets one key; delete_property unsets it and stores a $delete_person_property event", async () => {
    const person = (await personByDistinctId(project.id, "u1"))!;
    const set = await call(path(`${person.id}/update_property/`), {
      method: "POST",
      body: { key: "tier", value: { level: 2 } },
    });
    expect(set.status).toBe(200);
    expect(set.json.properties.tier).toEqual({ level: 2 });
    const nullValue = await call(path(`${person.id}/update_property/`), {
      method: "POST",
      body: { key: "nothing", value: null },
    });
    expect(nullValue.json.properties.nothing).toBeNull();
    const missing = await call(path(`${person.id}/update_property/`), { method: "POST", body: { key: "tier" } });
    expect(missing.status).toBe(400);
    expect(envelope(missing).attr).toBe("value");
    expect((await call(path(`${person.id}/update_property/`), { method: "POST", body: { value: 1 } })).status).toBe(
      400,
    );

    const del = await call(path(`${person.id}/delete_property/`), { method: "POST", body: { $unset: "tier" } });
    expect(del.status).toBe(200);
    expect(del.json.properties.tier).toBeUndefined();
    const event = await env.DB.prepare(
      "SELECT properties FROM events WHERE project_id = ? AND event = '$delete_person_property'",
    )
      .bind(project.id)
      .first<{ properties: string }>();
    expect(JSON.parse(event!.properties).$unset).toEqual(["tier"]);
    expect((await call(path(`${person.id}/delete_property/`), { method: "POST", body: {} })).status).toBe(400);
  });

  it("records activity with before/after per changed key, for one person and for all", async () => {
    const person = (await personByDistinctId(project.id, "u1"))!;
    const res = await call(path(`${person.id}/activity/`));
    expect(res.status).toBe(200);
    expect(res.json.total_count).toBeGreaterThanOrEqual(3);
    const activities = res.json.results.map((e: any) => e.activity);
    expect(activities).toContain("updated");
    expect(activities).toContain("delete_property");
    const patch = res.json.results.find(
      (e: any) => e.activity === "updated" && e.detail.changes.some((ch: any) => ch.field === "properties.b"),
    );
    expect(patch.scope).toBe("Person");
    expect(patch.item_id).toBe(String(person.id));
    expect(patch.user).toEqual({ first_name: "root", email: null });
    expect(patch.detail.changes.find((ch: any) => ch.field === "properties.b")).toMatchObject({
      type: "Person",
      action: "changed",
      before: 2,
      after: 3,
    });
    const paged = await call(path(`${person.id}/activity/?limit=1`));
    expect(paged.json.results).toHaveLength(1);
    expect(paged.json.next).toContain("page=2");
    const all = await call(path("activity/"));
    expect(all.json.total_count).toBeGreaterThanOrEqual(res.json.total_count);
    const noScope = await createKey(["person:write"]);
    expect((await call(path("activity/"), { key: noScope })).status).toBe(403);
  });
});

describe("split", () => {
  it("moves distinct ids to new persons with their events; the person keeps its properties", async () => {
    await capture(project.api_token, [
      { event: "v", distinct_id: "s-anon", properties: { $set: { k: 1 } } },
      { event: "$identify", distinct_id: "s-user", properties: { $anon_distinct_id: "s-anon" } },
    ]);
    const merged = (await personByDistinctId(project.id, "s-user"))!;
    expect(merged.distinct_ids.sort()).toEqual(["s-anon", "s-user"]);
    const res = await call(path(`${merged.id}/split/`), { method: "POST", body: { main_distinct_id: "s-user" } });
    expect(res).toMatchObject({ status: 200, json: { success: true } });
    const kept = (await personByDistinctId(project.id, "s-user"))!;
    const moved = (await personByDistinctId(project.id, "s-anon"))!;
    expect(kept.id).toBe(merged.id);
    expect(kept.distinct_ids).toEqual(["s-user"]);
    expect(kept.properties).toEqual({ k: 1 });
    expect(moved.id).not.toBe(merged.id);
    expect(moved.properties).toEqual({});
    const anonEvents = await env.DB.prepare(
      "SELECT DISTINCT person_id FROM events WHERE project_id = ? AND distinct_id = 's-anon'",
    )
      .bind(project.id)
      .all();
    expect(anonEvents.results).toEqual([{ person_id: moved.id }]);
    const log = await call(path(`${merged.id}/activity/`));
    expect(log.json.results[0].activity).toBe("split_person");
    expect(log.json.results[0].detail.changes[0].after.distinct_ids.sort()).toEqual(["s-anon", "s-user"]);
  });

  it("validates distinct_ids_to_split", async () => {
    const person = (await personByDistinctId(project.id, "s-user"))!;
    const foreign = await call(path(`${person.id}/split/`), {
      method: "POST",
      body: { distinct_ids_to_split: ["nope"] },
    });
    expect(foreign.status).toBe(400);
    expect(envelope(foreign).attr).toBe("distinct_ids_to_split");
    expect(
      (await call(path(`${person.id}/split/`), { method: "POST", body: { distinct_ids_to_split: [] } })).status,
    ).toBe(400);
    expect(
      (await call(path(`${person.id}/split/`), { method: "POST", body: { distinct_ids_to_split: "x" } })).status,
    ).toBe(400);
    expect(
      (
        await call(path(`${person.id}/split/`), {
          method: "POST",
          body: { distinct_ids_to_split: ["s-user"], main_distinct_id: "s-user" },
        })
      ).status,
    ).toBe(400);
  });
});

describe("deletion", () => {
  it("DELETE removes the person (204), keeps its events unless delete_events, then 404", async () => {
    await capture(project.api_token, [
      { event: "v", distinct_id: "d1" },
      { event: "v", distinct_id: "d2" },
    ]);
    const p1 = (await personByDistinctId(project.id, "d1"))!;
    expect((await call(path(`${p1.id}/`), { method: "DELETE" })).status).toBe(204);
    expect((await call(path(`${p1.id}/`))).status).toBe(404);
    expect((await call(path(`${p1.id}/`), { method: "DELETE" })).status).toBe(404);
    expect(await countEvents("distinct_id = 'd1'")).toBe(1);
    const p2 = (await personByDistinctId(project.id, "d2"))!;
    expect((await call(path(`${p2.uuid}/?delete_events=true`), { method: "DELETE" })).status).toBe(204);
    expect(await countEvents("distinct_id = 'd2'")).toBe(0);
    const log = await call(path("activity/"));
    expect(log.json.results.find((e: any) => e.item_id === String(p2.id))).toMatchObject({
      activity: "deleted",
      detail: { name: p2.uuid },
    });
  });

  it("reset_person_distinct_id lets a deleted person's id start a new person with its old events detached", async () => {
    const res = await call(path("reset_person_distinct_id/"), { method: "POST", body: { distinct_id: "d1" } });
    expect(res.status).toBe(200);
    expect(await countEvents("distinct_id = 'd1' AND person_id IS NOT NULL")).toBe(0);
    await capture(project.api_token, [{ event: "v", distinct_id: "d1" }]);
    expect(await personByDistinctId(project.id, "d1")).toBeDefined();
    expect((await call(path("reset_person_distinct_id/"), { method: "POST", body: {} })).status).toBe(400);
  });

  it("bulk_delete with 1001 ids is a 400 and deletes nothing", async () => {
    await capture(project.api_token, [{ event: "v", distinct_id: "keep-me" }]);
    const person = (await personByDistinctId(project.id, "keep-me"))!;
    const ids = [person.uuid, ...Array.from({ length: 1000 }, () => crypto.randomUUID())];
    const res = await call(path("bulk_delete/"), { method: "POST", body: { ids } });
    expect(res.status).toBe(400);
    expect(envelope(res).detail).toBe("You can only pass 1000 ids in one call");
    expect(await personByDistinctId(project.id, "keep-me")).toBeDefined();
    const dids = await call(path("bulk_delete/"), {
      method: "POST",
      body: { distinct_ids: Array.from({ length: 1001 }, (_, i) => `x${i}`) },
    });
    expect(dids.status).toBe(400);
    expect((await call(path("bulk_delete/"), { method: "POST", body: {} })).status).toBe(400);
    expect((await call(path("bulk_delete/"), { method: "POST", body: { ids: [], distinct_ids: [] } })).status).toBe(
      400,
    );
  });

  it("bulk_delete by distinct ids with delete_events removes only events captured before the request", async () => {
    await capture(
      project.api_token,
      Array.from({ length: 30 }, (_, i) => ({ event: "old", distinct_id: `bulk${i % 3}` })),
    );
    const res = await call(path("bulk_delete/"), {
      method: "POST",
      body: { distinct_ids: ["bulk0", "bulk1", "unknown"], delete_events: true },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      persons_found: 2,
      persons_deleted: 2,
      events_queued_for_deletion: true,
      recordings_queued_for_deletion: false,
      deletion_errors: [],
    });
    expect(await countEvents("distinct_id IN ('bulk0', 'bulk1')")).toBe(0);
    expect(await countEvents("distinct_id = 'bulk2'")).toBe(10);
    expect(await personByDistinctId(project.id, "bulk0")).toBeUndefined();
    // A later event stored after the request survives a deletion that started before it.
    await capture(project.api_token, [{ event: "new", distinct_id: "bulk2" }]);
    const p = (await personByDistinctId(project.id, "bulk2"))!;
    const before = new Date(Date.now() - 60_000).toISOString();
    await env.DB.prepare(
      "UPDATE events SET created_at = ? WHERE project_id = ? AND distinct_id = 'bulk2' AND event = 'old'",
    )
      .bind(before, project.id)
      .run();
    await env.DB.prepare(
      "UPDATE events SET created_at = '2999-01-01T00:00:00.000Z' WHERE project_id = ? AND event = 'new'",
    )
      .bind(project.id)
      .run();
    const keep = await call(path("bulk_delete/"), {
      method: "POST",
      body: { ids: [p.uuid], delete_events: true, keep_person: true },
    });
    expect(keep.json).toMatchObject({ persons_found: 1, persons_deleted: 0 });
    expect(await countEvents("distinct_id = 'bulk2' AND event = 'old'")).toBe(0);
    expect(await countEvents("distinct_id = 'bulk2' AND event = 'new'")).toBe(1);
    expect(await personByDistinctId(project.id, "bulk2")).toBeDefined();
  });
});

describe("properties timeline", () => {
  it("replays the person's property changes over its events", async () => {
    const t = (d: number) => new Date(Date.now() - d * 3600_000).toISOString();
    await capture(project.api_token, [
      { event: "e", distinct_id: "tl", timestamp: t(50), properties: { $set: { plan: "free" } } },
      { event: "e", distinct_id: "tl", timestamp: t(40) },
      { event: "e", distinct_id: "tl", timestamp: t(30), properties: { $set: { plan: "pro", other: 1 } } },
      { event: "e", distinct_id: "tl", timestamp: t(20), properties: { $set: { other: 2 } } },
    ]);
    const person = (await personByDistinctId(project.id, "tl"))!;
    const props = encodeURIComponent(JSON.stringify([{ key: "plan", value: "pro", type: "person" }]));
    const res = await call(path(`${person.id}/properties_timeline/?properties=${props}`));
    expect(res.status).toBe(200);
    expect(res.json.crucial_property_keys).toEqual(["plan"]);
    expect(res.json.points.map((p: any) => [p.properties.plan, p.relevant_event_count])).toEqual([
      ["free", 2],
      ["pro", 2],
    ]);
    expect(res.json.effective_date_from).toMatch(/\+00:00$/);
    const none = await call(path(`${person.id}/properties_timeline/`));
    expect(none.json.points).toHaveLength(1);
    expect(none.json.points[0].relevant_event_count).toBe(4);
  });
});

describe("bulk work beyond D1's per-statement parameter limit", () => {
  it("bulk-deletes 1000 persons in one call with one activity entry each", async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `many-${i}`);
    await capture(
      project.api_token,
      ids.map((distinct_id) => ({ event: "v", distinct_id })),
    );
    const cohort = await call(`/api/projects/${project.id}/cohorts/`, {
      method: "POST",
      body: { name: "many", is_static: true, distinct_ids: ids },
    });
    expect(cohort.json.count).toBe(1000);
    const members = await call(`/api/projects/${project.id}/cohorts/${cohort.json.id}/persons/?limit=1000`);
    expect(members.json.results).toHaveLength(1000);
    const res = await call(path("bulk_delete/"), { method: "POST", body: { distinct_ids: ids } });
    expect(res.json).toMatchObject({ persons_found: 1000, persons_deleted: 1000 });
    const entries = await env.DB.prepare(
      "SELECT count(*) AS n FROM activity_log WHERE project_id = ? AND scope = 'Person' AND activity = 'deleted'",
    )
      .bind(project.id)
      .first<{ n: number }>();
    expect(entries!.n).toBeGreaterThanOrEqual(1000);
    expect((await call(`/api/projects/${project.id}/cohorts/${cohort.json.id}/`)).json.count).toBe(0);
    const log = await call(path("activity/?limit=1"));
    expect(log.json.results[0].user).toEqual({ first_name: "root", email: null });
    expect(log.json.results[0].detail.name).toMatch(/^[0-9a-f-]{36}$/);
  });
});
