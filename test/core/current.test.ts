import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";

/** `@current`, `/api/users/@me/` and the one implicit organization, as PostHog's own tooling reads them. */
let one: { id: number; api_token: string };
let two: { id: number; api_token: string };

beforeAll(async () => {
  one = await createProject();
  two = await createProject();
});

describe("@current in project paths", () => {
  it("is the only project of a key scoped to one", async () => {
    const key = await createKey(["project:read", "person:read"], [one.id]);
    const res = await call("/api/projects/@current/", { key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: one.id, project_id: one.id });
    expect((await call("/api/environments/@current/persons/", { key })).status).toBe(200);
  });

  it("is the project of ?token= (as posthog-node and posthog-python send it), checked against the key", async () => {
    const key = await createKey(["feature_flag:read"], [one.id, two.id]);
    const flag = await call(`/api/projects/${two.id}/feature_flags/`, {
      method: "POST",
      body: {
        key: "rc",
        is_remote_configuration: true,
        filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '"hi"' } },
      },
    });
    expect(flag.status).toBe(201);
    const res = await call(`/api/projects/@current/feature_flags/rc/remote_config?token=${two.api_token}`, { key });
    expect(res.status).toBe(200);
    expect(res.json).toBe('"hi"');

    const other = await createProject();
    const unreachable = await call(`/api/projects/@current/feature_flags/rc/remote_config?token=${other.api_token}`, {
      key,
    });
    expect(unreachable.status).toBe(403);
    expect((await call("/api/projects/@current/feature_flags/rc/remote_config?token=phc_nope", { key })).status).toBe(
      404,
    );
  });

  it("is a clear 400 naming the ids when the key reaches several projects", async () => {
    const key = await createKey(["project:read"], [one.id, two.id]);
    const res = await call("/api/projects/@current/", { key });
    expect(res.status).toBe(400);
    const error = envelope(res);
    expect(error.attr).toBe("project_id");
    expect(error.detail).toContain(`${one.id}, ${two.id}`);
    // The root key reaches every project, and there are several.
    expect((await call("/api/projects/@current/")).status).toBe(400);
  });
});

describe("/api/personal_api_keys/@current", () => {
  it("always renders scoped_teams and scoped_organizations as arrays (empty: every project)", async () => {
    const unscoped = await call("/api/personal_api_keys/@current/", { key: await createKey(["feature_flag:read"]) });
    expect(unscoped.json).toMatchObject({ scoped_teams: [], scoped_organizations: [] });
    const scoped = await call("/api/personal_api_keys/@current", {
      key: await createKey(["feature_flag:read"], [two.id]),
    });
    expect(scoped.json).toMatchObject({ scoped_teams: [two.id], scoped_organizations: [] });
  });

  it("reads a key stored with an empty project list as reaching every project, as it renders it", async () => {
    const created = await call("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "stored empty", scopes: ["project:read"], scoped_teams: [two.id] },
    });
    await env.DB.prepare("UPDATE personal_api_keys SET scoped_projects = '[]' WHERE id = ?")
      .bind(created.json.id)
      .run();
    expect((await call(`/api/projects/${one.id}/`, { key: created.json.value })).status).toBe(200);
    expect((await call("/api/personal_api_keys/@current/", { key: created.json.value })).json.scoped_teams).toEqual([]);
  });

  it("treats scoped_teams: [] at creation as every project, as it renders it", async () => {
    const created = await call("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "all", scopes: ["project:read"], scoped_teams: [] },
    });
    expect(created.status).toBe(201);
    expect((await call(`/api/projects/${two.id}/`, { key: created.json.value })).status).toBe(200);
  });
});

describe("/api/users/@me", () => {
  it("answers for the calling key: its label, its project as team, the organization", async () => {
    const key = await createKey(["feature_flag:write"], [two.id]);
    const res = await call("/api/users/@me/", { key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      distinct_id: "key feature_flag:write",
      team: { id: two.id, api_token: two.api_token },
    });
    expect(res.json.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const organizationId = res.json.organization.id;
    expect(organizationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(res.json.team.organization).toBe(organizationId);
    expect(res.json.organizations).toEqual([res.json.organization]);
  });

  it("gives a key reaching several projects the first of them as team", async () => {
    const res = await call("/api/users/@me", { key: await createKey(["project:read"], [two.id, one.id]) });
    expect(res.json.team.id).toBe(Math.min(one.id, two.id));
  });
});

describe("/api/organizations", () => {
  it("lists the one organization and answers it at @current and at its id", async () => {
    const key = await createKey(["feature_flag:read"], [one.id]);
    const list = await call("/api/organizations/", { key });
    expect(list.status).toBe(200);
    expect(list.json.count).toBe(1);
    const organization = list.json.results[0];
    expect((await call("/api/organizations/@current/", { key })).json).toEqual(organization);
    expect((await call(`/api/organizations/${organization.id}/`, { key })).json).toEqual(organization);
    const unknown = await call("/api/organizations/0190aaaa-0000-7000-8000-000000000000/", { key });
    expect(unknown.status).toBe(404);
    envelope(unknown);
  });

  it("lists the organization's projects the key can reach", async () => {
    const key = await createKey(["project:read"], [two.id]);
    const res = await call("/api/organizations/@current/projects/", { key });
    expect(res.status).toBe(200);
    expect(res.json.results.map((p: { id: number }) => p.id)).toEqual([two.id]);
    expect(res.json.results[0].organization).toBe((await call("/api/organizations/@current/", { key })).json.id);
    expect((await call("/api/organizations/not-ours/projects/", { key })).status).toBe(404);
  });
});
