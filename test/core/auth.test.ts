import { describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";

describe("personal API keys and scopes", () => {
  it("answers a request without a key with 401 not_authenticated", async () => {
    const res = await call("/api/projects/", { key: null });
    expect(res.status).toBe(401);
    expect(envelope(res)).toEqual({
      type: "authentication_error",
      code: "not_authenticated",
      detail: "Authentication credentials were not provided.",
      attr: null,
    });
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("answers a wrong key with 401 authentication_failed", async () => {
    const res = await call("/api/projects/", { key: "phx_not_a_real_key" });
    expect(res.status).toBe(401);
    expect(envelope(res)).toMatchObject({
      code: "authentication_failed",
      detail: "Personal API key found in request Authorization header is invalid.",
    });
  });

  it("creates a key whose plaintext is shown once and stored only as a hash", async () => {
    const res = await call("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "ci", scopes: ["person:read"] },
    });
    expect(res.status).toBe(201);
    expect(res.json.value).toMatch(/^phx_[0-9A-Za-z]{47}$/);
    expect(res.json.mask_value).toBe(`phx_...${res.json.value.slice(-4)}`);
    const { env } = await import("cloudflare:workers");
    const stored = await env.DB.prepare("select * from personal_api_keys where id = ?").bind(res.json.id).first<any>();
    expect(JSON.stringify(stored)).not.toContain(res.json.value);
    expect(stored.secure_value).toMatch(/^[0-9a-f]{64}$/);
    const listed = await call("/api/personal_api_keys/");
    const entry = listed.json.results.find((k: any) => k.id === res.json.id);
    expect(entry).toBeDefined();
    expect(entry.value).toBeUndefined();
  });

  it("tells a key its own scopes and projects at @current", async () => {
    const project = await createProject();
    const key = await createKey(["person:read", "feature_flag:write"], [project.id]);
    const res = await call("/api/personal_api_keys/@current/", { key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ scopes: ["person:read", "feature_flag:write"], scoped_teams: [project.id] });
    const root = await call("/api/personal_api_keys/@current");
    expect(root.json).toMatchObject({ label: "root", scopes: ["*"], scoped_teams: [], scoped_organizations: [] });
  });

  it("refuses unknown scopes and unknown projects when creating a key", async () => {
    const badScope = await call("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "x", scopes: ["person:admin"] },
    });
    expect(badScope.status).toBe(400);
    expect(envelope(badScope).attr).toBe("scopes__0");
    const badProject = await call("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "x", scopes: ["*"], scoped_teams: [987654] },
    });
    expect(badProject.status).toBe(400);
    expect(envelope(badProject).attr).toBe("scoped_teams");
  });

  it("reserves project and key creation for the root key", async () => {
    const key = await createKey(["*"]);
    const project = await call("/api/projects/", { method: "POST", body: { name: "x" }, key });
    expect(project.status).toBe(403);
    expect(envelope(project).detail).toBe("This action requires the root API key.");
    const newKey = await call("/api/personal_api_keys/", { method: "POST", body: { label: "x", scopes: ["*"] }, key });
    expect(newKey.status).toBe(403);
  });

  it("refuses a key limited to other projects with 403", async () => {
    const one = await createProject();
    const two = await createProject();
    const key = await createKey(["project:read"], [two.id]);
    expect((await call(`/api/projects/${two.id}/`, { key })).status).toBe(200);
    const res = await call(`/api/projects/${one.id}/`, { key });
    expect(res.status).toBe(403);
    expect(envelope(res).detail).toBe(`API key does not have access to the requested project: ID ${one.id}.`);
    const listed = await call("/api/projects/", { key });
    expect(listed.json.results.map((p: any) => p.id)).toEqual([two.id]);
  });

  it("lets write imply read and * imply everything", async () => {
    const project = await createProject();
    for (const scopes of [["project:write"], ["*"]]) {
      const key = await createKey(scopes);
      expect((await call(`/api/projects/${project.id}/`, { key })).status).toBe(200);
    }
    const readOnly = await createKey(["project:read"]);
    const res = await call(`/api/projects/${project.id}/`, {
      method: "PATCH",
      body: { name: "renamed" },
      key: readOnly,
    });
    expect(res.status).toBe(403);
    expect(envelope(res).detail).toBe("API key missing required scope 'project:write'");
  });

  it("revokes a key", async () => {
    const created = await call("/api/personal_api_keys/", { method: "POST", body: { label: "gone", scopes: ["*"] } });
    expect((await call(`/api/personal_api_keys/${created.json.id}/`, { method: "DELETE" })).status).toBe(204);
    expect((await call("/api/projects/", { key: created.json.value })).status).toBe(401);
    expect((await call(`/api/personal_api_keys/${created.json.id}/`, { method: "DELETE" })).status).toBe(404);
  });
});
