import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";
import { capture, personByDistinctId, personsPath } from "../persons/helpers";

let project: { id: number; api_token: string };
const path = (rest = "") => `/api/projects/${project.id}/cohorts/${rest}`;
const memberNames = async (id: number) =>
  (await call(path(`${id}/persons/`))).json.results.map((p: any) => p.distinct_ids[0]).sort();

beforeAll(async () => {
  project = await createProject();
  await capture(project.api_token, [
    { event: "x", distinct_id: "ann", properties: { $set: { plan: "pro", country: "FR" } } },
    { event: "x", distinct_id: "ben", properties: { $set: { plan: "free", country: "FR" } } },
    { event: "x", distinct_id: "cat", properties: { $set: { plan: "pro", country: "DE" } } },
    { event: "x", distinct_id: "dan", properties: { $set: { plan: "free", country: "US" } } },
  ]);
});

describe("cohorts", () => {
  let pro: number;
  let staticId: number;

  it("creates a dynamic cohort whose members follow person properties", async () => {
    const res = await call(path(), {
      method: "POST",
      body: {
        name: "Pro users",
        filters: {
          properties: {
            type: "OR",
            values: [{ type: "AND", values: [{ key: "plan", value: "pro", type: "person" }] }],
          },
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ name: "Pro users", is_static: false, count: 2, deleted: false });
    pro = res.json.id;
    expect(await memberNames(pro)).toEqual(["ann", "cat"]);
    await capture(project.api_token, [{ event: "$set", distinct_id: "dan", properties: { $set: { plan: "pro" } } }]);
    expect(await memberNames(pro)).toEqual(["ann", "cat", "dan"]);
    expect((await call(path(`${pro}/`))).json.count).toBe(3);
  });

  it("lists cohorts without counting members (count null); retrieve counts one cohort", async () => {
    const list = await call(path());
    expect(list.status).toBe(200);
    const item = list.json.results.find((c: { id: number }) => c.id === pro);
    expect(item).toMatchObject({ name: "Pro users", count: null });
    expect((await call(path(`${pro}/`))).json.count).toBe(3);
  });

  it("creates a static cohort from person ids and distinct ids, and adds members with PATCH", async () => {
    const ann = (await personByDistinctId(project.id, "ann"))!;
    const res = await call(path(), {
      method: "POST",
      body: { name: "Hand picked", is_static: true, person_ids: [ann.id], distinct_ids: ["ben", "nobody"] },
    });
    expect(res.status).toBe(201);
    staticId = res.json.id;
    expect(await memberNames(staticId)).toEqual(["ann", "ben"]);
    const cat = (await personByDistinctId(project.id, "cat"))!;
    const patch = await call(path(`${staticId}/`), { method: "PATCH", body: { person_ids: [cat.uuid] } });
    expect(patch.status).toBe(200);
    expect(patch.json.count).toBe(3);
  });

  it("nests cohorts and supports legacy groups and negation", async () => {
    const fr = await call(path(), {
      method: "POST",
      body: { name: "FR", groups: [{ properties: [{ key: "country", value: "FR", type: "person" }] }] },
    });
    expect(fr.status).toBe(201);
    const nested = await call(path(), {
      method: "POST",
      body: {
        name: "FR pros",
        filters: {
          properties: {
            type: "AND",
            values: [
              { type: "cohort", key: "id", value: fr.json.id },
              { type: "cohort", key: "id", value: pro },
            ],
          },
        },
      },
    });
    expect(await memberNames(nested.json.id)).toEqual(["ann"]);
    const notStatic = await call(path(), {
      method: "POST",
      body: {
        name: "Not picked",
        filters: {
          properties: { type: "AND", values: [{ type: "cohort", key: "id", value: staticId, negation: true }] },
        },
      },
    });
    expect(await memberNames(notStatic.json.id)).toEqual(["dan"]);
    // The persons list takes the same cohort filters.
    const list = await call(
      `${personsPath(project.id)}?properties=${encodeURIComponent(JSON.stringify([{ type: "cohort", key: "id", value: nested.json.id }]))}`,
    );
    expect(list.json.results.map((p: any) => p.distinct_ids[0])).toEqual(["ann"]);
  });

  it("refuses invalid definitions and cycles", async () => {
    expect((await call(path(), { method: "POST", body: { name: "empty" } })).status).toBe(400);
    expect(
      (
        await call(path(), {
          method: "POST",
          body: { name: "bad", filters: { properties: [{ key: "a", operator: "nope", value: 1 }] } },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(path(), {
          method: "POST",
          body: { name: "dyn", person_ids: [1], filters: { properties: [{ key: "a", value: 1 }] } },
        })
      ).status,
    ).toBe(400);
    const a = await call(path(), {
      method: "POST",
      body: { name: "A", filters: { properties: [{ key: "plan", value: "pro" }] } },
    });
    const b = await call(path(), {
      method: "POST",
      body: { name: "B", filters: { properties: [{ type: "cohort", key: "id", value: a.json.id }] } },
    });
    const cycle = await call(path(`${a.json.id}/`), {
      method: "PATCH",
      body: { filters: { properties: [{ type: "cohort", key: "id", value: b.json.id }] } },
    });
    expect(cycle.status).toBe(400);
    expect(envelope(cycle).detail).toContain("refers to itself");
  });

  it("lists, updates and soft-deletes with activity entries", async () => {
    const list = await call(path());
    expect(list.status).toBe(200);
    expect(list.json.count).toBeGreaterThanOrEqual(5);
    const renamed = await call(path(`${pro}/`), { method: "PATCH", body: { name: "Pro" } });
    expect(renamed.json.name).toBe("Pro");
    expect((await call(path(`${pro}/`), { method: "DELETE" })).status).toBe(204);
    expect((await call(path(`${pro}/`))).status).toBe(404);
    expect((await call(path(`${pro}/`), { method: "DELETE" })).status).toBe(404);
    const log = await env.DB.prepare(
      "SELECT activity FROM activity_log WHERE project_id = ? AND scope = 'Cohort' AND item_id = ? ORDER BY created_at",
    )
      .bind(project.id, String(pro))
      .all();
    expect(log.results.map((r: any) => r.activity)).toEqual(["created", "updated", "deleted"]);
  });

  it("answers the cohorts of a person (person:read and cohort:read)", async () => {
    const ann = (await personByDistinctId(project.id, "ann"))!;
    const res = await call(`${personsPath(project.id)}cohorts/?person_id=${ann.id}`);
    expect(res.status).toBe(200);
    const names = res.json.results.map((c: any) => c.name);
    expect(names).toContain("Hand picked");
    expect(names).toContain("FR");
    expect(names).not.toContain("Pro");
    // Like the cohort list, this view does not count members (one scan of the project per cohort).
    expect(res.json.results.every((c: { count: unknown }) => c.count === null)).toBe(true);
    expect((await call(`${personsPath(project.id)}cohorts/?person_id=${ann.uuid}`)).json.results.length).toBe(
      names.length,
    );
    expect((await call(`${personsPath(project.id)}cohorts/?person_id=999999`)).status).toBe(404);
    expect((await call(`${personsPath(project.id)}cohorts/`)).status).toBe(400);
    const personOnly = await createKey(["person:read"]);
    const denied = await call(`${personsPath(project.id)}cohorts/?person_id=${ann.id}`, { key: personOnly });
    expect(envelope(denied).detail).toBe("API key missing required scope 'cohort:read'");
    const both = await createKey(["person:read", "cohort:read"]);
    expect((await call(`${personsPath(project.id)}cohorts/?person_id=${ann.id}`, { key: both })).status).toBe(200);
  });

  it("needs cohort scopes", async () => {
    const reader = await createKey(["cohort:read"]);
    expect((await call(path(), { key: reader })).status).toBe(200);
    const denied = await call(path(), { method: "POST", key: reader, body: { name: "x", is_static: true } });
    expect(envelope(denied).detail).toBe("API key missing required scope 'cohort:write'");
  });
});
