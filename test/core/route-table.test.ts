import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { call, createKey, createProject, envelope } from "../helpers";

/**
 * Walks every operation of the published OpenAPI document (which is generated from the route
 * declarations) and proves that each personal-key route refuses a missing key (401) and a key
 * without its scope (403 naming it). A new route that forgets its auth fails here.
 */
type Operation = { method: string; path: string; auth: string; scopes: string[] };

const operations: Operation[] = [];
let projectId: number;

beforeAll(async () => {
  const doc = (await call("/api/schema/", { key: null })).json;
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        auth: op["x-auth"],
        scopes: op["x-required-scopes"] ?? [],
      });
    }
  }
  projectId = (await createProject()).id;
});

const concretePath = (path: string) => path.replace("{project_id}", String(projectId)).replace(/\{[^}]+\}/g, "1");

describe("route table", () => {
  it("declares how every operation is authenticated", () => {
    expect(operations.length).toBeGreaterThan(5);
    for (const op of operations)
      expect(["personal", "root", "project_token", "public"], `${op.method} ${op.path}`).toContain(op.auth);
  });

  it("documents every route the app serves", () => {
    const documented = new Set(
      operations.map((op) => `${op.method} ${op.path.replace("/api/environments/", "/api/projects/")}`),
    );
    const served = createApp()
      .routes.filter((r) => r.method !== "ALL")
      .map(
        (r) =>
          `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}").replace("/api/environments/", "/api/projects/")}`,
      );
    for (const route of new Set(served)) expect(documented, route).toContain(route);
  });

  it("refuses every personal-key or root route without a key (401)", async () => {
    for (const op of operations.filter((o) => o.auth === "personal" || o.auth === "root")) {
      const res = await exports.default.fetch(
        new Request(`http://edgehog.test${concretePath(op.path)}`, { method: op.method }),
      );
      const body: any = await res.json();
      expect(res.status, `${op.method} ${op.path}`).toBe(401);
      expect(body.code).toBe("not_authenticated");
    }
  });

  it("refuses every scoped route to a key without its scope (403 naming the scope)", async () => {
    const scoped = operations.filter((o) => o.auth === "personal" && o.scopes.length > 0);
    expect(scoped.length).toBeGreaterThan(0);
    for (const op of scoped) {
      // A key holding every scope except the areas this route needs.
      const areas = new Set(op.scopes.map((s) => s.split(":")[0]));
      const others = ["person", "cohort", "activity_log", "feature_flag", "endpoint", "project"]
        .filter((a) => !areas.has(a))
        .map((a) => `${a}:write`);
      const key = await createKey(others);
      const res = await call(concretePath(op.path), { method: op.method, key });
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
      expect(envelope(res).detail).toBe(`API key missing required scope '${op.scopes[0]}'`);
    }
  });

  it("refuses every root route to a personal key with every scope (403)", async () => {
    const key = await createKey(["*"]);
    for (const op of operations.filter((o) => o.auth === "root")) {
      const res = await call(concretePath(op.path), { method: op.method, key });
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
    }
  });
});
