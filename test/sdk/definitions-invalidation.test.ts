import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, identifyGroup } from "../helpers";

/**
 * The cached local-evaluation payload embeds cohorts, the group type mapping and the project's
 * time zone, so changes made through other areas must rewrite it before their response returns.
 */
let project: { id: number; api_token: string };
let key: string;
const definitions = (etag?: string) =>
  call(`/flags/definitions?token=${project.api_token}&send_cohorts`, {
    key,
    headers: etag ? { "If-None-Match": etag } : {},
  });

beforeAll(async () => {
  project = await createProject();
  key = await createKey(["feature_flag:read"]);
});

describe("definitions cache invalidation across areas", () => {
  it("rewrites the payload when a cohort used by a flag changes", async () => {
    const cohort = await call(`/api/projects/${project.id}/cohorts/`, {
      method: "POST",
      body: {
        name: "pros",
        filters: {
          properties: {
            type: "AND",
            values: [{ type: "AND", values: [{ key: "plan", type: "person", value: "pro" }] }],
          },
        },
      },
    });
    expect(cohort.status).toBe(201);
    const flag = await call(`/api/projects/${project.id}/feature_flags/`, {
      method: "POST",
      body: {
        key: "for-pros",
        filters: {
          groups: [{ properties: [{ key: "id", type: "cohort", value: cohort.json.id }], rollout_percentage: 100 }],
        },
      },
    });
    expect(flag.status).toBe(201);
    const before = await definitions();
    expect(JSON.stringify(before.json.cohorts[String(cohort.json.id)])).toContain('"pro"');

    const patched = await call(`/api/projects/${project.id}/cohorts/${cohort.json.id}/`, {
      method: "PATCH",
      body: {
        filters: {
          properties: {
            type: "AND",
            values: [{ type: "AND", values: [{ key: "plan", type: "person", value: "enterprise" }] }],
          },
        },
      },
    });
    expect(patched.status).toBe(200);
    const after = await definitions(before.headers.get("etag")!);
    expect(after.status).toBe(200);
    expect(JSON.stringify(after.json.cohorts[String(cohort.json.id)])).toContain('"enterprise"');
  });

  it("rewrites the payload when capture introduces a group type", async () => {
    const before = await definitions();
    expect(before.json.group_type_mapping).toEqual({});
    const captured = await identifyGroup(project.api_token, "company", "acme", { plan: "pro" }, "u1");
    expect(captured.status).toBe(200);
    const after = await definitions(before.headers.get("etag")!);
    expect(after.status).toBe(200);
    expect(after.json.group_type_mapping).toEqual({ "0": "company" });
  });

  it("evaluates with the project's new time zone right after it changes", async () => {
    // A bare date in a filter is read in the project's time zone, as PostHog's server does.
    await call(`/api/projects/${project.id}/feature_flags/`, {
      method: "POST",
      body: {
        key: "early-signups",
        filters: {
          groups: [
            {
              properties: [{ key: "signed_up", type: "person", operator: "is_date_before", value: "2026-06-01" }],
              rollout_percentage: 100,
            },
          ],
        },
      },
    });
    const evaluate = async () =>
      (
        await call("/flags/?v=2", {
          method: "POST",
          key: null,
          body: {
            token: project.api_token,
            distinct_id: "tz-user",
            person_properties: { signed_up: "2026-05-31T20:00:00Z" },
          },
        })
      ).json.flags["early-signups"].enabled;
    expect(await evaluate()).toBe(true); // UTC: 20:00 on May 31 is before June 1
    const patched = await call(`/api/projects/${project.id}/`, { method: "PATCH", body: { timezone: "Asia/Tokyo" } });
    expect(patched.status).toBe(200);
    expect(await evaluate()).toBe(false); // Tokyo: June 1 begins at 15:00 UTC on May 31
  });

  it("caches entries with an expiry, so a payload that could not be rewritten heals from D1", async () => {
    await definitions();
    const { keys } = await env.FLAGS_KV.list({ prefix: `flagdefs:v1:${project.api_token}:` });
    expect(keys.map((k) => k.name).sort()).toEqual([
      `flagdefs:v1:${project.api_token}:cohorts`,
      `flagdefs:v1:${project.api_token}:plain`,
    ]);
    for (const key of keys) expect(key.expiration).toBeGreaterThan(Date.now() / 1000);
  });

  it("leaves the newest payload after concurrent flag writes", async () => {
    const flag = await call(`/api/projects/${project.id}/feature_flags/`, { method: "POST", body: { key: "raced" } });
    const results = await Promise.all(
      [10, 20, 30, 40, 50].map((pct) =>
        call(`/api/projects/${project.id}/feature_flags/${flag.json.id}/`, {
          method: "PATCH",
          body: { filters: { groups: [{ properties: [], rollout_percentage: pct }] } },
        }),
      ),
    );
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const stored = (await call(`/api/projects/${project.id}/feature_flags/${flag.json.id}/`)).json.filters.groups[0]
      .rollout_percentage;
    const cached = (await definitions()).json.flags.find((f: any) => f.key === "raced").filters.groups[0]
      .rollout_percentage;
    expect(cached).toBe(stored);
  });
});
