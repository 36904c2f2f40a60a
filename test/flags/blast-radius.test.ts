import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";

let pid: number;
const radius = (body: unknown, key?: string) =>
  call(`/api/projects/${pid}/feature_flags/user_blast_radius`, { method: "POST", body, key });

beforeAll(async () => {
  pid = (await createProject()).id;
  for (const [i, plan] of ["pro", "free", "pro", "enterprise"].entries()) {
    await env.DB.prepare("INSERT INTO persons (project_id, uuid, properties) VALUES (?, ?, ?)")
      .bind(pid, crypto.randomUUID(), JSON.stringify({ plan, seats: i * 10 }))
      .run();
  }
  for (const [key, tier] of [
    ["acme", "gold"],
    ["globex", "silver"],
    ["initech", "gold"],
  ]) {
    await env.DB.prepare("INSERT INTO groups (project_id, group_type_index, group_key, properties) VALUES (?, 0, ?, ?)")
      .bind(pid, key, JSON.stringify({ tier }))
      .run();
  }
});

describe("POST user_blast_radius", () => {
  it("counts persons matching a condition's properties, of all persons", async () => {
    const res = await radius({
      condition: { properties: [{ key: "plan", type: "person", value: "pro" }], rollout_percentage: 50 },
    });
    expect(res.json).toEqual({ users_affected: 2, total_users: 4 });
    expect(
      (await radius({ condition: { properties: [{ key: "seats", type: "person", operator: "gt", value: 5 }] } })).json,
    ).toEqual({ users_affected: 3, total_users: 4 });
    expect((await radius({ condition: {} })).json).toEqual({ users_affected: 4, total_users: 4 });
  });

  it("counts persons in a cohort", async () => {
    const cohort = await env.DB.prepare(
      "INSERT INTO cohorts (project_id, name, filters) VALUES (?, 'paying', ?) RETURNING id",
    )
      .bind(
        pid,
        JSON.stringify({
          properties: { type: "OR", values: [{ key: "plan", type: "person", value: ["pro", "enterprise"] }] },
        }),
      )
      .first<{ id: number }>();
    const res = await radius({ condition: { properties: [{ key: "id", type: "cohort", value: cohort!.id }] } });
    expect(res.json).toEqual({ users_affected: 3, total_users: 4 });
  });

  it("counts groups of a type with group_type_index", async () => {
    const res = await radius({
      condition: { properties: [{ key: "tier", type: "group", group_type_index: 0, value: "gold" }] },
      group_type_index: 0,
    });
    expect(res.json).toEqual({ users_affected: 2, total_users: 3 });
  });

  it("needs a condition and feature_flag:read", async () => {
    expect(envelope(await radius({}))).toMatchObject({
      detail: "Missing condition for which to get blast radius",
      attr: "condition",
    });
    expect((await radius({ condition: {} }, await createKey(["person:read"]))).status).toBe(403);
  });
});
