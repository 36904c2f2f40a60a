import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope, evenSplit, gzip, createFlag as createProjectFlag } from "../helpers";

/**
 * What posthog-js needs from the SDK surface: CORS from any site, bodies as it sends them (gzip
 * text/plain with no hint, base64 forms from older builds), remote config, evaluation contexts.
 */
let project: { id: number; api_token: string };
const SITE = "https://shop.example";

const createFlag = (body: unknown) => createProjectFlag(project.id, body);

beforeAll(async () => {
  project = await createProject();
  await createFlag({ key: "everyone", filters: { groups: [{ rollout_percentage: 100 }] } });
  await createFlag({
    key: "web-only",
    tags: ["web"],
    evaluation_tags: ["web"],
    filters: { groups: [{ rollout_percentage: 100 }] },
  });
  await createFlag({
    key: "server-only",
    evaluation_runtime: "server",
    filters: { groups: [{ rollout_percentage: 100 }] },
  });
});

describe("CORS", () => {
  const sdkPaths = [
    "/e/",
    "/i/v0/e/",
    "/batch/",
    "/capture/",
    "/flags/?v=2",
    "/decide/?v=3",
    "/array/phc_x/config",
    "/array/phc_x/config.js",
  ];

  it("answers preflights on every SDK path, mirroring the origin and the requested headers", async () => {
    for (const path of sdkPaths) {
      const res = await call(path, {
        method: "OPTIONS",
        key: null,
        headers: {
          origin: SITE,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type,x-custom",
        },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin"), path).toBe(SITE);
      expect(res.headers.get("access-control-allow-credentials")).toBe("true");
      expect(res.headers.get("access-control-allow-headers")).toBe("content-type,x-custom");
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
      expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
    }
  });

  it("puts the headers on answers and on errors, so the browser can read both", async () => {
    const ok = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      headers: { origin: SITE },
      body: { token: project.api_token, distinct_id: "u" },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(ok.headers.get("vary")).toContain("Origin");
    const refused = await call("/e/", {
      method: "POST",
      key: null,
      headers: { origin: SITE },
      body: { api_key: "phc_unknown", event: "x", distinct_id: "u" },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(SITE);
  });

  it("keeps management routes closed to other origins unless CORS_ALLOWED_ORIGINS lists them", async () => {
    const preflight = await call("/api/projects/", {
      method: "OPTIONS",
      key: null,
      headers: { origin: SITE, "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(envelope(preflight).detail).toContain("CORS_ALLOWED_ORIGINS");
    const get = await call("/api/projects/", { headers: { origin: SITE } });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("opens management routes to the origins CORS_ALLOWED_ORIGINS lists", async () => {
    const admin = "https://admin.example"; // vitest.config.ts sets CORS_ALLOWED_ORIGINS to it
    const preflight = await call("/api/projects/1/feature_flags/", {
      method: "OPTIONS",
      key: null,
      headers: {
        origin: admin,
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(admin);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("PATCH");
    const get = await call("/api/projects/", { headers: { origin: admin } });
    expect(get.headers.get("access-control-allow-origin")).toBe(admin);
  });

  it("answers OPTIONS without an Origin on SDK paths (as PostHog's capture)", async () => {
    const res = await call("/batch/", { method: "OPTIONS", key: null });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("SDK bodies", () => {
  it("reads /flags as posthog-js 1.449 sends it: text/plain gzip with no compression hint", async () => {
    const body = await gzip(
      JSON.stringify({ token: project.api_token, distinct_id: "web-user", groups: {}, timezone: "UTC" }),
    );
    const res = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      rawBody: body,
      headers: { "content-type": "text/plain", origin: SITE },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.flags.everyone.enabled).toBe(true);
  });

  it("reads /decide as posthog-js 1.160 sends it: a form whose data is base64 of JSON", async () => {
    const data = btoa(JSON.stringify({ token: project.api_token, distinct_id: "old-web-user" }));
    const res = await call("/decide/?v=3&compression=base64", {
      method: "POST",
      key: null,
      rawBody: `data=${encodeURIComponent(data)}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.featureFlags.everyone).toBe(true);
  });

  it("reads capture as posthog-js sends it: text/plain gzip to /i/v0/e/", async () => {
    const batch = {
      api_key: project.api_token,
      batch: [{ event: "$pageview", distinct_id: "web-capture", properties: { $lib: "web" } }],
      sent_at: new Date().toISOString(),
    };
    const res = await call("/i/v0/e/", {
      method: "POST",
      key: null,
      rawBody: await gzip(JSON.stringify(batch)),
      headers: { "content-type": "text/plain" },
    });
    expect(res.status, res.text).toBe(200);
    const persons = await call(`/api/environments/${project.id}/persons/?distinct_id=web-capture`);
    expect(persons.json.results).toHaveLength(1);
  });

  it("refuses bodies that decode to nothing usable with a 400 envelope", async () => {
    for (const rawBody of ["%%%", "[1,2]", "data=%%%"]) {
      const res = await call("/flags/?v=2", {
        method: "POST",
        key: null,
        rawBody,
        headers: { "content-type": "text/plain" },
      });
      expect(res.status, rawBody).toBe(400);
      envelope(res);
    }
    const badGzip = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      rawBody: new Uint8Array([0x1f, 0x8b, 1, 2, 3]),
      headers: { "content-type": "text/plain" },
    });
    expect(badGzip.status).toBe(400);
    expect(envelope(badGzip).code).toBe("invalid_payload");
  });

  it("stops decompressing a gzip bomb at the route's limit (413), before any token check", async () => {
    // A few kilobytes of gzip that expand past /flags' 1 MiB and capture's 20 MiB.
    const bomb = async (bytes: number) => gzip(" ".repeat(bytes));
    const flags = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      rawBody: await bomb(2 * 1024 * 1024),
      headers: { "content-type": "text/plain" },
    });
    expect(flags.status).toBe(413);
    expect(envelope(flags).code).toBe("payload_too_large");
    const inBase64 = btoa(String.fromCharCode(...new Uint8Array(await bomb(2 * 1024 * 1024))));
    const form = await call("/decide/?v=3", {
      method: "POST",
      key: null,
      rawBody: `data=${encodeURIComponent(inBase64)}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(413);
    const capture = await call("/batch/", {
      method: "POST",
      key: null,
      rawBody: await bomb(21 * 1024 * 1024),
      headers: { "content-type": "text/plain" },
    });
    expect(capture.status).toBe(413);
    // Under the limit, the same kind of body is only malformed JSON.
    const small = await call("/flags/?v=2", {
      method: "POST",
      key: null,
      rawBody: await gzip(`${" ".repeat(1000)}{`),
      headers: { "content-type": "text/plain" },
    });
    expect(small.status).toBe(400);
  });
});

describe("odd input", () => {
  it("never reaches a 500 on the SDK routes", async () => {
    const token = project.api_token;
    const bodies: unknown[] = [
      { token, distinct_id: { nested: true } },
      { token, distinct_id: ["a"] },
      { token, distinct_id: "u", groups: ["not", "an", "object"] },
      { token, distinct_id: "u", groups: { company: { deep: 1 } }, group_properties: { company: "x" } },
      { token, distinct_id: "u", person_properties: "plan=pro" },
      { token, distinct_id: "u", flag_keys_to_evaluate: "everyone" },
      { token, distinct_id: "u", evaluation_contexts: "web" },
      { token, distinct_id: "u", $device_id: 42, $anon_distinct_id: {} },
      { token: 42, distinct_id: "u" },
      { token: null },
      "just a string",
      null,
    ];
    for (const body of bodies) {
      for (const path of ["/flags/?v=2", "/decide/?v=3", "/flags?config=true"]) {
        const res = await call(path, {
          method: "POST",
          key: null,
          rawBody: JSON.stringify(body),
          headers: { "content-type": "application/json" },
        });
        expect(res.status, `${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        if (res.status >= 400) envelope(res);
      }
      const capture = await call("/e/", {
        method: "POST",
        key: null,
        rawBody: JSON.stringify(body),
        headers: { "content-type": "text/plain" },
      });
      expect(capture.status, JSON.stringify(body)).toBeLessThan(500);
    }
    for (const path of ["/array//config", "/array/%00/config.js", "/array/phc_x/config.js.map", "/array/phc_x"]) {
      expect((await call(path, { key: null })).status, path).toBeLessThan(500);
    }
  });
});

describe("tokens that cannot be tokens", () => {
  it("are 401 on every SDK route, never a 500", async () => {
    const readKey = await createKey(["feature_flag:read"]);
    for (const token of [`phc_${"x".repeat(600)}`, "phc_ünïcode", "phc_with space", "phc_../../etc"]) {
      const flags = await call("/flags/?v=2", { method: "POST", key: null, body: { token, distinct_id: "u" } });
      expect(flags.status, token).toBe(401);
      const decide = await call("/decide/?v=4", { method: "POST", key: null, body: { token, distinct_id: "u" } });
      expect(decide.status).toBe(401);
      const capture = await call("/e/", {
        method: "POST",
        key: null,
        body: { api_key: token, event: "x", distinct_id: "u" },
      });
      expect(capture.status).toBe(401);
      const query = `token=${encodeURIComponent(token)}`;
      expect((await call(`/flags/definitions?${query}`, { key: readKey })).status).toBe(401);
      expect((await call(`/api/feature_flag/local_evaluation?${query}`, { key: readKey })).status).toBe(401);
      expect((await call(`/array/${encodeURIComponent(token)}/config`, { key: null })).status).toBe(401);
    }
  });
});

describe("remote config", () => {
  it("serves the config with every missing product off, and hasFeatureFlags from the active flags", async () => {
    const res = await call(`/array/${project.api_token}/config`, { key: null, headers: { origin: SITE } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(res.headers.get("cache-control")).toContain("max-age");
    // Cacheable, so a copy fetched without an Origin must never answer a browser.
    expect((await call(`/array/${project.api_token}/config`, { key: null })).headers.get("vary")).toContain("Origin");
    expect(res.json).toMatchObject({
      supportedCompression: ["gzip", "gzip-js"],
      hasFeatureFlags: true,
      analytics: { endpoint: "/i/v0/e/" },
      sessionRecording: false,
      heatmaps: false,
      autocaptureExceptions: false,
      capturePerformance: false,
      siteApps: [],
    });
    expect(res.json).not.toHaveProperty("surveys");

    const empty = await createProject();
    expect((await call(`/array/${empty.api_token}/config`, { key: null })).json.hasFeatureFlags).toBe(false);
  });

  it("serves the script posthog-js loads, which leaves the same config under the token", async () => {
    const res = await call(`/array/${project.api_token}/config.js`, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("javascript");
    const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: unknown; siteApps: unknown[] }> } = {};
    new Function("window", res.text)(window);
    const json = await call(`/array/${project.api_token}/config`, { key: null });
    expect(window._POSTHOG_REMOTE_CONFIG?.[project.api_token]).toEqual({ config: json.json, siteApps: [] });
  });

  it("answers an unknown token with 404", async () => {
    expect((await call("/array/phc_unknown/config", { key: null })).status).toBe(404);
    expect((await call("/array/phc_unknown/config.js", { key: null })).status).toBe(404);
  });

  it("adds the config fields to /decide, and to /flags when asked or when no version is named", async () => {
    const body = { token: project.api_token, distinct_id: "u" };
    const decide = await call("/decide/?v=3", { method: "POST", key: null, body });
    expect(decide.json).toMatchObject({
      featureFlags: { everyone: true },
      sessionRecording: false,
      supportedCompression: ["gzip", "gzip-js"],
      toolbarParams: {},
    });
    const asked = await call("/flags/?v=2&config=true", { method: "POST", key: null, body });
    expect(asked.json).toMatchObject({
      flags: { everyone: { enabled: true } },
      hasFeatureFlags: true,
      sessionRecording: false,
    });
    const plain = await call("/flags/?v=2", { method: "POST", key: null, body });
    expect(plain.json).not.toHaveProperty("sessionRecording");
    const unversioned = await call("/flags", { method: "POST", key: null, body });
    expect(unversioned.json).toMatchObject({ featureFlags: { everyone: true }, sessionRecording: false });
  });
});

describe("what posthog-js sends on /flags", () => {
  const evaluate = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call("/flags/?v=2", {
      method: "POST",
      key: null,
      headers,
      body: { token: project.api_token, distinct_id: "ctx-user", ...body },
    });

  it("evaluates tagged flags only for a request naming one of their evaluation contexts", async () => {
    expect(Object.keys((await evaluate({ evaluation_runtime: "server" })).json.flags)).toContain("web-only");
    const web = await evaluate({ evaluation_contexts: ["web"], evaluation_runtime: "server" });
    expect(Object.keys(web.json.flags).sort()).toEqual(["everyone", "server-only", "web-only"]);
    const checkout = await evaluate({ evaluation_contexts: ["checkout"], evaluation_runtime: "server" });
    expect(Object.keys(checkout.json.flags).sort()).toEqual(["everyone", "server-only"]);
    const legacyName = await evaluate({ evaluation_environments: ["checkout"], evaluation_runtime: "server" });
    expect(Object.keys(legacyName.json.flags)).not.toContain("web-only");
  });

  it("detects the caller's runtime as PostHog does: body, then User-Agent, then browser headers", async () => {
    await createFlag({
      key: "client-only",
      evaluation_runtime: "client",
      filters: { groups: [{ rollout_percentage: 100 }] },
    });
    const keys = async (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      Object.keys((await evaluate(body, headers)).json.flags).sort();
    const unrestricted = ["everyone", "web-only"];
    expect(await keys({}, { origin: SITE })).toEqual(["client-only", ...unrestricted]);
    expect(await keys({}, { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0" })).toEqual([
      "client-only",
      ...unrestricted,
    ]);
    expect(await keys({}, { "user-agent": "posthog-node/5.70.0" })).toEqual(["everyone", "server-only", "web-only"]);
    expect(await keys({}, { "user-agent": "posthog-ios/3.0.0" })).toEqual(["client-only", ...unrestricted]);
    expect(await keys({ evaluation_runtime: "SERVER" }, { origin: SITE })).toEqual([
      "everyone",
      "server-only",
      "web-only",
    ]);
    expect(await keys({ evaluation_runtime: "all" })).toEqual(["client-only", "everyone", "server-only", "web-only"]);
    // Nothing tells: only the flags without a runtime restriction.
    expect(await keys({})).toEqual(unrestricted);
  });

  it("refuses evaluation contexts that are not a list", async () => {
    const res = await evaluate({ evaluation_contexts: "web" });
    expect(res.status).toBe(400);
    expect(envelope(res).attr).toBe("evaluation_contexts");
  });

  it("hashes $device_id for device-bucketed flags", async () => {
    await createFlag({
      key: "by-device",
      bucketing_identifier: "device_id",
      filters: evenSplit(),
    });
    const variants = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await evaluate({ distinct_id: `person-${i}`, $device_id: "one-device" });
      variants.add(res.json.flags["by-device"].variant);
    }
    expect(variants.size).toBe(1); // same device, any person: one bucket
    const devices = new Set<string>();
    for (let i = 0; i < 20; i++)
      devices.add((await evaluate({ $device_id: `device-${i}` })).json.flags["by-device"].variant);
    expect(devices).toEqual(new Set(["a", "b"]));
  });
});
