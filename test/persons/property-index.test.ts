import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { capture, everyone, personByDistinctId, personsPath } from "./helpers";

/**
 * The persons list's property filters read an index (`person_property_values`, migration 0008) and
 * each project's number of persons (`person_counts`), both kept by triggers. After each kind of
 * write, the index holds exactly what its definition derives from the persons' JSON, the count is
 * the number of persons, and every filter answers (its persons, their order, `count`, paging) what
 * the filter means, computed here from the persons API itself.
 */

type Listed = { uuid: string; properties: Record<string, unknown> };
type Filter = { key: string; value?: unknown; operator?: string; type: "person" };

const LONG = `https://example.com/${"x".repeat(120)}`;

/** A property's value as the filters compare it: booleans as true/false, numbers as written, strings as they are. */
const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

const FILTERS: Filter[] = [
  { key: "plan", value: "pro", type: "person" },
  { key: "plan", value: ["pro", "enterprise"], operator: "exact", type: "person" },
  { key: "plan", value: ["free", "nobody"], operator: "in", type: "person" },
  { key: "plan", operator: "is_set", value: "is_set", type: "person" },
  { key: "beta", value: true, type: "person" },
  { key: "beta", value: "false", type: "person" },
  { key: "seats", value: 10, type: "person" },
  { key: "seats", value: "2.5", type: "person" },
  { key: "a.b", value: "dotted", type: "person" },
  { key: "url", value: LONG, type: "person" },
  { key: "url", value: LONG.slice(0, 100), type: "person" },
  { key: "gone", operator: "is_set", value: "is_set", type: "person" },
];

/** What a filter selects, by its meaning, from the listed persons (an AND of `filters`). */
function meets(p: Listed, filters: Filter[]) {
  return filters.every((f) => {
    const v = p.properties[f.key];
    if (f.operator === "is_set") return v !== undefined && v !== null;
    const wanted = (Array.isArray(f.value) ? f.value : [f.value]).map(asText);
    return v !== undefined && v !== null && wanted.includes(asText(v));
  });
}

/** The list's answer to filters, one page of all, and again page by page of two. */
async function listed(projectId: number, filters: Filter[]) {
  const properties = encodeURIComponent(JSON.stringify(filters));
  const all = await call(`${personsPath(projectId)}?limit=1000&properties=${properties}`);
  expect(all.status, all.text).toBe(200);
  const paged: string[] = [];
  for (let url: string | null = `${personsPath(projectId)}?limit=2&properties=${properties}`; url;) {
    const res = await call(url.replace(/^https?:\/\/[^/]+/, ""));
    expect(res.status).toBe(200);
    expect(res.json.count).toBe(all.json.count);
    paged.push(...res.json.results.map((p: Listed) => p.uuid));
    url = res.json.next;
  }
  return { uuids: all.json.results.map((p: Listed) => p.uuid) as string[], count: all.json.count as number, paged };
}

/** The index equals its definition over the project's persons, the count their number, and every filter its meaning. */
async function expectConsistent(projectId: number) {
  const drift = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM (
         SELECT person_id, key, value FROM person_property_values WHERE project_id = ?1
         EXCEPT SELECT person_id, key, value FROM person_property_text WHERE project_id = ?1))
     + (SELECT count(*) FROM (
         SELECT person_id, key, value FROM person_property_text WHERE project_id = ?1
         EXCEPT SELECT person_id, key, value FROM person_property_values WHERE project_id = ?1)) AS n`,
  )
    .bind(projectId)
    .first<{ n: number }>();
  expect(drift?.n, "index rows differing from their definition").toBe(0);
  const counts = await env.DB.prepare(
    "SELECT (SELECT persons FROM person_counts WHERE project_id = ?1) AS kept, (SELECT count(*) FROM persons WHERE project_id = ?1) AS actual",
  )
    .bind(projectId)
    .first<{ kept: number | null; actual: number }>();
  expect(counts!.kept ?? 0).toBe(counts!.actual);

  const persons = await everyone(projectId);
  const cases = [...FILTERS.map((f) => [f]), [FILTERS[3], FILTERS[4]], [FILTERS[1], FILTERS[6], FILTERS[3]]];
  for (const filters of cases) {
    const want = persons.filter((p) => meets(p, filters)).map((p) => p.uuid);
    const got = await listed(projectId, filters);
    expect(got.uuids, JSON.stringify(filters)).toEqual(want);
    expect(got.count, JSON.stringify(filters)).toBe(want.length);
    expect(got.paged, JSON.stringify(filters)).toEqual(want);
  }
  const unfiltered = await call(`${personsPath(projectId)}?limit=1`);
  expect(unfiltered.json.count).toBe(persons.length);
}

describe("persons property filters through their index", () => {
  it("answers each filter exactly after each kind of write", async () => {
    const { id: projectId, api_token: token } = await createProject();
    await capture(token, [
      { event: "signed up", distinct_id: "u1", properties: { $set: { plan: "pro", beta: true, seats: 10 } } },
      { event: "signed up", distinct_id: "u2", properties: { $set: { plan: "free", beta: false, seats: 2.5 } } },
      {
        event: "signed up",
        distinct_id: "u3",
        properties: { $set: { plan: "enterprise", "a.b": "dotted", url: LONG, code: "a\u0000b" } },
      },
      { event: "signed up", distinct_id: "u4", properties: { $set: { plan: null, gone: "soon" } } },
      { event: "viewed", distinct_id: "anon-1", properties: { $set_once: { plan: "pro", seats: "10" } } },
      { event: "viewed", distinct_id: "anon-2" },
    ]);
    await expectConsistent(projectId);

    // An $identify merges anon-1 into u2 (u2's values win); an $unset; a changed value; a new key.
    await capture(token, [
      { event: "$identify", distinct_id: "u2", properties: { $anon_distinct_id: "anon-1" } },
      { event: "$set", distinct_id: "u4", properties: { $unset: ["gone"], $set: { beta: "false" } } },
      { event: "$set", distinct_id: "u1", properties: { $set: { plan: "enterprise", url: LONG.slice(0, 100) } } },
    ]);
    await expectConsistent(projectId);

    // Properties set through the API; a split; a deletion.
    const u3 = (await personByDistinctId(projectId, "u3"))!;
    const patched = await call(personsPath(projectId, `${u3.id}/`), {
      method: "PATCH",
      body: { properties: { plan: "pro", seats: 10 } },
    });
    expect(patched.status, patched.text).toBeLessThan(300);
    const u2 = (await personByDistinctId(projectId, "u2"))!;
    const split = await call(personsPath(projectId, `${u2.id}/split/`), {
      method: "POST",
      body: { main_distinct_id: "u2" },
    });
    expect(split.status, split.text).toBe(200);
    await expectConsistent(projectId);

    const u1 = (await personByDistinctId(projectId, "u1"))!;
    expect((await call(personsPath(projectId, `${u1.id}/`), { method: "DELETE" })).status).toBe(204);
    await expectConsistent(projectId);
  });

  it("never answers with another project's persons", async () => {
    const mine = await createProject();
    const theirs = await createProject();
    await capture(theirs.api_token, [{ event: "x", distinct_id: "t", properties: { $set: { plan: "pro" } } }]);
    await capture(mine.api_token, [{ event: "x", distinct_id: "m", properties: { $set: { plan: "free" } } }]);
    expect(await listed(mine.id, [FILTERS[0]])).toEqual({ uuids: [], count: 0, paged: [] });
    expect((await listed(theirs.id, [FILTERS[0]])).count).toBe(1);
  });
});
