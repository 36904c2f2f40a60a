import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, envelope } from "../helpers";

let project: number;
const base = () => `/api/environments/${project}/endpoints`;
const hogql = (query: string) => ({ kind: "HogQLQuery", query });

beforeAll(async () => {
  project = (await createProject()).id;
});

async function versionsOf(name: string) {
  const res = await call(`${base()}/${name}/versions`);
  expect(res.status).toBe(200);
  return (Array.isArray(res.json) ? res.json : res.json.results) as { version: number; query: { query: string } }[];
}

describe("concurrent updates", () => {
  it("parallel query changes: each success makes exactly one version, the others are 409, never 500", async () => {
    expect(
      (await call(`${base()}/`, { method: "POST", body: { name: "raced", query: hogql("select 0 as n") } })).status,
    ).toBe(201);
    const queries = [1, 2, 3, 4].map((n) => `select ${n} as n`);
    const responses = await Promise.all(
      queries.map((q) => call(`${base()}/raced`, { method: "PATCH", body: { query: hogql(q) } })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const ok = responses.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of responses.filter((r) => r.status === 409)) {
      expect(envelope(r)).toMatchObject({ code: "conflict" });
      expect(envelope(r).detail).toMatch(/changed by another request/);
    }
    const versions = await versionsOf("raced");
    expect(versions.length).toBe(1 + ok.length);
    // every successful response names its own new version, holding the query it sent
    const created = ok.map((r) => r.json.current_version as number).sort();
    expect(new Set(created).size).toBe(ok.length);
    for (const r of ok) {
      const v = versions.find((x) => x.version === r.json.current_version);
      expect(v?.query.query).toBe(r.json.query.query);
    }
    // the endpoint points at the newest version, and no version number was skipped
    const endpoint = (await call(`${base()}/raced`)).json;
    expect(endpoint.current_version).toBe(1 + ok.length);
    expect(versions.map((v) => v.version).sort()).toEqual(Array.from({ length: 1 + ok.length }, (_, i) => i + 1));
  });

  it("metadata updates racing a query change never point the endpoint back at an older version", async () => {
    expect(
      (await call(`${base()}/`, { method: "POST", body: { name: "stale", query: hogql("select 1 as n") } })).status,
    ).toBe(201);
    const responses = await Promise.all([
      call(`${base()}/stale`, { method: "PATCH", body: { query: hogql("select 2 as n") } }),
      call(`${base()}/stale`, { method: "PATCH", body: { description: "described" } }),
      call(`${base()}/stale`, { method: "PATCH", body: { cache_age_seconds: 600 } }),
    ]);
    expect(responses.map((r) => r.status).every((s) => s === 200 || s === 409)).toBe(true);
    const row = await env.DB.prepare(
      "SELECT current_version AS v FROM endpoints WHERE project_id = ? AND name = 'stale'",
    )
      .bind(project)
      .first<{ v: number }>();
    const versions = await versionsOf("stale");
    expect(versions.length).toBe(row!.v);
    // the query change is never lost: the endpoint serves its query whether it won or raced
    const stored = (await call(`${base()}/stale`)).json;
    if (responses[0].status === 200) expect(stored.query.query).toBe("select 2 as n");
  });
});
