import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, envelope } from "../helpers";

/** Inserts projects straight into D1 (creating 150 through the API would be slow); returns their ids. */
async function insertProjects(n: number): Promise<number[]> {
  const rows = Array.from({ length: n }, (_, i) => ({ name: `bulk ${i}`, token: `phc_bulk_${crypto.randomUUID()}` }));
  const res = await env.DB.prepare(
    `INSERT INTO projects (name, api_token) SELECT j.value ->> '$.name', j.value ->> '$.token' FROM json_each(?1) j RETURNING id`,
  )
    .bind(JSON.stringify(rows))
    .all<{ id: number }>();
  return res.results.map((r) => r.id).sort((a, b) => a - b);
}

describe("keys scoped to many projects", () => {
  it("creates a key scoped to 150 projects and lists exactly those, paged", async () => {
    const ids = await insertProjects(150);
    const created = await call("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "many", scopes: ["*"], scoped_teams: ids },
    });
    expect(created.status).toBe(201);
    expect(created.json.scoped_teams).toHaveLength(150);
    const key = created.json.value as string;

    const seen: number[] = [];
    let next: string | null = "/api/projects/?limit=100";
    while (next) {
      const res = await call(next.replace(/^https?:\/\/[^/]+/, ""), { key });
      expect(res.status).toBe(200);
      expect(res.json.count).toBe(150);
      seen.push(...res.json.results.map((p: { id: number }) => p.id));
      next = res.json.next;
    }
    expect(seen).toEqual(ids);
  });

  it("names the unknown ids among 150 and creates nothing", async () => {
    const ids = await insertProjects(140);
    const unknown = Array.from({ length: 10 }, (_, i) => 9_000_000 + i);
    const res = await call("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "bad", scopes: ["*"], scoped_teams: [...ids, ...unknown] },
    });
    expect(res.status).toBe(400);
    const err = envelope(res);
    expect(err.attr).toBe("scoped_teams");
    expect(err.detail).toContain(unknown.join(", "));
    const keys = await call("/api/personal_api_keys/?limit=100");
    expect(keys.json.results.some((k: { label: string }) => k.label === "bad")).toBe(false);
  });

  it("refuses more than 1000 scoped projects with a validation error", async () => {
    const ids = Array.from({ length: 1001 }, (_, i) => i + 1);
    const res = await call("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "too many", scopes: ["*"], scoped_teams: ids },
    });
    expect(res.status).toBe(400);
    const err = envelope(res);
    expect(err.attr).toBe("scoped_teams");
    expect(err.detail).toMatch(/1000/);
  });
});
