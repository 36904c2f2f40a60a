import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, createProject } from "../helpers";

let project: { id: number; api_token: string };
beforeAll(async () => {
  project = await createProject();
});

async function send(...batch: Record<string, unknown>[]) {
  const res = await exports.default.fetch(
    new Request(`${BASE}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: project.api_token, batch }),
    }),
  );
  expect(res.status).toBe(200);
}

interface PersonRow {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: number;
  version: number;
  created_at: string;
}
async function personOf(distinctId: string): Promise<(PersonRow & { distinct_ids: string[] }) | undefined> {
  const row = await env.DB.prepare(
    "SELECT p.* FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.project_id = ? AND d.distinct_id = ?",
  )
    .bind(project.id, distinctId)
    .first<PersonRow & { properties: string }>();
  if (!row) return undefined;
  const ids = await env.DB.prepare("SELECT distinct_id FROM person_distinct_ids WHERE person_id = ? ORDER BY rowid")
    .bind(row.id)
    .all<{ distinct_id: string }>();
  return {
    ...row,
    properties: JSON.parse(row.properties as unknown as string),
    distinct_ids: ids.results.map((r) => r.distinct_id),
  };
}
const eventPersons = async (distinctId: string) =>
  (
    await env.DB.prepare("SELECT person_id FROM events WHERE project_id = ? AND distinct_id = ?")
      .bind(project.id, distinctId)
      .all<{ person_id: number | null }>()
  ).results.map((r) => r.person_id);

describe("person processing", () => {
  it("creates a person per new distinct id and applies $set, $set_once and $unset in order", async () => {
    await send(
      {
        event: "a",
        distinct_id: "p1",
        properties: { $set: { plan: "free", keep: 1, gone: true }, $set_once: { first: "x" } },
      },
      {
        event: "b",
        distinct_id: "p1",
        properties: { $set: { plan: "pro" }, $set_once: { first: "y", second: 2 }, $unset: ["gone"] },
      },
    );
    const person = await personOf("p1");
    expect(person?.properties).toEqual({ plan: "pro", keep: 1, first: "x", second: 2 });
    expect(person?.is_identified).toBe(0);
    await send({ event: "$set", distinct_id: "p1", properties: { $unset: { keep: null } } });
    expect((await personOf("p1"))?.properties).toEqual({ plan: "pro", first: "x", second: 2 });
  });

  it("$identify merges the anonymous person into the identified one and rewrites its events", async () => {
    await send({ event: "view", distinct_id: "anon-1", properties: { $set: { a: "anon", shared: "anon" } } });
    await send({ event: "view", distinct_id: "user-1", properties: { $set: { u: "user", shared: "user" } } });
    const anon = await personOf("anon-1");
    const user = await personOf("user-1");
    await send({
      event: "$identify",
      distinct_id: "user-1",
      properties: { $anon_distinct_id: "anon-1", $set: { email: "u1@x.io" } },
    });
    const merged = await personOf("anon-1");
    expect(merged?.id).toBe(user?.id);
    expect(merged?.distinct_ids.sort()).toEqual(["anon-1", "user-1"]);
    expect(merged?.properties).toEqual({ a: "anon", u: "user", shared: "user", email: "u1@x.io" });
    expect(merged?.is_identified).toBe(1);
    expect(merged!.created_at <= user!.created_at).toBe(true);
    expect(await eventPersons("anon-1")).toEqual([user?.id]);
    const gone = await env.DB.prepare("SELECT id FROM persons WHERE id = ?").bind(anon?.id).first();
    expect(gone).toBeNull();
  });

  it("$identify of a new id adds it to the anonymous person and marks it identified", async () => {
    await send({ event: "view", distinct_id: "anon-2" });
    const anon = await personOf("anon-2");
    await send({ event: "$identify", distinct_id: "user-2", properties: { $anon_distinct_id: "anon-2" } });
    const person = await personOf("user-2");
    expect(person?.id).toBe(anon?.id);
    expect(person?.is_identified).toBe(1);
  });

  it("never merges two identified persons with $identify, but $merge_dangerously does", async () => {
    await send({ event: "$identify", distinct_id: "idA", properties: { $anon_distinct_id: "anonA" } });
    await send({ event: "$identify", distinct_id: "idB", properties: { $anon_distinct_id: "anonB" } });
    await send({ event: "$identify", distinct_id: "idB", properties: { $anon_distinct_id: "idA" } });
    expect((await personOf("idA"))?.id).not.toBe((await personOf("idB"))?.id);
    await send({ event: "$merge_dangerously", distinct_id: "idB", properties: { alias: "idA" } });
    expect((await personOf("idA"))?.id).toBe((await personOf("idB"))?.id);
    expect((await personOf("idB"))?.distinct_ids.sort()).toEqual(["anonA", "anonB", "idA", "idB"]);
  });

  it("$create_alias links the alias; illegal ids never merge", async () => {
    await send({ event: "$create_alias", distinct_id: "main-c", properties: { alias: "alias-c" } });
    expect((await personOf("alias-c"))?.id).toBe((await personOf("main-c"))?.id);
    await send({ event: "$identify", distinct_id: "real", properties: { $anon_distinct_id: "undefined" } });
    expect(await personOf("undefined")).toBeUndefined();
  });

  it("processes a whole batch in event order, including merges inside the batch", async () => {
    await send(
      { event: "view", distinct_id: "anon-3", properties: { $set: { step: 1 } } },
      { event: "$identify", distinct_id: "user-3", properties: { $anon_distinct_id: "anon-3", $set: { step: 2 } } },
      { event: "view", distinct_id: "anon-3", properties: { $set: { step: 3 } } },
    );
    const person = await personOf("user-3");
    expect(person?.distinct_ids.sort()).toEqual(["anon-3", "user-3"]);
    expect(person?.properties).toEqual({ step: 3 });
    expect(await eventPersons("anon-3")).toEqual([person?.id, person?.id]);
  });

  it("$process_person_profile: false stores the event without creating or changing a person", async () => {
    await send({
      event: "x",
      distinct_id: "personless",
      properties: { $process_person_profile: false, $set: { a: 1 } },
    });
    expect(await personOf("personless")).toBeUndefined();
    expect(await eventPersons("personless")).toEqual([null]);
    await send({
      event: "x",
      distinct_id: "p1",
      properties: { $process_person_profile: false, $set: { plan: "changed" } },
    });
    expect((await personOf("p1"))?.properties.plan).toBe("pro");
  });

  it("bumps the version on every change", async () => {
    const before = (await personOf("p1"))!.version;
    await send({ event: "$set", distinct_id: "p1", properties: { $set: { v: Math.random() } } });
    expect((await personOf("p1"))!.version).toBeGreaterThan(before);
  });

  it("$groupidentify creates the group type mapping and the group, merging properties", async () => {
    await send(
      {
        event: "$groupidentify",
        distinct_id: "g",
        properties: { $group_type: "company", $group_key: "acme", $group_set: { name: "Acme", size: 1 } },
      },
      {
        event: "$groupidentify",
        distinct_id: "g",
        properties: { $group_type: "team", $group_key: "t1", $group_set: {} },
      },
    );
    await send({
      event: "$groupidentify",
      distinct_id: "g",
      properties: { $group_type: "company", $group_key: "acme", $group_set: { size: 2 } },
    });
    const mapping = await env.DB.prepare(
      "SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ? ORDER BY group_type_index",
    )
      .bind(project.id)
      .all();
    expect(mapping.results).toEqual([
      { group_type: "company", group_type_index: 0 },
      { group_type: "team", group_type_index: 1 },
    ]);
    const group = await env.DB.prepare("SELECT properties FROM groups WHERE project_id = ? AND group_key = 'acme'")
      .bind(project.id)
      .first<{ properties: string }>();
    expect(JSON.parse(group!.properties)).toEqual({ name: "Acme", size: 2 });
    for (const type of ["t3", "t4", "t5", "t6"]) {
      await send({ event: "$groupidentify", distinct_id: "g", properties: { $group_type: type, $group_key: "k" } });
    }
    const count = await env.DB.prepare("SELECT count(*) AS n FROM group_type_mappings WHERE project_id = ?")
      .bind(project.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(5);
  });
});

describe("person processing edge cases", () => {
  it("folds a top-level $set / $set_once (older SDKs) into the properties", async () => {
    await send({
      event: "$identify",
      distinct_id: "top",
      $set: { a: 1 },
      $set_once: { b: 2 },
      properties: { $set: { c: 3 } },
    });
    expect((await personOf("top"))?.properties).toEqual({ a: 1, b: 2, c: 3 });
  });

  it("recreates a person for an id whose derived uuid is still held by a split-off person's origin", async () => {
    await send({ event: "v", distinct_id: "orig-a" });
    await send({ event: "$identify", distinct_id: "orig-u", properties: { $anon_distinct_id: "orig-a" } });
    const held = await personOf("orig-u");
    // Move orig-a off the person that was created for it, then delete orig-a's new person.
    await env.DB.prepare(
      "UPDATE person_distinct_ids SET person_id = (SELECT id FROM persons WHERE uuid = ?) WHERE distinct_id = 'orig-a'",
    )
      .bind(held!.uuid)
      .run();
    await env.DB.prepare("INSERT INTO persons (project_id, uuid, properties) VALUES (?, ?, '{}')")
      .bind(project.id, crypto.randomUUID())
      .run();
    await env.DB.prepare(
      "UPDATE person_distinct_ids SET person_id = last_insert_rowid() WHERE distinct_id = 'orig-a'",
    ).run();
    await env.DB.prepare("DELETE FROM person_distinct_ids WHERE distinct_id = 'orig-a'").run();
    await send({ event: "v", distinct_id: "orig-a" });
    const again = await personOf("orig-a");
    expect(again).toBeDefined();
    expect(again?.id).not.toBe(held?.id);
  });
});

describe("merges in bulk", () => {
  it("collapses chains of merges within one batch onto the final person", async () => {
    await send(
      { event: "v", distinct_id: "ch1" },
      { event: "v", distinct_id: "ch2" },
      { event: "v", distinct_id: "ch3" },
    );
    const third = await personOf("ch3");
    await send(
      { event: "$merge_dangerously", distinct_id: "ch2", properties: { alias: "ch1" } },
      { event: "$merge_dangerously", distinct_id: "ch3", properties: { alias: "ch2" } },
    );
    const merged = await personOf("ch1");
    expect(merged?.id).toBe(third?.id);
    expect(merged?.distinct_ids.sort()).toEqual(["ch1", "ch2", "ch3"]);
    for (const id of ["ch1", "ch2", "ch3"]) expect(new Set(await eventPersons(id))).toEqual(new Set([third?.id]));
  });

  it("applies hundreds of merges in one request", async () => {
    const n = 300;
    await send(
      ...Array.from({ length: n }, (_, i) => ({
        event: "v",
        distinct_id: `many-anon-${i}`,
        properties: { $set: { i } },
      })),
    );
    await send(...Array.from({ length: n }, (_, i) => ({ event: "v", distinct_id: `many-user-${i}` })));
    await send(
      ...Array.from({ length: n }, (_, i) => ({
        event: "$identify",
        distinct_id: `many-user-${i}`,
        properties: { $anon_distinct_id: `many-anon-${i}` },
      })),
    );
    const sample = await personOf("many-anon-123");
    expect(sample?.distinct_ids.sort()).toEqual(["many-anon-123", "many-user-123"]);
    expect(sample?.properties).toEqual({ i: 123 });
    const persons = await env.DB.prepare(
      "SELECT count(DISTINCT person_id) AS n FROM person_distinct_ids WHERE project_id = ? AND distinct_id LIKE 'many-%'",
    )
      .bind(project.id)
      .first<{ n: number }>();
    expect(persons?.n).toBe(n);
  });
});
