import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";

let pid: number;
const base = () => `/api/projects/${pid}/feature_flags`;
const createFlag = async (body: unknown) => {
  const res = await call(`${base()}/`, { method: "POST", body });
  if (res.status !== 201) throw new Error(res.text);
  return res.json;
};

beforeAll(async () => {
  pid = (await createProject()).id;
});

describe("flag operations", () => {
  it("status: active, stale (fully rolled out and old), deleted, unknown", async () => {
    const fresh = await createFlag({ key: "status-fresh" });
    expect((await call(`${base()}/${fresh.id}/status`)).json).toEqual({
      status: "active",
      reason: "Flag is active and being evaluated",
    });
    const old = await createFlag({
      key: "status-old",
      created_at: "2020-01-01T00:00:00Z",
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    expect((await call(`${base()}/${old.id}/status`)).json).toEqual({
      status: "stale",
      reason: 'This boolean flag will always evaluate to "true"',
    });
    expect((await call(`${base()}/${old.id}`)).json.status).toBe("STALE");
    expect((await call(`${base()}/?active=STALE`)).json.results.map((f: any) => f.key)).toEqual(["status-old"]);
    await call(`${base()}/${fresh.id}`, { method: "DELETE" });
    expect((await call(`${base()}/${fresh.id}/status`)).json.status).toBe("deleted");
    const unknown = await call(`${base()}/999999/status`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.status).toBe("unknown");
  });

  it("remote_config by id or key; 404 for non-remote flags", async () => {
    const rc = await createFlag({
      key: "rc",
      is_remote_configuration: true,
      filters: { groups: [{}], payloads: { true: '{"test": true}' } },
    });
    expect((await call(`${base()}/${rc.id}/remote_config`)).json).toBe('{"test": true}');
    expect((await call(`${base()}/rc/remote_config`)).json).toBe('{"test": true}');
    const plain = await createFlag({ key: "not-rc" });
    const res = await call(`${base()}/${plain.id}/remote_config`);
    expect(res.status).toBe(404);
    expect(res.text).toBe("");
  });

  it("enrich_usage_dashboard records has_enriched_analytics", async () => {
    const flag = await createFlag({ key: "enrich-me" });
    const res = await call(`${base()}/${flag.id}/enrich_usage_dashboard`, { method: "POST" });
    expect(res.json).toMatchObject({ success: true, has_enriched_analytics: true });
    expect(res.json.detail).toMatch(/no dashboard product/);
    expect((await call(`${base()}/${flag.id}`)).json.has_enriched_analytics).toBe(true);
  });

  it("activity: created/updated/deleted entries, newest first, paged", async () => {
    const flag = await createFlag({ key: "logged" });
    await call(`${base()}/${flag.id}`, { method: "PATCH", body: { name: "renamed" } });
    await call(`${base()}/${flag.id}`, { method: "PATCH", body: { deleted: true } });
    const page = (await call(`${base()}/${flag.id}/activity?limit=2`)).json;
    expect(page.total_count).toBe(3);
    expect(page.results.map((e: any) => e.activity)).toEqual(["deleted", "updated"]);
    expect(page.results[1]).toMatchObject({
      scope: "FeatureFlag",
      item_id: String(flag.id),
      detail: { name: "logged" },
    });
    expect(page.results[1].detail.changes).toContainEqual({
      type: "FeatureFlag",
      action: "changed",
      field: "name",
      before: "",
      after: "renamed",
    });
    expect(page.next).toContain("page=2");
    const second = (await call(page.next.replace("http://edgehog.test", ""))).json;
    expect(second.results.map((e: any) => e.activity)).toEqual(["created"]);
    expect(second.results[0].item_id).toBe(String(flag.id));
    expect((await call(`${base()}/activity`)).json.total_count).toBeGreaterThanOrEqual(3);
    const noLog = await createKey(["feature_flag:read"]);
    expect((await call(`${base()}/activity`, { key: noLog })).status).toBe(403);
    expect((await call(`${base()}/999999/activity`)).status).toBe(404);
  });

  it("bulk_keys maps ids to keys", async () => {
    const a = await createFlag({ key: "bulk-a" });
    const b = await createFlag({ key: "bulk-b" });
    const res = (
      await call(`${base()}/bulk_keys`, { method: "POST", body: { ids: [a.id, String(b.id), "x", 999999] } })
    ).json;
    expect(res).toEqual({ keys: { [a.id]: "bulk-a", [b.id]: "bulk-b" }, warning: "Invalid flag IDs ignored: ['x']" });
    expect((await call(`${base()}/bulk_keys`, { method: "POST", body: {} })).json).toEqual({ keys: {} });
    const bad = await call(`${base()}/bulk_keys`, { method: "POST", body: { ids: ["x"] } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: "Invalid flag IDs provided" });
  });

  it("evaluation_reasons and my_flags evaluate with stored data", async () => {
    await env.DB.prepare(
      "INSERT OR IGNORE INTO group_type_mappings (project_id, group_type, group_type_index) VALUES (?, 'company', 0)",
    )
      .bind(pid)
      .run();
    await createFlag({
      key: "for-company",
      filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    await createFlag({ key: "disabled-one", active: false });
    const reasons = (await call(`${base()}/evaluation_reasons?distinct_id=someone`)).json;
    expect(reasons["for-company"]).toEqual({
      value: false,
      evaluation: { reason: "no_group_type", condition_index: 0, description: "No group type" },
    });
    expect(reasons["disabled-one"]).toEqual({
      value: false,
      evaluation: { reason: "disabled", condition_index: null },
    });
    const withGroup = (
      await call(`${base()}/evaluation_reasons?distinct_id=someone&groups=${encodeURIComponent('{"company":"acme"}')}`)
    ).json;
    expect(withGroup["for-company"].value).toBe(true);
    expect(envelope(await call(`${base()}/evaluation_reasons?distinct_id=x&groups=nope`)).detail).toBe(
      "Invalid JSON in groups parameter",
    );
    expect(envelope(await call(`${base()}/evaluation_reasons`)).attr).toBe("distinct_id");
    const mine = (await call(`${base()}/my_flags?distinct_id=someone`)).json;
    expect(mine.find((e: any) => e.feature_flag.key === "disabled-one").value).toBe(false);
    expect(mine[0].feature_flag).toHaveProperty("filters");
  });

  it("local_evaluation on the project path answers with ETag", async () => {
    const res = await call(`${base()}/local_evaluation`);
    expect(res.status).toBe(200);
    expect(res.json.cohorts).toEqual({});
    const again = await call(`${base()}/local_evaluation`, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });
});
