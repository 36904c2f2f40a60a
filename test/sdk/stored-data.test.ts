import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, createFlag as createProjectFlag } from "../helpers";

/** /flags with data that lives in D1: cohorts (static and dynamic), groups, continuity overrides. */
let project: { id: number; api_token: string };
const evaluate = async (body: Record<string, unknown>) =>
  (await call("/flags/?v=2", { method: "POST", key: null, body: { token: project.api_token, ...body } })).json.flags;
const createFlag = (body: unknown) => createProjectFlag(project.id, body);

async function insertPerson(distinctId: string, properties: Record<string, unknown>) {
  const person = await env.DB.prepare(
    "INSERT INTO persons (project_id, uuid, properties) VALUES (?, ?, ?) RETURNING id",
  )
    .bind(project.id, crypto.randomUUID(), JSON.stringify(properties))
    .first<{ id: number }>();
  await env.DB.prepare("INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, ?)")
    .bind(project.id, distinctId, person!.id)
    .run();
  return person!.id;
}

async function insertCohort(name: string, properties: unknown, isStatic = false) {
  const row = await env.DB.prepare(
    "INSERT INTO cohorts (project_id, name, filters, is_static) VALUES (?, ?, ?, ?) RETURNING id",
  )
    .bind(project.id, name, JSON.stringify(isStatic ? {} : { properties }), isStatic ? 1 : 0)
    .first<{ id: number }>();
  return row!.id;
}

let staticCohort: number;
let dynamicCohort: number;

beforeAll(async () => {
  project = await createProject();
  const alice = await insertPerson("alice", { plan: "pro", $browser: "Chrome" });
  await insertPerson("bob", { plan: "free" });
  staticCohort = await insertCohort("hand-picked", null, true);
  await env.DB.prepare("INSERT INTO cohort_people (cohort_id, person_id) VALUES (?, ?)")
    .bind(staticCohort, alice)
    .run();
  dynamicCohort = await insertCohort("not pros", {
    type: "AND",
    values: [{ key: "plan", type: "person", value: "pro", negation: true }],
  });
  await env.DB.prepare(
    "INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES (?, 'company', 0)",
  )
    .bind(project.id)
    .run();
  await env.DB.prepare(
    "INSERT INTO groups (project_id, group_type_index, group_key, properties) VALUES (?, 0, 'acme', ?)",
  )
    .bind(project.id, JSON.stringify({ tier: "gold" }))
    .run();

  await createFlag({
    key: "static-members",
    filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: staticCohort }] }] },
  });
  await createFlag({
    key: "not-pros",
    filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: dynamicCohort }] }] },
  });
  await createFlag({
    key: "outside-not-pros",
    filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: dynamicCohort, operator: "not_in" }] }] },
  });
  await createFlag({
    key: "gold",
    filters: {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: "tier", type: "group", group_type_index: 0, value: "gold" }] }],
    },
  });
  await createFlag({
    key: "initial-chrome",
    filters: { groups: [{ properties: [{ key: "$initial_browser", type: "person", value: "Chrome" }] }] },
  });
  await createFlag({
    key: "sticky",
    ensure_experience_continuity: true,
    filters: { groups: [{ rollout_percentage: 50 }] },
  });
});

describe("/flags with stored data", () => {
  it("static and dynamic cohorts, negated and not_in", async () => {
    const alice = await evaluate({ distinct_id: "alice" });
    expect([alice["static-members"].enabled, alice["not-pros"].enabled, alice["outside-not-pros"].enabled]).toEqual([
      true,
      false,
      true,
    ]);
    const bob = await evaluate({ distinct_id: "bob" });
    expect([bob["static-members"].enabled, bob["not-pros"].enabled, bob["outside-not-pros"].enabled]).toEqual([
      false,
      true,
      false,
    ]);
  });

  it("backfills $initial_* from stored properties", async () => {
    expect((await evaluate({ distinct_id: "alice" }))["initial-chrome"].enabled).toBe(true);
    expect((await evaluate({ distinct_id: "bob" }))["initial-chrome"].enabled).toBe(false);
  });

  it("without cohorts, a flag on a person-property cohort is expanded into conditions", async () => {
    const key = await createKey(["feature_flag:read"]);
    const plainCohort = await insertCohort("pro or enterprise", {
      type: "OR",
      values: [
        {
          type: "AND",
          values: [
            { key: "plan", type: "person", value: "pro" },
            { key: "seats", type: "person", operator: "gt", value: 5 },
          ],
        },
        { type: "AND", values: [{ key: "plan", type: "person", value: "enterprise" }] },
      ],
    });
    await createFlag({
      key: "expanded",
      filters: {
        groups: [{ properties: [{ key: "id", type: "cohort", value: plainCohort }], rollout_percentage: 30 }],
      },
    });
    const flags = (await call(`/flags/definitions?token=${project.api_token}&send_cohorts=false`, { key })).json.flags;
    expect(flags.find((f: any) => f.key === "expanded").filters.groups).toEqual([
      {
        properties: [
          { key: "plan", type: "person", value: "pro" },
          { key: "seats", type: "person", operator: "gt", value: 5 },
        ],
        rollout_percentage: 30,
      },
      { properties: [{ key: "plan", type: "person", value: "enterprise" }], rollout_percentage: 30 },
    ]);
    // A negated cohort leaf prevents the expansion.
    expect(flags.find((f: any) => f.key === "not-pros").filters.groups[0].properties[0].type).toBe("cohort");
    const withCohorts = (await call(`/flags/definitions?token=${project.api_token}&send_cohorts`, { key })).json.flags;
    expect(withCohorts.find((f: any) => f.key === "expanded").filters.groups[0].properties[0].type).toBe("cohort");
  });

  it("the definitions payload carries dynamic cohorts only", async () => {
    const key = await createKey(["feature_flag:read"]);
    const payload = (await call(`/flags/definitions?token=${project.api_token}&send_cohorts`, { key })).json;
    expect(Object.keys(payload.cohorts)).toContain(String(dynamicCohort));
    expect(Object.keys(payload.cohorts)).not.toContain(String(staticCohort));
    expect(payload.group_type_mapping).toEqual({ "0": "company" });
    expect(
      (await call(`/flags/definitions?token=${project.api_token}&send_cohorts=false`, { key })).json.cohorts,
    ).toEqual({});
  });

  it("group properties come from D1, overlaid by the request", async () => {
    expect((await evaluate({ distinct_id: "x", groups: { company: "acme" } })).gold.enabled).toBe(true);
    expect(
      (
        await evaluate({
          distinct_id: "x",
          groups: { company: "acme" },
          group_properties: { company: { tier: "tin" } },
        })
      ).gold.enabled,
    ).toBe(false);
    expect((await evaluate({ distinct_id: "x" })).gold.reason.code).toBe("no_group_type");
  });

  it("experience continuity keeps the anonymous bucket after identify", async () => {
    // Find anonymous ids on both sides of the 50% rollout, then identify each as a stored person.
    const byAnon = new Map<string, boolean>();
    for (let i = 0; byAnon.size < 6 && i < 40; i++)
      byAnon.set(`anon-${i}`, (await evaluate({ distinct_id: `anon-${i}` })).sticky.enabled);
    let n = 0;
    for (const [anon, before] of byAnon) {
      const who = `identified-${n++}`;
      await insertPerson(who, {});
      const after = (await evaluate({ distinct_id: who, $anon_distinct_id: anon })).sticky.enabled;
      expect(after).toBe(before);
      // Later calls without the anonymous id keep the stored override.
      expect((await evaluate({ distinct_id: who })).sticky.enabled).toBe(before);
    }
    expect(new Set(byAnon.values()).size).toBe(2);
  });

  it("stores continuity overrides for many flags at once (one bound value, not four per flag)", async () => {
    // D1 binds at most 100 values per statement: 30 flags × 4 columns used to exceed it.
    const own = await createProject();
    const keys = Array.from({ length: 30 }, (_, i) => `continuity-${i}`);
    for (const key of keys) {
      await createProjectFlag(own.id, {
        key,
        ensure_experience_continuity: true,
        filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
      });
    }
    const person = await env.DB.prepare(
      "INSERT INTO persons (project_id, uuid, properties) VALUES (?, ?, '{}') RETURNING id",
    )
      .bind(own.id, crypto.randomUUID())
      .first<{ id: number }>();
    await env.DB.prepare("INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, 'many', ?)")
      .bind(own.id, person!.id)
      .run();
    const res = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      body: { token: own.api_token, distinct_id: "many", $anon_distinct_id: "anon-many" },
    });
    expect(res.status).toBe(200);
    expect(Object.values(res.json.flags).filter((f) => (f as { failed?: boolean }).failed)).toEqual([]);
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM flag_hash_key_overrides WHERE person_id = ?")
      .bind(person!.id)
      .first<{ n: number }>();
    expect(stored!.n).toBe(30);
  });
});
