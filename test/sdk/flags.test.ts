import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope, evenSplit, createFlag as createProjectFlag } from "../helpers";

let project: { id: number; api_token: string };
const flagsUrl = (v = "2") => `/flags/?v=${v}`;
const evaluate = (body: Record<string, unknown>, path = flagsUrl()) =>
  call(path, { method: "POST", key: null, body: { token: project.api_token, ...body } });
const createFlag = (body: unknown) => createProjectFlag(project.id, body);

beforeAll(async () => {
  project = await createProject();
  await createFlag({
    key: "everyone",
    filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: '{"a": 1}' } },
  });
  await createFlag({
    key: "pros",
    filters: { groups: [{ properties: [{ key: "plan", type: "person", value: "pro" }] }] },
  });
  await createFlag({ key: "off", active: false, filters: { groups: [{ rollout_percentage: 100 }] } });
  await createFlag({
    key: "mv",
    filters: evenSplit(),
  });
});

describe("POST /flags", () => {
  it("answers v2 detailed records with reasons and metadata", async () => {
    const res = await evaluate({ distinct_id: "u1", person_properties: { plan: "pro" } });
    expect(res.status).toBe(200);
    expect(res.json.errorsWhileComputingFlags).toBe(false);
    expect(Object.keys(res.json.flags).sort()).toEqual(["everyone", "mv", "pros"]);
    expect(res.json.flags.everyone).toMatchObject({
      key: "everyone",
      enabled: true,
      variant: null,
      reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" },
      metadata: { payload: '{"a": 1}', version: 1 },
    });
    expect(res.json.flags.pros.enabled).toBe(true);
    expect(["a", "b"]).toContain(res.json.flags.mv.variant);
    const free = await evaluate({ distinct_id: "u1", person_properties: { plan: "free" } });
    expect(free.json.flags.pros).toMatchObject({
      enabled: false,
      reason: { code: "no_condition_match", condition_index: 0 },
    });
  });

  it("answers the legacy and decide shapes", async () => {
    const v1 = await evaluate({ distinct_id: "u1" }, "/flags");
    expect(v1.json.featureFlags).toMatchObject({ everyone: true, pros: false });
    expect(v1.json.featureFlagPayloads).toEqual({ everyone: '{"a": 1}' });
    expect((await evaluate({ distinct_id: "u1" }, "/decide/?v=1")).json.featureFlags.sort()).toEqual([
      "everyone",
      "mv",
    ]);
    expect((await evaluate({ distinct_id: "u1" }, "/decide/?v=2")).json.featureFlags.everyone).toBe(true);
    expect((await evaluate({ distinct_id: "u1" }, "/decide/?v=3")).json.featureFlags.pros).toBe(false);
    expect((await evaluate({ distinct_id: "u1" }, "/decide/?v=4")).json.flags.everyone.enabled).toBe(true);
  });

  it("accepts api_key and $token, restricts to flag_keys_to_evaluate, and refuses bad tokens", async () => {
    const res = await call(flagsUrl(), {
      method: "POST",
      key: null,
      body: { api_key: project.api_token, distinct_id: "x", flag_keys_to_evaluate: ["pros"] },
    });
    expect(Object.keys(res.json.flags)).toEqual(["pros"]);
    expect(
      (await call(flagsUrl(), { method: "POST", key: null, body: { $token: project.api_token, distinct_id: 5 } }))
        .status,
    ).toBe(200);
    expect(
      (await call(flagsUrl(), { method: "POST", key: null, body: { token: "phc_nope", distinct_id: "x" } })).status,
    ).toBe(401);
    expect((await call(flagsUrl(), { method: "POST", key: null, body: { distinct_id: "x" } })).status).toBe(401);
    expect(envelope(await evaluate({})).attr).toBe("distinct_id");
    expect(envelope(await evaluate({ distinct_id: null })).attr).toBe("distinct_id");
  });

  it("evaluates an empty distinct_id as PostHog's flags service does", async () => {
    const res = await evaluate({ distinct_id: "" });
    expect(res.status, res.text).toBe(200);
    expect(res.json.flags.everyone.enabled).toBe(true);
    expect(["a", "b"]).toContain(res.json.flags.mv.variant);
  });

  it("keeps the first 200 Unicode characters of a longer distinct_id, an emoji counting as one", async () => {
    const variant = async (id: string) =>
      (await evaluate({ distinct_id: id, flag_keys_to_evaluate: ["mv"] })).json.flags.mv.variant;
    // An id whose cut at 200 UTF-16 units (100 emoji) buckets differently from 200 emoji, so the two cuts are told apart.
    let emoji: string | undefined;
    for (const candidate of ["😀", "🦔", "🚀", "🎉", "🌍", "🍕", "🐙", "🎸"]) {
      if ((await variant(candidate.repeat(200))) !== (await variant(candidate.repeat(100)))) {
        emoji = candidate;
        break;
      }
    }
    expect(emoji, "no candidate tells the cuts apart").toBeDefined();
    expect(await variant(emoji!.repeat(250))).toBe(await variant(emoji!.repeat(200)));
  });

  it("reads gzip, base64 and form-encoded bodies", async () => {
    const json = JSON.stringify({ token: project.api_token, distinct_id: "u1", person_properties: { plan: "pro" } });
    const gz = await new Response(new Blob([json]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
    const gzipped = await call("/flags/?v=2&compression=gzip-js", {
      method: "POST",
      key: null,
      rawBody: gz,
      headers: { "content-type": "text/plain" },
    });
    expect(gzipped.status, gzipped.text).toBe(200);
    expect(gzipped.json.flags.pros.enabled).toBe(true);
    const b64 = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      rawBody: btoa(json),
      headers: { "content-type": "text/plain" },
    });
    expect(b64.json.flags.pros.enabled).toBe(true);
    const form = await call("/decide/?v=3", {
      method: "POST",
      key: null,
      rawBody: `data=${encodeURIComponent(btoa(json))}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.json.featureFlags.pros).toBe(true);
    const junk = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      rawBody: "not json",
      headers: { "content-type": "text/plain" },
    });
    expect(junk.status).toBe(400);
  });

  it("uses stored person properties, the request's winning", async () => {
    const person = await env.DB.prepare(
      "INSERT INTO persons (project_id, uuid, properties) VALUES (?, ?, ?) RETURNING id",
    )
      .bind(project.id, crypto.randomUUID(), JSON.stringify({ plan: "pro" }))
      .first<{ id: number }>();
    await env.DB.prepare("INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, ?)")
      .bind(project.id, "stored-user", person!.id)
      .run();
    expect((await evaluate({ distinct_id: "stored-user" })).json.flags.pros.enabled).toBe(true);
    expect(
      (await evaluate({ distinct_id: "stored-user", person_properties: { plan: "free" } })).json.flags.pros.enabled,
    ).toBe(false);
  });
});

describe("last_called_at", () => {
  it("is set after /flags evaluates the flag (after the response)", async () => {
    const fresh = await createProject();
    const flag = (await call(`/api/projects/${fresh.id}/feature_flags/`, { method: "POST", body: { key: "called" } }))
      .json;
    expect(flag.last_called_at).toBeNull();
    await call("/flags/?v=2", { method: "POST", key: null, body: { token: fresh.api_token, distinct_id: "u" } });
    let seen: string | null = null;
    for (let i = 0; i < 40 && !seen; i++) {
      seen = (await call(`/api/projects/${fresh.id}/feature_flags/${flag.id}/`)).json.last_called_at;
      if (!seen) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
  });
});

describe("flag definitions", () => {
  it("serves the same payload on all three paths, with ETag and 304", async () => {
    const key = await createKey(["feature_flag:read"]);
    const a = await call(`/flags/definitions?token=${project.api_token}&send_cohorts`, { key });
    expect(a.status).toBe(200);
    expect(a.headers.get("etag")).toMatch(/^W\/"[0-9a-f]{16}"$/);
    expect(a.headers.get("cache-control")).toBe("private, must-revalidate");
    expect(a.json.flags.map((f: any) => f.key).sort()).toEqual(["everyone", "mv", "off", "pros"]);
    expect(a.json).toHaveProperty("group_type_mapping");
    expect(a.json).toHaveProperty("cohorts");
    const b = await call(`/api/feature_flag/local_evaluation?token=${project.api_token}&send_cohorts`, { key });
    const c = await call(`/api/projects/${project.id}/feature_flags/local_evaluation?send_cohorts`, { key });
    expect(b.text).toBe(a.text);
    expect(c.text).toBe(a.text);
    const again = await call(`/flags/definitions?token=${project.api_token}&send_cohorts`, {
      key,
      headers: { "If-None-Match": a.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    await createFlag({ key: "newer" });
    const fresh = await call(`/flags/definitions?token=${project.api_token}&send_cohorts`, {
      key,
      headers: { "If-None-Match": a.headers.get("etag")! },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.json.flags.map((f: any) => f.key)).toContain("newer");
  });

  it("needs a key with feature_flag:read that may reach the project", async () => {
    expect((await call(`/flags/definitions?token=${project.api_token}`, { key: null })).status).toBe(401);
    expect(
      (await call(`/flags/definitions?token=${project.api_token}`, { key: await createKey(["person:read"]) })).status,
    ).toBe(403);
    const elsewhere = await createKey(["feature_flag:read"], [(await createProject()).id]);
    expect((await call(`/flags/definitions?token=${project.api_token}`, { key: elsewhere })).status).toBe(403);
  });

  it("rewrites dependencies to keys with a dependency_chain and rebuilds after a KV miss", async () => {
    const base = await createFlag({ key: "dep-base" });
    await createFlag({
      key: "dep-top",
      filters: {
        groups: [{ properties: [{ key: String(base.id), type: "flag", operator: "flag_evaluates_to", value: true }] }],
      },
    });
    const res = await call(`/flags/definitions?token=${project.api_token}`);
    const top = res.json.flags.find((f: any) => f.key === "dep-top");
    expect(top.filters.groups[0].properties[0]).toMatchObject({ key: "dep-base", dependency_chain: ["dep-base"] });
    for (const k of (await env.FLAGS_KV.list()).keys) await env.FLAGS_KV.delete(k.name);
    await new Promise((r) => setTimeout(r, 1100));
    const rebuilt = await call(`/flags/definitions?token=${project.api_token}`);
    expect(rebuilt.text).toBe(res.text);
    expect((await env.FLAGS_KV.list()).keys.length).toBeGreaterThan(0);
  });
});
